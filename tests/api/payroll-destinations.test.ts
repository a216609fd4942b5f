/**
 * Payroll destinations over HTTP (spec 4.4 recipient sessions, adoption, reissue_link; 5 public
 * token; 6; 7; issue 13): the session read (this recipient only, masked), a bank or wallet
 * destination submitted once per link, adoption (updated and skipped items, item counts, events),
 * `pending_destination_changed`, `no_pending_destination`, `destination_rail_keyless`,
 * reissue_link (old token 404, new one submits again, refused once the run is cancelled), 404
 * across accounts and bad input naming the field.
 */
import type Joi from 'joi';
import { call, client, connectDb, expectError, expectOk, idem, newAccount } from '../helpers/api';
import { db } from '../../lib/db';
import { payrollRecipientResponse } from '../../views/payroll';
import { adoptionResponse, recipientSessionResponse, reissuedLinkResponse } from '../../views/payroll-destination';

type Api = ReturnType<typeof client>;
let key: Api;
let other: Api;
let n = 0;

const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
const money = (amount: string, currency = 'USD') => ({ amount, currency, decimals: 2 });
const ach = (account = '000123456789', extra: Record<string, unknown> = {}) => ({
  type: 'bank_account',
  account_owner_type: 'individual',
  account_holder_name: 'Ana Diaz',
  rail: 'ach',
  account_number: account,
  routing_number: '021000021',
  ...extra,
});
function conforms(schema: Joi.Schema, body: unknown): void {
  const { error } = schema.validate(body, { allowUnknown: false, presence: 'optional' });
  if (error) throw new Error(`response does not match its schema: ${error.message}\n${JSON.stringify(body)}`);
}
const session = (token: string) => call('GET', `/v1/payroll_recipient_sessions/${token}`, undefined, { idem: null });
const submit = (token: string, body: unknown) => call('POST', `/v1/payroll_recipient_sessions/${token}/destination`, body, { idem: null });
const email = (who: string) => `${who}.${process.pid}.${++n}.${Date.now()}@example.com`;

beforeAll(async () => {
  await connectDb();
  key = client((await newAccount()).live_key);
  other = client((await newAccount()).live_key);
});

/** A run paying `rows` ([email, amount]) in `currency`; returns the run and its items in row order. */
async function run(rows: Array<[string, string]>, currency = 'USD', extra: Record<string, unknown> = {}) {
  const r = expectOk(
    await key.post('/v1/payroll_runs', {
      title: 'November payroll',
      currency,
      pay_period_start: '2026-11-01',
      pay_period_end: '2026-11-30',
      rows: rows.map(([e, amount], i) => ({
        email: e,
        name: `Person ${i}`,
        amount: money(amount, currency),
        memo: i === 0 ? 'November' : null,
      })),
      ...extra,
    }),
    201,
  );
  const items = expectOk(await key.get(`/v1/payroll_runs/${r.id}/items`)).data as Array<{ id: string; recipient: { id: string } }>;
  return { run: r, items };
}
/** The item's recipient session token (reissue_link: the only place it is handed out). */
async function link(runId: string, itemId: string): Promise<string> {
  const r = expectOk(await key.post(`/v1/payroll_runs/${runId}/items/${itemId}/reissue_link`, {}));
  conforms(reissuedLinkResponse, r);
  return r.recipient_session.token;
}
const eventTypes = async (objectId: string): Promise<string[]> =>
  (await db().query('SELECT type FROM events WHERE object_id = $1 ORDER BY seq', [objectId])).map((e: { type: string }) => e.type);
async function adopt(recipientId: string, api: Api = key) {
  const rcp = expectOk(await api.get(`/v1/payroll_recipients/${recipientId}`));
  return api.post(`/v1/payroll_recipients/${recipientId}/adopt_pending_destination`, {
    expected_submitted_at: rcp.pending_destination.submitted_at,
  });
}

