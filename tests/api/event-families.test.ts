/**
 * Every catalogued event family ships by its own operator switch (spec 6; issue 24). One account
 * gets every `events.ship.<family>` switch on for its cohort only (never a global switch) and an
 * endpoint subscribed to everything; one journey per family, driven through the API and `/sim`,
 * writes catalogued events of that family; each is then listed in `GET /v1/events?type=...`,
 * delivered to the endpoint (signed), and every delivered body validates against its type's
 * schema in the served document's `webhooks` (JSON Schema 2020-12, ajv). A second account without
 * the switches records catalogued events of its own and sees none of them listed or delivered.
 *
 * The stack runs the simulated mainnet: `payment.detected` is written by the cross-network rail's
 * watcher, which only mainnet offers (its launch flag opened for the account's cohort too). This
 * process keeps the test network, so its accounts have no service wallet on the stack's network:
 * each registers one (`POST /wallet/wallets`, `wallet.created`) before anything needs it.
 * `capability.*` and `account.access_state_changed` are never written
 * (docs/decisions/0068-every-catalogued-family-ships-by-its-switch.md).
 */
import crypto from 'node:crypto';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import {
  cataloguedTypesOf,
  eventFamily,
  SHIPPABLE_EVENT_FAMILIES,
  shipSwitchName,
  UNSHIPPED_EVENT_TYPES,
  UNWRITTEN_EVENT_TYPES,
} from '../../domain/event-types';
import { db } from '../../lib/db';
import { setSwitch } from '../../lib/switches';
import { call, client, connectDb, eventually, eventuallyReported, expectOk, newAccount } from '../helpers/api';
import { BENEFICIARY } from '../helpers/bank';
import { Receiver, verify } from '../helpers/receiver';
import { usePrivateStack } from '../helpers/stack';

usePrivateStack('event-families', { NETWORK: 'mainnet' });

type Json = Record<string, any>;
/** A catalogued event a journey wrote: its type and the id of the object it is about. */
interface Written {
  type: string;
  objectId: string;
}

const SENDER = '0x52908400098527886E0F7030069857D2E4169EE7';
const REFUND = '0x4444444444444444444444444444444444444444';
const randomEvm = () => `0x${crypto.randomBytes(20).toString('hex')}`;
const sim = (path: string, body: unknown) => call('POST', `/sim${path}`, body, { idem: null });
const usd = (amount: string) => ({ amount, currency: 'USD', decimals: 2 });

const receiver = new Receiver();
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv);

beforeAll(async () => {
  await connectDb();
  await receiver.start();
});
afterAll(async () => {
  await receiver.stop();
});

/** `schema` with every local `$ref` replaced by its target (the document has no cycles). */
function inline(schema: unknown, doc: Json, depth = 0): unknown {
  if (depth > 50) throw new Error('reference cycle');
  if (Array.isArray(schema)) return schema.map((s) => inline(s, doc, depth + 1));
  if (!schema || typeof schema !== 'object') return schema;
  const { $ref, ...rest } = schema as Json;
  if (typeof $ref === 'string' && $ref.startsWith('#/')) {
    const target = $ref
      .slice(2)
      .split('/')
      .reduce((o: Json, k) => o?.[k], doc);
    return inline({ ...target, ...rest }, doc, depth + 1);
  }
  return Object.fromEntries(Object.entries(schema as Json).map(([k, v]) => [k, inline(v, doc, depth + 1)]));
}

/** A fresh account, every catalogued family (and the cross-network rail) switched on for its cohort when `shipped`, an endpoint to the receiver, and a registered wallet. */
async function holder(shipped: boolean) {
  const acct = await newAccount();
  if (shipped) {
    // Before any request of the account: no API or worker process has its flags cached yet.
    for (const f of SHIPPABLE_EVENT_FAMILIES) await setSwitch(shipSwitchName(f), true, acct.account_id);
    await setSwitch('payment_links.crypto_xchain', true, acct.account_id);
  }
  const key = client(acct.live_key);
  const session = client(acct.session_token);
  const target = receiver.path(shipped ? 'shipped' : 'unshipped');
  const endpoint = expectOk(await key.post('/v1/webhook_endpoints', { url: target.url, description: 'every event' }), 201);
  const wallet = expectOk(
    await session.post('/v1/wallet/wallets', {
      address: randomEvm(),
      credential_id: `cred_${crypto.randomBytes(4).toString('hex')}`,
      label: 'Holder',
    }),
    201,
  );
  return { acct, key, session, target, endpoint, wallet };
}
type Holder = Awaited<ReturnType<typeof holder>>;

