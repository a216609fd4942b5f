/**
 * Payment links over HTTP against the running product (spec 2.3, 3, 4.1, 6, 7, 8): create
 * defaults (derived titles, CP-<n> per merchant, short code, draft nulls, reminder defaults),
 * every create / update / activate error with its exact status, type, code and param,
 * activation fields, cancel (closing live payments), send_invoice, reminder schedule routes,
 * per-link events, receipt, list filters + summary + pagination rules, cross-account 404,
 * test-key 503, scopes and idempotent replay.
 */
import { insertApiKey } from '../../activities/accounts/commands';
import type { DevCredentials } from '../../activities/accounts/commands';
import { closeDb, db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { client, connectDb, eventually, expectError, idem, newAccount } from '../helpers/api';

const SHORT_CODE = /^[0-9bcdfghjkmnpqrstvwxyz]{7}$/;
const usd = (amount: string) => ({ amount, currency: 'USD', decimals: 2 });
const eur = (amount: string) => ({ amount, currency: 'EUR', decimals: 2 });

let a: DevCredentials;
let b: DevCredentials;
let api: ReturnType<typeof client>;

/** Inserts a live address-book entry (the dashboard-only address book is not under test here). */
async function destination(accountId: string): Promise<string> {
  const id = newId('adr_');
  await db().query(
    `INSERT INTO address_book_entries(id, account_id, livemode, kind, label, chain, address) VALUES ($1,$2,true,'crypto','Treasury','base',$3)`,
    [id, accountId, `0x${'ab'.repeat(20)}`],
  );
  return id;
}

/** Sets a cohort flag for an account (call before the account's first request: the product caches flags for 2 s). */
async function setFlag(accountId: string, name: string, enabled: boolean): Promise<void> {
  await db().query(
    `INSERT INTO account_flags(account_id, name, enabled) VALUES ($1,$2,$3) ON CONFLICT (account_id, name) DO UPDATE SET enabled = EXCLUDED.enabled`,
    [accountId, name, enabled],
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function createLink(k: ReturnType<typeof client>, body: Record<string, unknown>) {
  const res = await k.post('/v1/payment_links', body);
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function activeCryptoLink(k: ReturnType<typeof client>, extra: Record<string, unknown> = {}) {
  const l = await createLink(k, { amount: usd('10000'), title: 'Crypto', accepted_rail_kinds: ['crypto'], ...extra });
  const act = await k.post(`/v1/payment_links/${l.id}/activate`, { attestation_accepted: true });
  if (act.status !== 200) throw new Error(`activate failed: ${act.status} ${JSON.stringify(act.body)}`);
  return act.body;
}

async function insertPayment(
  link: { id: string },
  accountId: string,
  status: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const id = newId('pay_');
  const cols: Record<string, unknown> = {
    id,
    account_id: accountId,
    livemode: true,
    payment_link_id: link.id,
    status,
    payment_rail: 'crypto_native',
    currency: 'USDC',
    decimals: 6,
    invoice_minor: '100000000',
    fee_minor: '1000000',
    amount_expected_minor: '101000000',
    amount_received_minor: '0',
    expires_at: new Date(Date.now() + 86400000),
    ...extra,
  };
  const keys = Object.keys(cols);
  await db().query(
    `INSERT INTO payments(${keys.join(',')}) VALUES (${keys.map((_, i) => `$${i + 1}`).join(',')})`,
    keys.map((k) => cols[k]),
  );
  return id;
}

beforeAll(async () => {
  await connectDb();
  a = await newAccount();
  b = await newAccount();
  api = client(a.live_key);
});

afterAll(async () => {
  await closeDb();
});

describe('create', () => {
  test('a draft with every default; reference ids CP-1, CP-2 per merchant', async () => {
    const acct = await newAccount();
    const k = client(acct.live_key);
    const first = await k.post('/v1/payment_links', { amount: usd('12345'), title: 'Logo design' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      object: 'payment_link',
      livemode: true,
      status: 'draft',
      title: 'Logo design',
      memo: null,
      invoice_number: null,
      reference_id: 'CP-1',
      amount: usd('12345'),
      client_id: null,
      direction: null,
      expected_payer_type: null,
      allowed_rails: null,
      payable_rails: [],
      accepted_rail_kinds: null,
      expires_at: null,
      payer_email: null,
      reminder_schedule: { status: 'off', offsets_days: [3, 7, 14], sent: [], next_reminder_at: null },
      settlement_kind: null,
      settlement_asset: null,
      settlement_destination: null,
      items: [],
      url: null,
      short_url: null,
      viewed_at: null,
      paid_at: null,
      settled_at: null,
      latest_attempt_status: null,
      partial_payment: null,
    });
    expect(first.body.id).toMatch(/^pl_[A-Za-z0-9]+$/);
    expect(first.body.short_code).toMatch(SHORT_CODE);
    const second = await k.post('/v1/payment_links', { amount: usd('500'), title: 'Second' });
    expect(second.body.reference_id).toBe('CP-2');
    expect(second.body.short_code).not.toBe(first.body.short_code);
    const otherMerchant = await client(b.live_key).post('/v1/payment_links', { amount: usd('500'), title: 'Other merchant' });
    expect(otherMerchant.body.reference_id).toBe('CP-1');
  });

  test('title derivation: explicit, invoice number, first item (+N more), product name, truncation, none -> 400', async () => {
    expect((await createLink(api, { amount: usd('100'), title: '  Trimmed  ' })).title).toBe('Trimmed');
    expect((await createLink(api, { amount: usd('100'), invoice_number: 'INV-7' })).title).toBe('Invoice INV-7');
    expect((await createLink(api, { amount: usd('100'), title: '   ', invoice_number: 'INV-8' })).title).toBe('Invoice INV-8');
    const items = await createLink(api, {
      amount: usd('100'),
      items: [{ name: 'Design work' }, { name: 'Hosting', quantity: 2 }, { name: 'Support' }],
    });
    expect(items.title).toBe('Design work +2 more');
    expect(items.items).toEqual([
      { name: 'Design work', product_id: null, quantity: 1, unit_amount: null },
      { name: 'Hosting', product_id: null, quantity: 2, unit_amount: null },
      { name: 'Support', product_id: null, quantity: 1, unit_amount: null },
    ]);
    const product = (await api.post('/v1/products', { name: 'Consulting day', unit_price: usd('80000') })).body;
    const fromProduct = await createLink(api, { amount: usd('80000'), items: [{ product_id: product.id }] });
    expect(fromProduct.title).toBe('Consulting day');
    expect(fromProduct.items).toEqual([{ name: 'Consulting day', product_id: product.id, quantity: 1, unit_amount: usd('80000') }]);
    const long = await createLink(api, { amount: usd('100'), invoice_number: 'X'.repeat(100), items: [] });
    expect(long.title).toBe(`Invoice ${'X'.repeat(100)}`);
    const longItem = await createLink(api, { amount: usd('100'), items: [{ name: 'Y'.repeat(199) }, { name: 'z' }] });
    expect(Array.from(longItem.title as string)).toHaveLength(200);
    expect((longItem.title as string).endsWith('\u2026')).toBe(true);
    expectError(await api.post('/v1/payment_links', { amount: usd('100') }), 400, 'invalid_request', 'parameter_missing', 'title');
    expectError(
      await api.post('/v1/payment_links', { amount: usd('100'), title: ' ', items: [] }),
      400,
      'invalid_request',
      'parameter_missing',
      'title',
    );
  });

  test('reminders default on with payer_email (not crypto-only), off otherwise', async () => {
    const withEmail = await createLink(api, { amount: usd('100'), title: 'R', payer_email: 'payer@example.com' });
    expect(withEmail.reminder_schedule).toEqual({ status: 'on', offsets_days: [3, 7, 14], sent: [], next_reminder_at: null });
    const crypto = await createLink(api, {
      amount: usd('100'),
      title: 'R',
      payer_email: 'payer@example.com',
      accepted_rail_kinds: ['crypto'],
    });
    expect(crypto.reminder_schedule.status).toBe('off');
    expect(crypto.accepted_rail_kinds).toEqual(['crypto']);
    expect(crypto.settlement_kind).toBeNull();
  });

  test('accepted_rail_kinds: anything but [crypto] is 409 capability_unavailable; [crypto] while the flag is closed too', async () => {
    for (const kinds of [['fiat'], ['crypto', 'fiat'], ['bank']]) {
      expectError(
        await api.post('/v1/payment_links', { amount: usd('100'), title: 'x', accepted_rail_kinds: kinds }),
        409,
        'capability_unavailable',
        'capability_unavailable',
      );
    }
    const closed = await newAccount();
    await setFlag(closed.account_id, 'payment_links.crypto_only', false);
    expectError(
      await client(closed.live_key).post('/v1/payment_links', { amount: usd('100'), title: 'x', accepted_rail_kinds: ['crypto'] }),
      409,
      'capability_unavailable',
      'capability_unavailable',
    );
    expect(
      (await client(closed.live_key).post('/v1/payment_links', { amount: usd('100'), title: 'x', accepted_rail_kinds: [] })).status,
    ).toBe(201);
  });

  test('allowed_rails errors: invalid for currency (with details), invalid for settlement, not a rail', async () => {
    const bad = await api.post('/v1/payment_links', { amount: usd('100'), title: 'x', allowed_rails: ['crypto_native', 'sepa'] });
    expectError(bad, 400, 'invalid_request', 'allowed_rails_invalid_for_currency', 'allowed_rails');
    expect(bad.body.error.details).toEqual({
      offerable_rails: ['crypto_native', 'crypto_xchain', 'ach', 'wire'],
      currency: 'USD',
      allowed_rails: ['crypto_native', 'sepa'],
    });
    const eurBad = await api.post('/v1/payment_links', { amount: eur('100'), title: 'x', allowed_rails: ['ach'] });
    expectError(eurBad, 400, 'invalid_request', 'allowed_rails_invalid_for_currency', 'allowed_rails');
    expect(eurBad.body.error.details).toEqual({ offerable_rails: ['sepa'], currency: 'EUR', allowed_rails: ['ach'] });
    expectError(
      await api.post('/v1/payment_links', {
        amount: usd('100'),
        title: 'x',
        accepted_rail_kinds: ['crypto'],
        allowed_rails: ['crypto_native', 'ach'],
      }),
      400,
      'invalid_request',
      'allowed_rails_invalid_for_settlement',
      'allowed_rails',
    );
    expectError(
      await api.post('/v1/payment_links', { amount: usd('100'), title: 'x', allowed_rails: ['bitcoin'] }),
      400,
      'invalid_request',
      undefined,
      'allowed_rails',
    );
    const ok = await createLink(api, { amount: usd('100'), title: 'x', allowed_rails: ['wire', 'crypto_native', 'wire'] });
    expect(ok.allowed_rails).toEqual(['crypto_native', 'wire']);
  });

  test('settlement: destination plus crypto-only is 400; an unowned destination is 404; non-USD crypto-only is 422 while not enabled', async () => {
    const mine = await destination(a.account_id);
    const theirs = await destination(b.account_id);
    expectError(
      await api.post('/v1/payment_links', {
        amount: usd('100'),
        title: 'x',
        accepted_rail_kinds: ['crypto'],
        settlement_destination: { address_book_id: mine },
      }),
      400,
      'invalid_request',
      'settlement_conflicts_with_destination',
      'settlement_destination',
    );
    expectError(
      await api.post('/v1/payment_links', { amount: usd('100'), title: 'x', settlement_destination: { address_book_id: theirs } }),
      404,
      'not_found',
      'not_found',
      'settlement_destination.address_book_id',
    );
    const withDest = await createLink(api, { amount: usd('100'), title: 'x', settlement_destination: { address_book_id: mine } });
    expect(withDest.settlement_destination).toEqual({ address_book_id: mine });
    expectError(
      await api.post('/v1/payment_links', { amount: eur('100'), title: 'x', accepted_rail_kinds: ['crypto'] }),
      422,
      'invalid_request',
      'native_via_provider_not_enabled',
      'amount',
    );
    const open = await newAccount();
    await setFlag(open.account_id, 'payment_links.native_via_provider', true);
    expect(
      (await client(open.live_key).post('/v1/payment_links', { amount: eur('100'), title: 'x', accepted_rail_kinds: ['crypto'] })).status,
    ).toBe(201);
  });

  test('body validation: amount, currency, unknown keys, client and product ownership, expires_at', async () => {
    expectError(await api.post('/v1/payment_links', { title: 'x' }), 400, 'invalid_request', 'parameter_missing', 'amount');
    expectError(await api.post('/v1/payment_links', { amount: usd('0'), title: 'x' }), 400, 'invalid_request', undefined, 'amount.amount');
    expectError(
      await api.post('/v1/payment_links', { amount: { amount: '100', currency: 'USD', decimals: 6 }, title: 'x' }),
      400,
      'invalid_request',
      'amount_invalid',
      'amount',
    );
    expectError(
      await api.post('/v1/payment_links', { amount: { amount: '100', currency: 'ZZZ', decimals: 2 }, title: 'x' }),
      400,
      'invalid_request',
      'currency_invalid',
      'amount',
    );
    expectError(
      await api.post('/v1/payment_links', { amount: usd('100'), title: 'x', reference_id: 'CP-9' }),
      400,
      'invalid_request',
      'parameter_unknown',
      'reference_id',
    );
    expectError(
      await api.post('/v1/payment_links', { amount: usd('100'), title: 'x', payer_email: 'nope' }),
      400,
      'invalid_request',
      undefined,
      'payer_email',
    );
    const otherClient = (await client(b.live_key).post('/v1/clients', { display_name: 'Theirs' })).body;
    expectError(
      await api.post('/v1/payment_links', { amount: usd('100'), title: 'x', client_id: otherClient.id }),
      404,
      'not_found',
      'not_found',
      'client_id',
    );
    const otherProduct = (await client(b.live_key).post('/v1/products', { name: 'Theirs', currency: 'USD' })).body;
    expectError(
      await api.post('/v1/payment_links', { amount: usd('100'), items: [{ product_id: otherProduct.id }] }),
      404,
      'not_found',
      'not_found',
      'items.0.product_id',
    );
    expectError(
      await api.post('/v1/payment_links', { amount: usd('100'), title: 'x', expires_at: new Date(Date.now() - 1000).toISOString() }),
      400,
      'invalid_request',
      undefined,
      'expires_at',
    );
    expectError(
      await api.post('/v1/payment_links', { amount: usd('100'), title: 'x', expected_payer_type: 'card' }),
      400,
      'invalid_request',
      undefined,
      'expected_payer_type',
    );
    const cl = (await api.post('/v1/clients', { display_name: 'Mine' })).body;
    const withClient = await createLink(api, {
      amount: usd('100'),
      title: 'x',
      client_id: cl.id,
      memo: 'Thanks',
      expected_payer_type: 'crypto',
    });
    expect(withClient).toMatchObject({ client_id: cl.id, memo: 'Thanks', expected_payer_type: 'crypto' });
  });

  test('an idempotent replay of a create returns the same link; a different body under the key is 409', async () => {
    const key = idem();
    const body = { amount: usd('4200'), title: 'Replay me' };
    const first = await api.post('/v1/payment_links', body, { idem: key });
    const again = await api.post('/v1/payment_links', body, { idem: key });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.reference_id).toBe(first.body.reference_id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expectError(await api.post('/v1/payment_links', { ...body, title: 'Other' }, { idem: key }), 409, 'idempotency_error');
  });
});

describe('read, auth and scopes', () => {
  test('GET returns the link; cross-account ids are 404 on every route; test key is 503', async () => {
    const l = await createLink(api, { amount: usd('100'), title: 'Mine' });
    const got = await api.get(`/v1/payment_links/${l.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(l);
    const other = client(b.live_key);
    expectError(await other.get(`/v1/payment_links/${l.id}`), 404, 'not_found', 'not_found');
    expectError(await other.patch(`/v1/payment_links/${l.id}`, { title: 'x' }), 404, 'not_found');
    expectError(await other.post(`/v1/payment_links/${l.id}/activate`, { attestation_accepted: true }), 404, 'not_found');
    expectError(await other.post(`/v1/payment_links/${l.id}/cancel`), 404, 'not_found');
    expectError(await other.post(`/v1/payment_links/${l.id}/send_invoice`), 404, 'not_found');
    expectError(await other.get(`/v1/payment_links/${l.id}/reminder_schedule`), 404, 'not_found');
    expectError(await other.patch(`/v1/payment_links/${l.id}/reminder_schedule`, { offsets_days: [1] }), 404, 'not_found');
    expectError(await other.post(`/v1/payment_links/${l.id}/reminder_schedule/disable`), 404, 'not_found');
    expectError(await other.get(`/v1/payment_links/${l.id}/events`), 404, 'not_found');
    expectError(await other.get(`/v1/payment_links/${l.id}/receipt`), 404, 'not_found');
    expectError(await api.get('/v1/payment_links/pl_doesnotexist'), 404, 'not_found', 'not_found');
    const test = client(a.test_key);
    expectError(await test.get('/v1/payment_links'), 503, 'temporarily_unavailable');
    expectError(await test.post('/v1/payment_links', { amount: usd('100'), title: 'x' }), 503, 'temporarily_unavailable');
    expectError(await test.get(`/v1/payment_links/${l.id}`), 503, 'temporarily_unavailable');
    expectError(await test.post(`/v1/payment_links/${l.id}/activate`, { attestation_accepted: true }), 503, 'temporarily_unavailable');
    // The per-object event list is reachable in test mode; the live link is not visible there.
    expectError(await test.get(`/v1/payment_links/${l.id}/events`), 404, 'not_found');
  });

  test('scopes: a read-only key reads but cannot write', async () => {
    const { secret } = await transaction((m) =>
      insertApiKey(m, { accountId: a.account_id, livemode: true, scopes: ['payment_links.read'] }),
    );
    const ro = client(secret);
    expect((await ro.get('/v1/payment_links')).status).toBe(200);
    expectError(await ro.post('/v1/payment_links', { amount: usd('100'), title: 'x' }), 403, 'permission_error');
    const { secret: none } = await transaction((m) =>
      insertApiKey(m, { accountId: a.account_id, livemode: true, scopes: ['account.read'] }),
    );
    expectError(await client(none).get('/v1/payment_links'), 403, 'permission_error');
  });
});

describe('update', () => {
  test('edits fields; null clears allowed_rails; a destination retires a crypto-only intent', async () => {
    const l = await createLink(api, {
      amount: usd('100'),
      title: 'Old',
      allowed_rails: ['crypto_native'],
      accepted_rail_kinds: ['crypto'],
      memo: 'm',
    });
    const up = await api.patch(`/v1/payment_links/${l.id}`, {
      title: 'New',
      memo: null,
      payer_email: 'p@example.com',
      allowed_rails: null,
      invoice_number: 'A-1',
    });
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({
      title: 'New',
      memo: null,
      payer_email: 'p@example.com',
      allowed_rails: null,
      invoice_number: 'A-1',
      accepted_rail_kinds: ['crypto'],
    });
    const dest = await destination(a.account_id);
    const retired = await api.patch(`/v1/payment_links/${l.id}`, { settlement_destination: { address_book_id: dest } });
    expect(retired.body).toMatchObject({ accepted_rail_kinds: null, settlement_destination: { address_book_id: dest } });
    expectError(
      await api.patch(`/v1/payment_links/${l.id}`, { accepted_rail_kinds: ['crypto'] }),
      400,
      'invalid_request',
      'settlement_conflicts_with_destination',
      'settlement_destination',
    );
    const back = await api.patch(`/v1/payment_links/${l.id}`, { accepted_rail_kinds: ['crypto'], settlement_destination: null });
    expect(back.body).toMatchObject({ accepted_rail_kinds: ['crypto'], settlement_destination: null });
    expectError(
      await api.patch(`/v1/payment_links/${l.id}`, { allowed_rails: ['ach'] }),
      400,
      'invalid_request',
      'allowed_rails_invalid_for_settlement',
      'allowed_rails',
    );
    expectError(
      await api.patch(`/v1/payment_links/${l.id}`, { allowed_rails: ['sepa'] }),
      400,
      'invalid_request',
      'allowed_rails_invalid_for_currency',
      'allowed_rails',
    );
    expectError(await api.patch(`/v1/payment_links/${l.id}`, { title: '' }), 400, 'invalid_request', undefined, 'title');
    expectError(
      await api.patch(`/v1/payment_links/${l.id}`, { accepted_rail_kinds: ['fiat'] }),
      409,
      'capability_unavailable',
      'capability_unavailable',
    );
    expectError(
      await api.patch(`/v1/payment_links/${l.id}`, { reference_id: 'x' }),
      400,
      'invalid_request',
      'parameter_unknown',
      'reference_id',
    );
  });

  test('editable while draft, active or viewed; 409 conflict once cancelled; amount is frozen after activation', async () => {
    const active = await activeCryptoLink(api);
    const up = await api.patch(`/v1/payment_links/${active.id}`, { title: 'Still editable', payer_email: 'x@example.com' });
    expect(up.status).toBe(200);
    expect(up.body.title).toBe('Still editable');
    expectError(
      await api.patch(`/v1/payment_links/${active.id}`, { amount: usd('1') }),
      409,
      'conflict',
      'payment_link_field_locked',
      'amount',
    );
    await db().query(`UPDATE payment_links SET status = 'viewed' WHERE id = $1`, [active.id]);
    expect((await api.patch(`/v1/payment_links/${active.id}`, { memo: 'viewed ok' })).status).toBe(200);
    expect((await api.post(`/v1/payment_links/${active.id}/cancel`)).status).toBe(200);
    expectError(await api.patch(`/v1/payment_links/${active.id}`, { title: 'too late' }), 409, 'conflict', 'payment_link_not_editable');
  });
});

describe('activate', () => {
  test('attestation_accepted must be true', async () => {
    const l = await createLink(api, { amount: usd('100'), title: 'x', accepted_rail_kinds: ['crypto'] });
    expectError(
      await api.post(`/v1/payment_links/${l.id}/activate`, {}),
      400,
      'invalid_request',
      'attestation_required',
      'attestation_accepted',
    );
    expectError(
      await api.post(`/v1/payment_links/${l.id}/activate`, { attestation_accepted: false }),
      400,
      'invalid_request',
      'attestation_required',
      'attestation_accepted',
    );
    expectError(
      await api.post(`/v1/payment_links/${l.id}/activate`, { attestation_accepted: 'yes' }),
      400,
      'invalid_request',
      undefined,
      'attestation_accepted',
    );
  });

  test('400 settlement_destination_required without a destination or crypto-only', async () => {
    const l = await createLink(api, { amount: usd('100'), title: 'x' });
    expectError(
      await api.post(`/v1/payment_links/${l.id}/activate`, { attestation_accepted: true }),
      400,
      'invalid_request',
      'settlement_destination_required',
      'settlement_destination',
    );
  });

  test('409 conflict allowed_rails_invalid_for_currency after the currency changed; allowed_rails null clears it', async () => {
    const dest = await destination(a.account_id);
    const l = await createLink(api, {
      amount: usd('100'),
      title: 'x',
      allowed_rails: ['ach'],
      settlement_destination: { address_book_id: dest },
    });
    const patched = await api.patch(`/v1/payment_links/${l.id}`, { amount: eur('100') });
    expect(patched.status).toBe(200);
    const res = await api.post(`/v1/payment_links/${l.id}/activate`, { attestation_accepted: true });
    expectError(res, 409, 'conflict', 'allowed_rails_invalid_for_currency');
    expect(res.body.error.details).toEqual({ offerable_rails: ['sepa'], currency: 'EUR', allowed_rails: ['ach'] });
    await api.patch(`/v1/payment_links/${l.id}`, { allowed_rails: null });
    const ok = await api.post(`/v1/payment_links/${l.id}/activate`, { attestation_accepted: true });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'active', settlement_kind: 'fiat_provider', settlement_asset: null, payable_rails: [] });
  });

  test('422 crypto_only_currency_not_usd for a non-USD crypto-only link', async () => {
    const acct = await newAccount();
    await setFlag(acct.account_id, 'payment_links.native_via_provider', true);
    const k = client(acct.live_key);
    const l = await createLink(k, { amount: eur('100'), title: 'x', accepted_rail_kinds: ['crypto'] });
    expectError(
      await k.post(`/v1/payment_links/${l.id}/activate`, { attestation_accepted: true }),
      422,
      'invalid_request',
      'crypto_only_currency_not_usd',
      'amount',
    );
  });

  test('409 wallet_not_found without a service wallet on the network; 403 for a restricted account', async () => {
    const acct = await newAccount();
    await db().query('DELETE FROM wallets WHERE account_id = $1', [acct.account_id]);
    const k = client(acct.live_key);
    const l = await createLink(k, { amount: usd('100'), title: 'x', accepted_rail_kinds: ['crypto'] });
    expectError(await k.post(`/v1/payment_links/${l.id}/activate`, { attestation_accepted: true }), 409, 'conflict', 'wallet_not_found');
    const restricted = await newAccount();
    const rk = client(restricted.live_key);
    const rl = await createLink(rk, { amount: usd('100'), title: 'x', accepted_rail_kinds: ['crypto'] });
    await db().query(`UPDATE accounts SET access_state = 'restricted' WHERE id = $1`, [restricted.account_id]);
    expectError(
      await rk.post(`/v1/payment_links/${rl.id}/activate`, { attestation_accepted: true }),
      403,
      'permission_error',
      'account_not_eligible',
    );
  });

  test('409 capability_unavailable when the crypto-only flag closed after the draft was made', async () => {
    const acct = await newAccount();
    const k = client(acct.live_key);
    const l = await createLink(k, { amount: usd('100'), title: 'x', accepted_rail_kinds: ['crypto'] });
    await setFlag(acct.account_id, 'payment_links.crypto_only', false);
    await sleep(2100); // the product caches flags for 2 s
    expectError(
      await k.post(`/v1/payment_links/${l.id}/activate`, { attestation_accepted: true }),
      409,
      'capability_unavailable',
      'capability_unavailable',
    );
  });

  test('crypto-only activation sets url, payer token, settlement kind and frozen asset; a second activation is 409', async () => {
    const l = await createLink(api, { amount: usd('2500'), title: 'Pay me', payer_email: 'payer@example.com' });
    await api.patch(`/v1/payment_links/${l.id}`, { accepted_rail_kinds: ['crypto'] });
    const res = await api.post(`/v1/payment_links/${l.id}/activate`, { attestation_accepted: true });
    expect(res.status).toBe(200);
    const host = process.env.PAYER_HOST!;
    expect(res.body).toMatchObject({
      status: 'active',
      direction: 'inbound',
      settlement_kind: 'crypto_only',
      payable_rails: ['crypto_native'],
      expected_payer_type: 'crypto',
      settlement_asset: { chain: 'tempo', asset: 'USDC', decimals: 6 },
      short_url: `${host}/p/${l.short_code}`,
      short_code: l.short_code,
      reference_id: l.reference_id,
    });
    expect(res.body.url).toMatch(new RegExp(`^${host.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}/pay/plk_[A-Za-z0-9]+$`));
    expect(res.body.settlement_asset.token_address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(typeof res.body.activated_at).toBe('string');
    expect(res.body.reminder_schedule.status).toBe('off');
    expectError(
      await api.post(`/v1/payment_links/${l.id}/activate`, { attestation_accepted: true }),
      409,
      'conflict',
      'payment_link_already_activated',
    );
    const events = await api.get(`/v1/payment_links/${l.id}/events`);
    expect(events.body.data.map((e: { type: string }) => e.type)).toEqual(['payment_link.activated', 'payment_link.created']);
    expect(events.body.data[0].data.object).toMatchObject({ id: l.id, status: 'active' });
    // The payer session resolves the short code once active.
    const session = await fetch(`${process.env.TEST_API_URL}/v1/payment_sessions/by_code/${l.short_code}`);
    expect(session.status).toBe(200);
  });

  test('activation with a destination is fiat_provider with null settlement_asset and starts the reminder clock', async () => {
    const dest = await destination(a.account_id);
    const l = await createLink(api, {
      amount: usd('100'),
      title: 'x',
      payer_email: 'p@example.com',
      settlement_destination: { address_book_id: dest },
    });
    const res = await api.post(`/v1/payment_links/${l.id}/activate`, { attestation_accepted: true });
    expect(res.body).toMatchObject({
      status: 'active',
      settlement_kind: 'fiat_provider',
      settlement_asset: null,
      payable_rails: ['crypto_native'],
      expected_payer_type: 'crypto',
    });
    const due = new Date(Date.parse(res.body.activated_at) + 3 * 86400000).toISOString();
    expect(res.body.reminder_schedule).toEqual({ status: 'on', offsets_days: [3, 7, 14], sent: [], next_reminder_at: due });
  });
});

describe('cancel', () => {
  test('from draft and active; 409 once ended; event payment_link.cancelled', async () => {
    const draft = await createLink(api, { amount: usd('100'), title: 'x' });
    const c1 = await api.post(`/v1/payment_links/${draft.id}/cancel`);
    expect(c1.status).toBe(200);
    expect(c1.body).toMatchObject({ status: 'cancelled', payable_rails: [] });
    expectError(await api.post(`/v1/payment_links/${draft.id}/cancel`), 409, 'conflict', 'payment_link_not_cancellable');
    const active = await activeCryptoLink(api);
    expect((await api.post(`/v1/payment_links/${active.id}/cancel`)).body.status).toBe('cancelled');
    const types = (await api.get(`/v1/payment_links/${active.id}/events`)).body.data.map((e: { type: string }) => e.type);
    expect(types).toEqual(['payment_link.cancelled', 'payment_link.activated', 'payment_link.created']);
    expectError(
      await api.post(`/v1/payment_links/${active.id}/activate`, { attestation_accepted: true }),
      409,
      'conflict',
      'payment_link_already_activated',
    );
  });

  test('a processing link with an underpaid payment: the payment becomes unmatched partial_before_cancel, partial_payment cleared', async () => {
    const l = await activeCryptoLink(api);
    const payId = await insertPayment(l, a.account_id, 'underpaid', { amount_received_minor: '50000000', underpaid_emitted: true });
    await db().query(`UPDATE payment_links SET status = 'processing', partial_payment = $2 WHERE id = $1`, [
      l.id,
      JSON.stringify({ payment_id: payId, received: { amount: '50000000', currency: 'USDC', decimals: 6 } }),
    ]);
    const processing = await api.get(`/v1/payment_links/${l.id}`);
    expect(processing.body.partial_payment).toEqual({ payment_id: payId, received: { amount: '50000000', currency: 'USDC', decimals: 6 } });
    const res = await api.post(`/v1/payment_links/${l.id}/cancel`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'cancelled', partial_payment: null });
    const rows = await db().query('SELECT status, unmatched_reason, amount_received_minor FROM payments WHERE id = $1', [payId]);
    expect(rows[0]).toEqual({ status: 'unmatched', unmatched_reason: 'partial_before_cancel', amount_received_minor: '50000000' });
    const types = (await api.get(`/v1/payment_links/${l.id}/events`)).body.data.map((e: { type: string }) => e.type);
    expect(types).toContain('payment_link.cancelled');
    expect(types).toContain('payment.unmatched');
  });
});

describe('send_invoice', () => {
  test('needs an active or viewed link with payer_email; emails the payer URL', async () => {
    const draft = await createLink(api, { amount: usd('100'), title: 'x', payer_email: 'p@example.com' });
    expectError(await api.post(`/v1/payment_links/${draft.id}/send_invoice`), 409, 'conflict', 'payment_link_not_open');
    const noEmail = await activeCryptoLink(api);
    expectError(await api.post(`/v1/payment_links/${noEmail.id}/send_invoice`), 409, 'conflict', 'payer_email_required');
    const l = await activeCryptoLink(api, { payer_email: 'invoice-to@example.com' });
    const res = await api.post(`/v1/payment_links/${l.id}/send_invoice`);
    expect(res.status).toBe(200);
    expect(typeof res.body.invoice_sent_at).toBe('string');
    const mails = await db().query('SELECT to_address, template, body FROM sandbox_emails WHERE related_object_id = $1', [l.id]);
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ to_address: 'invoice-to@example.com', template: 'payment_link_invoice' });
    expect(mails[0].body).toContain(l.url);
    await api.post(`/v1/payment_links/${l.id}/cancel`);
    expectError(await api.post(`/v1/payment_links/${l.id}/send_invoice`), 409, 'conflict', 'payment_link_not_open');
  });
});

describe('reminder schedule', () => {
  test('GET, PATCH (sets on, emits reminder_schedule_updated), validation, disable keeps offsets', async () => {
    const l = await createLink(api, { amount: usd('100'), title: 'x', payer_email: 'p@example.com' });
    expect((await api.get(`/v1/payment_links/${l.id}/reminder_schedule`)).body).toEqual({
      status: 'on',
      offsets_days: [3, 7, 14],
      sent: [],
      next_reminder_at: null,
    });
    const off = await api.post(`/v1/payment_links/${l.id}/reminder_schedule/disable`);
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ status: 'off', offsets_days: [3, 7, 14], sent: [], next_reminder_at: null });
    const on = await api.patch(`/v1/payment_links/${l.id}/reminder_schedule`, { offsets_days: [10, 2], sent: ['ignored'] });
    expect(on.status).toBe(200);
    expect(on.body).toEqual({ status: 'on', offsets_days: [2, 10], sent: [], next_reminder_at: null });
    expectError(
      await api.patch(`/v1/payment_links/${l.id}/reminder_schedule`, { offsets_days: [0] }),
      400,
      'invalid_request',
      'invalid_request',
      'offsets_days',
    );
    expectError(
      await api.patch(`/v1/payment_links/${l.id}/reminder_schedule`, { offsets_days: [1, 1] }),
      400,
      'invalid_request',
      'invalid_request',
      'offsets_days',
    );
    expectError(
      await api.patch(`/v1/payment_links/${l.id}/reminder_schedule`, { offsets_days: 'soon' }),
      400,
      'invalid_request',
      'invalid_request',
      'offsets_days',
    );
    expectError(
      await api.patch(`/v1/payment_links/${l.id}/reminder_schedule`, {}),
      400,
      'invalid_request',
      'parameter_missing',
      'offsets_days',
    );
    const types = (await api.get(`/v1/payment_links/${l.id}/events`)).body.data.map((e: { type: string }) => e.type);
    expect(types).toEqual(['payment_link.reminder_schedule_updated', 'payment_link.reminder_schedule_updated', 'payment_link.created']);
    expect((await api.get(`/v1/payment_links/${l.id}`)).body.reminder_schedule.offsets_days).toEqual([2, 10]);
  });

  test('crypto-only links: PATCH is 422 param reminder_schedule; disable is allowed', async () => {
    const l = await createLink(api, { amount: usd('100'), title: 'x', accepted_rail_kinds: ['crypto'] });
    expectError(
      await api.patch(`/v1/payment_links/${l.id}/reminder_schedule`, { offsets_days: [1] }),
      422,
      'invalid_request',
      undefined,
      'reminder_schedule',
    );
    const off = await api.post(`/v1/payment_links/${l.id}/reminder_schedule/disable`);
    expect(off.status).toBe(200);
    expect(off.body.status).toBe('off');
  });

  test('on an active link next_reminder_at follows the offsets from activation', async () => {
    const dest = await destination(a.account_id);
    const l = await createLink(api, {
      amount: usd('100'),
      title: 'x',
      payer_email: 'p@example.com',
      settlement_destination: { address_book_id: dest },
    });
    const act = (await api.post(`/v1/payment_links/${l.id}/activate`, { attestation_accepted: true })).body;
    const res = await api.patch(`/v1/payment_links/${l.id}/reminder_schedule`, { offsets_days: [1, 5] });
    expect(res.body.next_reminder_at).toBe(new Date(Date.parse(act.activated_at) + 86400000).toISOString());
    const off = await api.post(`/v1/payment_links/${l.id}/reminder_schedule/disable`);
    expect(off.body).toEqual({ status: 'off', offsets_days: [1, 5], sent: [], next_reminder_at: null });
  });
});

describe('receipt', () => {
  test('409 unless paid or settled; amounts from the paid payment', async () => {
    const l = await activeCryptoLink(api);
    expectError(await api.get(`/v1/payment_links/${l.id}/receipt`), 409, 'conflict', 'payment_link_not_paid');
    const paidAt = new Date();
    const payId = await insertPayment(l, a.account_id, 'settled', {
      amount_received_minor: '101000000',
      onchain_tx_hash: `0x${'1'.repeat(64)}`,
      paid_at: paidAt,
      settled_at: paidAt,
    });
    await db().query(`UPDATE payment_links SET status = 'settled', paid_at = $2, settled_at = $2 WHERE id = $1`, [l.id, paidAt]);
    const r = await api.get(`/v1/payment_links/${l.id}/receipt`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      object: 'payment_link_receipt',
      payment_link_id: l.id,
      reference_id: l.reference_id,
      payment_id: payId,
      invoice: { amount: '100000000', currency: 'USDC', decimals: 6 },
      fee: { amount: '1000000', currency: 'USDC', decimals: 6 },
      total_paid: { amount: '101000000', currency: 'USDC', decimals: 6 },
      onchain_tx_hash: `0x${'1'.repeat(64)}`,
      paid_at: paidAt.toISOString(),
      settled_at: paidAt.toISOString(),
    });
  });
});

describe('list', () => {
  test('filters (status_group, q, client_id, settlement_kind), summary over every matching row, invalid values 400', async () => {
    const acct = await newAccount();
    const k = client(acct.live_key);
    const cl = (await k.post('/v1/clients', { display_name: 'Buyer' })).body;
    const dest = await destination(acct.account_id);
    const draft = await createLink(k, { amount: usd('100'), title: 'Alpha draft', client_id: cl.id });
    const cryptoDraft = await createLink(k, { amount: usd('100'), title: 'Crypto draft', accepted_rail_kinds: ['crypto'] });
    const active = await activeCryptoLink(k, { memo: 'beta MEMO here' });
    const fiat = await createLink(k, {
      amount: usd('100'),
      title: 'Fiat',
      invoice_number: 'GAMMA-1',
      settlement_destination: { address_book_id: dest },
    });
    await k.post(`/v1/payment_links/${fiat.id}/activate`, { attestation_accepted: true });
    const processing = await activeCryptoLink(k);
    await db().query(
      `UPDATE payment_links SET status = 'processing', partial_payment = '{"payment_id":"pay_x","received":null}' WHERE id = $1`,
      [processing.id],
    );
    const paid = await activeCryptoLink(k);
    await db().query(`UPDATE payment_links SET status = 'paid' WHERE id = $1`, [paid.id]);
    const cancelled = await createLink(k, { amount: usd('100'), title: 'Cancelled one' });
    await k.post(`/v1/payment_links/${cancelled.id}/cancel`);

    const ids = async (qs: string) => (await k.get(`/v1/payment_links${qs}`)).body.data.map((x: { id: string }) => x.id);
    expect(await ids('')).toEqual([cancelled.id, paid.id, processing.id, fiat.id, active.id, cryptoDraft.id, draft.id]);
    expect(await ids('?status_group=open')).toEqual([processing.id, fiat.id, active.id, cryptoDraft.id, draft.id]);
    expect(await ids('?status_group=needs_attention')).toEqual([processing.id]);
    expect(await ids('?status_group=paid')).toEqual([paid.id]);
    expect(await ids('?status_group=ended')).toEqual([cancelled.id]);
    expect(await ids('?q=beta%20memo')).toEqual([active.id]);
    expect(await ids('?q=gamma')).toEqual([fiat.id]);
    expect(await ids('?q=ALPHA')).toEqual([draft.id]);
    expect(await ids('?q=%25')).toEqual([]);
    expect(await ids(`?client_id=${cl.id}`)).toEqual([draft.id]);
    expect(await ids('?settlement_kind=fiat_provider')).toEqual([fiat.id]);
    expect(await ids('?settlement_kind=crypto_only')).toEqual([paid.id, processing.id, active.id]);
    expectError(await k.get('/v1/payment_links?settlement_kind=wallet'), 400, 'invalid_request', undefined, 'settlement_kind');
    expectError(await k.get('/v1/payment_links?status_group=late'), 400, 'invalid_request', undefined, 'status_group');

    const withSummary = await k.get('/v1/payment_links?expand=summary&limit=1');
    expect(withSummary.body.data).toHaveLength(1);
    expect(withSummary.body.summary).toEqual({ by_status_group: { open: 5, needs_attention: 1, paid: 1, ended: 1 }, total: 7 });
    const filtered = await k.get('/v1/payment_links?expand=summary&settlement_kind=crypto_only');
    expect(filtered.body.summary).toEqual({ by_status_group: { open: 2, needs_attention: 1, paid: 1, ended: 0 }, total: 3 });
    expect((await k.get('/v1/payment_links')).body.summary).toBeUndefined();
    expect((await k.get('/v1/payment_links?expand=nonsense')).body.summary).toBeUndefined();
  });

  test('pagination: default 25, limit 0/-1/1.5/abc fall back to 25, 500 capped to 100, cursor walks newest first', async () => {
    const acct = await newAccount();
    const k = client(acct.live_key);
    const made: string[] = [];
    for (let i = 0; i < 27; i++) made.push((await createLink(k, { amount: usd('100'), title: `L${i}` })).id);
    const newestFirst = [...made].reverse();
    const def = await k.get('/v1/payment_links');
    expect(def.body.data).toHaveLength(25);
    expect(def.body.has_more).toBe(true);
    for (const l of ['0', '-1', '1.5', 'abc']) {
      const r = await k.get(`/v1/payment_links?limit=${l}`);
      expect(r.status).toBe(200);
      expect(r.body.data).toHaveLength(25);
    }
    const capped = await k.get('/v1/payment_links?limit=500');
    expect(capped.body.data).toHaveLength(27);
    expect(capped.body).toMatchObject({ has_more: false, next_cursor: null });
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const r: { body: { data: Array<{ id: string }>; next_cursor: string | null } } = await k.get(
        `/v1/payment_links?limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      walked.push(...r.body.data.map((x) => x.id));
      cursor = r.body.next_cursor;
    } while (cursor);
    expect(walked).toEqual(newestFirst);
    const one = await k.get('/v1/payment_links?limit=1');
    expect(one.body.data.map((x: { id: string }) => x.id)).toEqual([newestFirst[0]]);
    expectError(await k.get('/v1/payment_links?cursor=bogus'), 400, 'invalid_request', 'cursor_invalid', 'cursor');
  });
});

describe('events list', () => {
  test('per-link events, newest first, paginated', async () => {
    const l = await createLink(api, { amount: usd('100'), title: 'x', payer_email: 'p@example.com' });
    await api.patch(`/v1/payment_links/${l.id}/reminder_schedule`, { offsets_days: [1] });
    await api.post(`/v1/payment_links/${l.id}/cancel`);
    const all = await api.get(`/v1/payment_links/${l.id}/events`);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    expect(all.body.data.map((e: { type: string }) => e.type)).toEqual([
      'payment_link.cancelled',
      'payment_link.reminder_schedule_updated',
      'payment_link.created',
    ]);
    for (const e of all.body.data) {
      expect(e).toMatchObject({ object: 'event', livemode: true });
      expect(e.id).toMatch(/^evt_/);
      expect(e.data.object.id).toBe(l.id);
      expect(typeof e.request.id).toBe('string');
    }
    const p1 = await api.get(`/v1/payment_links/${l.id}/events?limit=2`);
    expect(p1.body.data).toHaveLength(2);
    expect(p1.body.has_more).toBe(true);
    const p2 = await api.get(`/v1/payment_links/${l.id}/events?limit=2&cursor=${encodeURIComponent(p1.body.next_cursor)}`);
    expect(p2.body.data.map((e: { type: string }) => e.type)).toEqual(['payment_link.created']);
  });

  test('the link workflow starts at activation', async () => {
    const l = await activeCryptoLink(api, { expires_at: new Date(Date.now() + 3000).toISOString() });
    // The product's worker runs the link workflow: the link expires at expires_at.
    const expired = await eventually(
      async () => {
        const r = await api.get(`/v1/payment_links/${l.id}`);
        return r.body.status === 'expired' ? r.body : null;
      },
      'link expired by its workflow',
      30000,
    );
    expect(expired.payable_rails).toEqual([]);
    const types = (await api.get(`/v1/payment_links/${l.id}/events`)).body.data.map((e: { type: string }) => e.type);
    expect(types[0]).toBe('payment_link.expired');
  });
});