test('session read, bank destination submitted once, masked afterwards; other recipients untouched', async () => {
  const {
    run: r,
    items: [ana, bo],
  } = await run([
    [email('ana'), '250000'],
    [email('bo'), '120050'],
  ]);
  const re = expectOk(await key.post(`/v1/payroll_runs/${r.id}/items/${ana.id}/reissue_link`, {}));
  expect(re.recipient_session.url).toMatch(new RegExp(`/payroll/${re.recipient_session.token}$`));
  expect(re.recipient_session.token).toMatch(/^prk_[A-Za-z0-9]+$/);
  const token = re.recipient_session.token;
  const s0 = expectOk(await session(token));
  conforms(recipientSessionResponse, s0);
  expect(s0).toMatchObject({
    object: 'payroll_recipient_session',
    livemode: true,
    amount: money('250000'),
    run_title: 'November payroll',
    run_status: 'reviewed',
    pay_period_start: '2026-11-01',
    pay_period_end: '2026-11-30',
    memo: 'November',
    item_status: 'pending',
    destination: null,
    pending_destination: null,
    destination_pending_adoption: false,
    can_submit: true,
    submit_closed_reason: null,
  });
  expect(typeof s0.payer.display_name).toBe('string');
  expect(JSON.stringify(s0)).not.toMatch(/Person 1|prc_|pri_/);

  const s1 = expectOk(await submit(token, ach()), 201);
  conforms(recipientSessionResponse, s1);
  expect(s1).toMatchObject({
    can_submit: false,
    submit_closed_reason: 'destination_already_submitted',
    destination_pending_adoption: true,
    destination: null,
    pending_destination: {
      type: 'bank_account',
      bank: { rail: 'ach', account_number_last4: '6789', routing_number: '021000021', currency: 'USD' },
    },
  });
  expect(JSON.stringify(s1)).not.toContain('000123456789');
  expectError(await submit(token, ach('000999999999')), 409, 'conflict', 'destination_already_submitted');
  const s2 = expectOk(await session(token));
  expect(s2.pending_destination.bank.account_number_last4).toBe('6789');
  expect(JSON.stringify(s2)).not.toContain('000123456789');

  const rcp = expectOk(await key.get(`/v1/payroll_recipients/${ana.recipient.id}`));
  conforms(payrollRecipientResponse, rcp);
  expect(rcp).toMatchObject({ destination: null, pending_destination: { from_item_id: ana.id, destination: { type: 'bank_account' } } });
  expect(JSON.stringify(rcp)).not.toContain('000123456789');
  expect(expectOk(await key.get(`/v1/payroll_runs/${r.id}`)).item_counts).toEqual({
    total: 2,
    destination_ready: 0,
    destination_pending_adoption: 1,
    destination_missing: 1,
  });
  const bos = expectOk(await session(await link(r.id, bo.id)));
  expect(bos).toMatchObject({ pending_destination: null, destination_pending_adoption: false, can_submit: true, amount: money('120050') });
  expect(await eventTypes(ana.id)).toEqual(['payroll_item.destination_updated']);
  const items = expectOk(await key.get(`/v1/payroll_runs/${r.id}/items`)).data;
  expect(JSON.stringify(items)).not.toMatch(/prk_/);
});