// ----- One journey per family; each returns the catalogued events it wrote.

async function walletJourney(h: Holder): Promise<Written[]> {
  return [{ type: 'wallet.created', objectId: h.wallet.id }];
}

/** A cross-network payment: the payer's deposit is seen on the source chain (`payment.detected`). */
async function paymentJourney(h: Holder): Promise<Written[]> {
  const l = expectOk(
    await h.key.post('/v1/payment_links', { amount: usd('2000'), title: 'Families', accepted_rail_kinds: ['crypto'] }),
    201,
  );
  const a = expectOk(await h.key.post(`/v1/payment_links/${l.id}/activate`, { attestation_accepted: true }));
  const token = String(a.url).split('/pay/')[1];
  const p = expectOk(
    await call(
      'POST',
      `/v1/payment_sessions/${token}/payments`,
      { rail: 'crypto_xchain', network: 'base', stablecoin: 'USDC', refund_address: REFUND },
      { idem: null },
    ),
    201,
  );
  const di = p.deposit_instructions;
  expectOk(
    await sim('/chain/transfers', { chain: 'base', asset: 'USDC', to_address: di.address, amount: di.amount.amount, from_address: SENDER }),
    201,
  );
  return [{ type: 'payment.detected', objectId: p.id }];
}

/** A payout funded from an external wallet: its configuration is committed, then it awaits funds. */
async function payoutJourney(h: Holder): Promise<Written[]> {
  const p = expectOk(await h.key.post('/v1/payouts', { invoice_amount: usd('100000'), corridor_id: 'usd_ach' }), 201);
  expectOk(
    await h.key.post(`/v1/payouts/${p.id}/beneficiary`, {
      account_owner_type: 'business',
      account_holder_name: 'Supplier LLC',
      account_number: '123456789',
      routing_number: '021000021',
    }),
  );
  expectOk(await h.session.post(`/v1/payouts/${p.id}/funding_instructions`, { source_chain: 'base' }));
  return [
    { type: 'payout.configuration_committed', objectId: p.id },
    { type: 'payout.awaiting_funds', objectId: p.id },
  ];
}

/** A payroll run: its recipient submits a destination (`payroll_item`), it is approved and its funding instructions requested (`payroll_run`). */
async function payrollJourney(h: Holder): Promise<Written[]> {
  const rows = [{ email: `ana.${crypto.randomBytes(4).toString('hex')}@example.com`, name: 'Ana', amount: usd('6000') }];
  const run = expectOk(await h.key.post('/v1/payroll_runs', { title: 'Families', currency: 'USD', rows }), 201);
  const item = expectOk(await h.key.get(`/v1/payroll_runs/${run.id}/items`)).data[0];
  const token = expectOk(await h.key.post(`/v1/payroll_runs/${run.id}/items/${item.id}/reissue_link`, {})).recipient_session.token;
  expectOk(
    await call(
      'POST',
      `/v1/payroll_recipient_sessions/${token}/destination`,
      {
        type: 'bank_account',
        account_owner_type: 'individual',
        account_holder_name: 'Ana Diaz',
        ...BENEFICIARY.ach,
      },
      { idem: null },
    ),
    201,
  );
  expectOk(await h.key.post(`/v1/payroll_runs/${run.id}/approve`));
  const fi = await h.key.post(`/v1/payroll_runs/${run.id}/funding_instructions`, {});
  expect([200, 201]).toContain(fi.status);
  return [
    { type: 'payroll_item.destination_updated', objectId: item.id },
    { type: 'payroll_run.funding_instructions_requested', objectId: run.id },
  ];
}

async function payrollTemplateJourney(h: Holder): Promise<Written[]> {
  const t = expectOk(
    await h.key.post('/v1/payroll_templates', {
      title: 'Monthly',
      currency: 'USD',
      rows: [{ email: 'bo@example.com', name: 'Bo', amount: usd('4000') }],
    }),
    201,
  );
  return [{ type: 'payroll_template.created', objectId: t.id }];
}

async function depositIntentJourney(h: Holder): Promise<Written[]> {
  const d = expectOk(
    await h.session.post('/v1/wallet/deposit_intents', {
      source_chain: 'base',
      amount: { amount: '10000000', currency: 'USDC', decimals: 6 },
    }),
    201,
  );
  return [{ type: 'deposit_intent.created', objectId: d.id }];
}