test('wallet destination: checksum checked, adopted (pending_destination_changed first), then no_pending_destination', async () => {
  const {
    run: r,
    items: [cy],
  } = await run([[email('cy'), '30000']]);
  const token = await link(r.id, cy.id);
  const bad = WALLET.replace('E', 'e'); // one letter re-cased: the EIP-55 checksum fails
  expectError(
    await submit(token, { type: 'wallet', chain: 'tempo', address: bad }),
    400,
    'invalid_request',
    'parameter_invalid',
    'address',
  );
  expectError(
    await submit(token, { type: 'wallet', chain: 'ethereum', address: WALLET }),
    400,
    'invalid_request',
    'parameter_invalid',
    'chain',
  );
  expectError(await submit(token, { type: 'wallet', chain: 'tempo' }), 400, 'invalid_request', 'parameter_missing', 'address');
  expectError(
    await submit(token, { type: 'wallet', chain: 'tempo', address: WALLET, iban: 'DE89370400440532013000' }),
    400,
    'invalid_request',
    'parameter_invalid',
    'iban',
  );
  const s = expectOk(await submit(token, { type: 'wallet', chain: 'tempo', address: WALLET }), 201);
  expect(s.pending_destination).toEqual({ type: 'wallet', chain: 'tempo', asset: 'USDC', address_masked: '0x5290...9EE7' });
  expect(JSON.stringify(s)).not.toContain(WALLET);

  const stale = await key.post(`/v1/payroll_recipients/${cy.recipient.id}/adopt_pending_destination`, {
    expected_submitted_at: '2020-01-01T00:00:00Z',
  });
  expectError(stale, 409, 'conflict', 'pending_destination_changed');
  expect(typeof stale.body.error.details.submitted_at).toBe('string');
  const a = expectOk(await adopt(cy.recipient.id));
  conforms(adoptionResponse, a);
  expect(a).toMatchObject({
    updated_run_items: [cy.id],
    skipped_run_items: [],
    pending_destination: null,
    destination: { type: 'wallet', address_masked: '0x5290...9EE7' },
  });
  expect(expectOk(await key.get(`/v1/payroll_runs/${r.id}`)).item_counts).toMatchObject({
    destination_ready: 1,
    destination_pending_adoption: 0,
  });
  expect(expectOk(await key.get(`/v1/payroll_runs/${r.id}/items/${cy.id}`))).toMatchObject({
    destination_status: 'ready',
    destination: { type: 'wallet', chain: 'tempo' },
  });
  expect(expectOk(await session(token))).toMatchObject({
    destination: { type: 'wallet' },
    pending_destination: null,
    destination_pending_adoption: false,
    can_submit: false,
  });
  expectError(
    await key.post(`/v1/payroll_recipients/${cy.recipient.id}/adopt_pending_destination`, { expected_submitted_at: a.updated_at }),
    409,
    'conflict',
    'no_pending_destination',
  );
  expect(await eventTypes(cy.id)).toEqual(['payroll_item.destination_updated', 'payroll_item.destination_updated']);
});

test('adoption over several runs: updated and skipped items; reissue_link; a second adoption replaces (destination_changed)', async () => {
  const who = email('dee');
  const a = await run([[who, '10000']]);
  const b = await run([[who, '20000']]);
  const c = await run([[who, '30000']]);
  expectOk(await key.post(`/v1/payroll_runs/${b.run.id}/cancel`, {}));
  await db().query(`UPDATE payroll_run_items SET status = 'queued' WHERE id = $1`, [c.items[0].id]);
  const rid = a.items[0].recipient.id;
  const token = await link(a.run.id, a.items[0].id);
  expectOk(await submit(token, ach('000111122223')), 201);
  // Only the open run's pending item awaits adoption.
  expect(expectOk(await key.get(`/v1/payroll_runs/${b.run.id}/items/${b.items[0].id}`)).destination_status).toBe('missing');
  expect(expectOk(await key.get(`/v1/payroll_runs/${c.run.id}/items/${c.items[0].id}`)).destination_status).toBe('missing');
  const first = expectOk(await adopt(rid));
  expect(first.updated_run_items).toEqual([a.items[0].id]);
  expect(first.skipped_run_items).toEqual(
    expect.arrayContaining([
      { id: b.items[0].id, run_id: b.run.id, reason: 'run_not_open' },
      { id: c.items[0].id, run_id: c.run.id, reason: 'item_in_payment' },
    ]),
  );
  expect(first.skipped_run_items).toHaveLength(2);
  expect(expectOk(await key.get(`/v1/payroll_runs/${c.run.id}/items/${c.items[0].id}`)).destination).toBeNull();

  // A new run copies the adopted destination.
  const e = await run([[who, '40000']]);
  expect(expectOk(await key.get(`/v1/payroll_runs/${e.run.id}`)).item_counts).toMatchObject({ destination_ready: 1 });

  // A new link: the old token is gone, the new one may submit again.
  const fresh = await link(a.run.id, a.items[0].id);
  expectError(await session(token), 404, 'not_found', 'not_found');
  expectError(await submit(token, ach()), 404, 'not_found', 'not_found');
  expect(expectOk(await session(fresh))).toMatchObject({ can_submit: true, destination: { bank: { account_number_last4: '2223' } } });
  expectOk(await submit(fresh, ach('000444455556')), 201);
  expect(expectOk(await key.get(`/v1/payroll_runs/${a.run.id}/items/${a.items[0].id}`))).toMatchObject({
    destination_status: 'ready',
    destination: { bank: { account_number_last4: '2223' } },
  });
  const second = expectOk(await adopt(rid));
  expect([...second.updated_run_items].sort()).toEqual([a.items[0].id, e.items[0].id].sort());
  expect(second.destination.bank.account_number_last4).toBe('5556');
  expect(expectOk(await key.get(`/v1/payroll_runs/${e.run.id}/items/${e.items[0].id}`)).destination.bank.account_number_last4).toBe('5556');
  expect(await eventTypes(a.items[0].id)).toEqual([
    'payroll_item.destination_updated',
    'payroll_item.destination_updated',
    'payroll_item.destination_updated',
    'payroll_item.destination_changed',
  ]);
  expect(await eventTypes(e.items[0].id)).toEqual(['payroll_item.destination_changed']);

  // Links of a cancelled run are not reissued; a session of a cancelled run cannot submit.
  expectError(
    await key.post(`/v1/payroll_runs/${b.run.id}/items/${b.items[0].id}/reissue_link`, {}),
    409,
    'conflict',
    'payroll_run_state_changed',
  );
  const cToken = await link(c.run.id, c.items[0].id);
  expect(expectOk(await session(cToken))).toMatchObject({
    can_submit: false,
    submit_closed_reason: 'item_in_payment',
    item_status: 'queued',
  });
  expectError(await submit(cToken, ach()), 409, 'conflict', 'recipient_session_closed');
});

test("destination_rail_keyless: a USD bank account cannot pay the recipient's open EUR item; rails must suit the run currency", async () => {
  const who = email('eve');
  const usd = await run([[who, '10000']]);
  const eur = await run([[who, '10000']], 'EUR');
  const eurToken = await link(eur.run.id, eur.items[0].id);
  const refused = await submit(eurToken, { ...ach(), rail: 'ach' });
  expectError(refused, 400, 'invalid_request', 'parameter_invalid', 'rail');
  expect(refused.body.error.details.allowed_rails).toEqual(['sepa']);
  expectOk(await submit(await link(usd.run.id, usd.items[0].id), ach()), 201);
  const k = await adopt(usd.items[0].recipient.id);
  expectError(k, 422, 'invalid_request', 'destination_rail_keyless');
  expect(k.body.error.details).toMatchObject({
    rail: 'ach',
    items: [{ id: eur.items[0].id, run_id: eur.run.id, currency: 'EUR', reason: 'rail_currency_mismatch' }],
  });
  // Nothing changed; once the EUR run is cancelled the adoption goes through and reports it skipped.
  expect(expectOk(await key.get(`/v1/payroll_recipients/${usd.items[0].recipient.id}`)).pending_destination).not.toBeNull();
  expectOk(await key.post(`/v1/payroll_runs/${eur.run.id}/cancel`, {}));
  const ok = expectOk(await adopt(usd.items[0].recipient.id));
  expect(ok).toMatchObject({ updated_run_items: [usd.items[0].id], skipped_run_items: [{ id: eur.items[0].id, reason: 'run_not_open' }] });
});

test('every rail of its currency: SEPA, Faster Payments, Pix, SPEI', async () => {
  const cases: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
    ['EUR', { rail: 'sepa', iban: 'DE89 3704 0044 0532 0130 00' }, { iban_country: 'DE', iban_last4: '3000' }],
    [
      'GBP',
      { rail: 'faster_payments', account_number: '12345678', sort_code: '12-34-56' },
      { account_number_last4: '5678', sort_code: '123456' },
    ],
    ['BRL', { rail: 'pix', pix_key: 'ana.pix@example.com' }, { pix_key_type: 'email', pix_key_last4: '.com' }],
    ['MXN', { rail: 'spei', clabe: '032180000118359719' }, { clabe_last4: '9719' }],
  ];
  for (const [currency, details, masked] of cases) {
    const r = await run([[email(currency.toLowerCase()), '10000']], currency);
    const s = expectOk(
      await submit(await link(r.run.id, r.items[0].id), {
        type: 'bank_account',
        account_owner_type: 'individual',
        account_holder_name: 'Ana Diaz',
        ...details,
      }),
      201,
    );
    expect(s.pending_destination.bank).toMatchObject({ currency, ...masked });
    expect(expectOk(await adopt(r.items[0].recipient.id)).updated_run_items).toEqual([r.items[0].id]);
  }
});