/** Funds the wallet, then a send intent (built) and a conversion (built). */
async function walletSpendJourneys(h: Holder): Promise<Written[]> {
  const asset = expectOk(await h.session.get('/v1/wallet/balances')).balances[0].asset as string;
  expectOk(
    await sim('/chain/transfers', { chain: h.wallet.chain, asset, to_address: h.wallet.address, amount: '50000000', from_address: SENDER }),
    201,
  );
  const amount = (a: string) => ({ amount: a, currency: asset, decimals: 6 });
  const send = expectOk(
    await h.session.post('/v1/wallet/send_intents', {
      destination_chain: h.wallet.chain,
      destination_address: SENDER,
      amount: amount('100000'),
    }),
    201,
  );
  const pair = expectOk(await h.session.get('/v1/wallet/conversion_pairs')).data.find(
    (p: { from_asset: string }) => p.from_asset === asset,
  );
  const cnv = expectOk(
    await h.session.post('/v1/wallet/conversions', { from_asset: asset, to_asset: pair.to_asset, amount: amount('2000000') }),
    201,
  );
  return [
    { type: 'send_intent.created', objectId: send.id },
    { type: 'conversion.built', objectId: cnv.id },
  ];
}

async function offrampJourney(h: Holder): Promise<Written[]> {
  const asset = expectOk(await h.session.get('/v1/wallet/balances')).balances[0].asset as string;
  const ba = expectOk(
    await h.session.post('/v1/wallet/external_accounts', {
      account_owner_type: 'individual',
      account_holder_name: 'Ana Diaz',
      ...BENEFICIARY.sepa,
    }),
    201,
  );
  const ofr = expectOk(
    await h.session.post('/v1/wallet/offramp_intents', {
      external_account_id: ba.id,
      destination_currency: 'EUR',
      destination_payment_rail: 'sepa',
      amount: { amount: '2000000', currency: asset, decimals: 6 },
    }),
    201,
  );
  return [{ type: 'offramp_intent.created', objectId: ofr.id }];
}

async function virtualAccountJourney(h: Holder): Promise<Written[]> {
  const va = expectOk(await h.session.post('/v1/wallet/virtual_accounts', { currency: 'EUR' }), 201);
  return [{ type: 'virtual_account.created', objectId: va.id }];
}

/**
 * A screening (`screening.completed`), its report (one free check: `credit.consumed`), and the
 * same address screened again past the 15-minute reuse window after the provider raised its risk
 * (`screening.risk_elevated`). The window is passed by ageing the first screening's row.
 */
async function screeningJourney(h: Holder): Promise<Written[]> {
  const address = randomEvm();
  const first = expectOk(await h.key.post('/v1/screenings', { chain: 'base', address }), 201);
  expect(first.risk_level).toBe('low');
  const report = expectOk(await h.key.post(`/v1/screenings/${first.id}/reports`), 201);
  await db().query(`UPDATE screenings SET screened_at = screened_at - interval '20 minutes' WHERE id = $1`, [first.id]);
  expectOk(await sim('/providers/screening/signals', { chain: 'base', address, risk_score: 80, flags: ['sanctions'] }), 201);
  const second = expectOk(await h.key.post('/v1/screenings', { chain: 'base', address }), 201);
  expect(second).toMatchObject({ risk_level: 'severe', cached: false });
  return [
    { type: 'screening.completed', objectId: first.id },
    { type: 'screening.risk_elevated', objectId: second.id },
    { type: 'credit.consumed', objectId: report.credit.credit_event_id },
  ];
}

async function addressBookJourney(h: Holder): Promise<Written[]> {
  const e = expectOk(
    await h.session.post('/v1/address_book', { kind: 'crypto', chain: 'base', address: randomEvm(), label: 'Treasury' }),
    201,
  );
  expectOk(await h.session.post(`/v1/address_book/${e.id}/recheck`));
  return [{ type: 'address_book.entry_rechecked', objectId: e.id }];
}

/** Every journey at once (the wallet-spending ones share the wallet's funding, so they run in one chain). */
async function allJourneys(h: Holder): Promise<Written[]> {
  const spent = walletSpendJourneys(h).then(async (w) => [...w, ...(await offrampJourney(h))]);
  return (
    await Promise.all([
      walletJourney(h),
      paymentJourney(h),
      payoutJourney(h),
      payrollJourney(h),
      payrollTemplateJourney(h),
      depositIntentJourney(h),
      spent,
      virtualAccountJourney(h),
      screeningJourney(h),
      addressBookJourney(h),
    ])
  ).flat();
}