test('bad input names the field; unknown tokens and other accounts are 404; reissue replays carry no token', async () => {
  const {
    run: r,
    items: [fay],
  } = await run([[email('fay'), '10000']]);
  const token = await link(r.id, fay.id);
  expectError(await submit(token, {}), 400, 'invalid_request', 'parameter_missing', 'type');
  expectError(await submit(token, { type: 'cash' }), 400, 'invalid_request', 'parameter_invalid', 'type');
  expectError(await submit(token, { ...ach(), nickname: 'x' }), 400, 'invalid_request', 'parameter_unknown', 'nickname');
  expectError(
    await submit(token, {
      type: 'bank_account',
      account_owner_type: 'individual',
      rail: 'ach',
      account_number: '000123456789',
      routing_number: '021000021',
    }),
    400,
    'invalid_request',
    'parameter_missing',
    'account_holder_name',
  );
  expectError(
    await submit(token, ach('000123456789', { routing_number: '021000022' })),
    400,
    'invalid_request',
    'parameter_invalid',
    'routing_number',
  );
  expectError(
    await submit(token, ach('000123456789', { iban: 'DE89370400440532013000' })),
    400,
    'invalid_request',
    'parameter_invalid',
    'iban',
  );
  expectError(await submit(token, ach('000123456789', { address: WALLET })), 400, 'invalid_request', 'parameter_invalid', 'address');
  expect(expectOk(await session(token)).can_submit).toBe(true); // refusals used nothing up
  expectError(
    await key.post(`/v1/payroll_recipients/${fay.recipient.id}/adopt_pending_destination`, {}),
    400,
    'invalid_request',
    'parameter_missing',
    'expected_submitted_at',
  );
  expectError(
    await key.post(`/v1/payroll_recipients/${fay.recipient.id}/adopt_pending_destination`, { expected_submitted_at: 'yesterday' }),
    400,
    'invalid_request',
    'parameter_invalid',
    'expected_submitted_at',
  );
  expectError(
    await key.post(`/v1/payroll_recipients/${fay.recipient.id}/adopt_pending_destination`, {
      expected_submitted_at: new Date().toISOString(),
    }),
    409,
    'conflict',
    'no_pending_destination',
  );

  for (const t of ['prk_doesnotexist', 'plk_notours', 'garbage']) expectError(await session(t), 404, 'not_found', 'not_found');
  expectOk(await submit(token, ach()), 201);
  expectError(
    await other.post(`/v1/payroll_recipients/${fay.recipient.id}/adopt_pending_destination`, {
      expected_submitted_at: new Date().toISOString(),
    }),
    404,
    'not_found',
  );
  expectError(await other.post(`/v1/payroll_runs/${r.id}/items/${fay.id}/reissue_link`, {}), 404, 'not_found');
  expectError(await key.post(`/v1/payroll_runs/${r.id}/items/pri_doesnotexist/reissue_link`, {}), 404, 'not_found', 'not_found', 'item_id');
  // A key cannot reach a token route as a credential, and a token is no credential elsewhere.
  expectError(await call('GET', '/v1/payroll_runs', undefined, { bearer: token }), 401, 'authentication_error');

  const k = idem();
  const once = expectOk(await key.post(`/v1/payroll_runs/${r.id}/items/${fay.id}/reissue_link`, {}, { idem: k }));
  const replay = await key.post(`/v1/payroll_runs/${r.id}/items/${fay.id}/reissue_link`, {}, { idem: k });
  expect(replay.status).toBe(200);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.body).toMatchObject({ id: fay.id, recipient_session: null });
  expect(expectOk(await session(once.recipient_session.token)).can_submit).toBe(true);
});