test("with every family switched on for the account: each family's events are listed, delivered and match their documented schema; another account gets none", async () => {
  const doc = expectOk(await call('GET', '/v1/openapi.json'));
  const [a, b] = await Promise.all([holder(true), holder(false)]);
  const [written] = await Promise.all([
    allJourneys(a),
    payrollTemplateJourney(b),
    depositIntentJourney(b),
    virtualAccountJourney(b),
    screeningJourney(b),
    addressBookJourney(b),
  ]);

  // One journey per family, except the families this product never writes.
  const families = new Set(written.map((w) => eventFamily(w.type)));
  const neverWritten = new Set(
    SHIPPABLE_EVENT_FAMILIES.filter((f) => cataloguedTypesOf(f).every((t) => UNWRITTEN_EVENT_TYPES.includes(t))),
  );
  expect([...neverWritten].sort()).toEqual(['account', 'capability']);
  expect(SHIPPABLE_EVENT_FAMILIES.filter((f) => !families.has(f) && !neverWritten.has(f))).toEqual([]);
  for (const w of written) expect(UNSHIPPED_EVENT_TYPES).toContain(w.type);

  const schemaOf = new Map<string, ReturnType<typeof ajv.compile>>();
  const validate = (body: Json) => {
    let v = schemaOf.get(body.type);
    if (!v)
      schemaOf.set(
        body.type,
        (v = ajv.compile(inline(doc.webhooks[body.type].post.requestBody.content['application/json'].schema, doc) as object)),
      );
    return v(body) ? null : `${body.type} ${body.id}: ${ajv.errorsText(v.errors)}`;
  };
  const delivered = () => receiver.received(a.target.path).map((r) => ({ raw: r, body: JSON.parse(r.body) as Json }));

  await Promise.all(
    written.map(async (w) => {
      // Listed: the type filter finds it (workflow-written ones once the workflow has written them).
      const listed = await eventually(
        async () => {
          const page = expectOk(await a.key.get(`/v1/events?type=${w.type}&limit=100`));
          return page.data.find((e: Json) => e.data.object.id === w.objectId);
        },
        `${w.type} of ${w.objectId} listed`,
        30000,
      );
      expect(listed).toMatchObject({ object: 'event', type: w.type, livemode: true });
      expect(expectOk(await a.key.get(`/v1/events/${listed.id}`)).type).toBe(w.type);
      // Delivered to the endpoint, signed with its secret, as listed.
      const got = await eventually(
        async () => delivered().find((d) => d.body.id === listed.id),
        `${w.type} of ${w.objectId} delivered`,
        30000,
      );
      expect(verify(a.endpoint.secret, got.raw)).toMatchObject({ id: listed.id, type: w.type });
      expect(got.body).toEqual(listed);
    }),
  );
  // Every delivered body (the live ones the journeys wrote too) matches its type's schema in the served document.
  const bodies = delivered().map((d) => d.body);
  expect(bodies.map(validate).filter((p) => p !== null)).toEqual([]);
  for (const f of families) expect(bodies.some((x) => eventFamily(x.type) === f && UNSHIPPED_EVENT_TYPES.includes(x.type))).toBe(true);

  // The account without the switches: its catalogued events are recorded, never listed nor delivered.
  const theirs: Array<{ id: string; type: string }> = await db().query(
    'SELECT id, type FROM events WHERE account_id = $1 AND type = ANY($2) ORDER BY seq',
    [b.acct.account_id, [...UNSHIPPED_EVENT_TYPES]],
  );
  expect(new Set(theirs.map((e) => eventFamily(e.type)))).toEqual(
    new Set(['wallet', 'payroll_template', 'deposit_intent', 'virtual_account', 'screening', 'credit', 'address_book']),
  );
  const last = theirs[theirs.length - 1].id;
  await eventuallyReported(
    async () =>
      (
        await db().query(`SELECT (SELECT seq FROM outbox_cursors WHERE name = 'webhooks') >= seq AS passed FROM events WHERE id = $1`, [
          last,
        ])
      )[0].passed === true,
    'dispatched',
    30000,
  );
  expect(Number((await db().query('SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = $1', [b.endpoint.id]))[0].count)).toBe(0);
  expect(receiver.received(b.target.path)).toEqual([]);
  for (const t of new Set(theirs.map((e) => e.type))) expect(expectOk(await b.key.get(`/v1/events?type=${t}`)).data).toEqual([]);
  expect(expectOk(await b.key.get('/v1/events?limit=100')).data.filter((e: Json) => UNSHIPPED_EVENT_TYPES.includes(e.type))).toEqual([]);
});
