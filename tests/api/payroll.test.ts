/**
 * Payroll runs over HTTP against the running product (spec 2.7, 3, 4.4, 6, 8; issue 13): create
 * with rows (recipients by email or id), caps naming the row, crypto funding off, list with
 * status_group and expand=summary, get, readiness, approve, cancel (idempotent, items untouched),
 * items and one item, the CSV export, events, and 404 across accounts.
 */
import type Joi from 'joi';
import { client, connectDb, eventually, expectError, newAccount } from '../helpers/api';
import { setSwitch } from '../../lib/switches';
import { capabilitiesResponse } from '../../views/capabilities';
import {
  payrollItemListResponse,
  payrollRecipientListResponse,
  payrollRecipientResponse,
  payrollTemplateListResponse,
  payrollTemplateResponse,
  payrollItemResponse,
  payrollReadinessResponse,
  payrollRunListResponse,
  payrollRunResponse,
} from '../../views/payroll';

type Api = ReturnType<typeof client>;
let key: Api;
let other: Api;
let accountId: string;

const usd = (amount: string) => ({ amount, currency: 'USD', decimals: 2 });
function conforms(schema: Joi.Schema, body: unknown): void {
  const { error } = schema.validate(body, { allowUnknown: false, presence: 'optional' });
  if (error) throw new Error(`response does not match its schema: ${error.message}\n${JSON.stringify(body)}`);
}
const rows = () => [
  { email: 'Ana@Example.com', name: 'Ana Diaz', amount: usd('250000'), memo: 'November' },
  { email: 'bo@example.com', name: 'Bo, "the builder"', amount: usd('120050') },
];

beforeAll(async () => {
  await connectDb();
  const a = await newAccount();
  accountId = a.account_id;
  key = client(a.live_key);
  other = client((await newAccount()).live_key);
});

async function create(extra: Record<string, unknown> = {}, api: Api = key) {
  const r = await api.post('/v1/payroll_runs', { title: 'November payroll', currency: 'USD', rows: rows(), ...extra });
  expect(r.status).toBe(201);
  return r.body;
}

test('create: reviewed run with items, reference, null pay period keys, funding amount; items by email reuse the recipient', async () => {
  const run = await create();
  conforms(payrollRunResponse, run);
  expect(run).toMatchObject({
    object: 'payroll_run',
    status: 'reviewed',
    currency: 'USD',
    funding_method: 'fiat',
    funding_state: 'unfunded',
    needs_attention: false,
    pay_period_start: null,
    pay_period_end: null,
    funding_amount: usd('370050'),
    funding_confirmed_amount: null,
    item_counts: { total: 2, destination_ready: 0, destination_pending_adoption: 0, destination_missing: 2 },
  });
  expect(run.run_reference).toBe(
    `PAYROLL-${run.id
      .replace(/[^A-Za-z0-9]/g, '')
      .slice(0, 12)
      .toUpperCase()}`,
  );
  const items = await key.get(`/v1/payroll_runs/${run.id}/items`);
  expect(items.status).toBe(200);
  conforms(payrollItemListResponse, items.body);
  const ana = items.body.data.find((i: { position: number }) => i.position === 0);
  expect(ana).toMatchObject({
    status: 'pending',
    destination_status: 'missing',
    destination: null,
    amount: usd('250000'),
    memo: 'November',
    recipient: { email: 'ana@example.com', name: 'Ana Diaz' },
  });
  expect(items.body.data.map((i: { position: number }) => i.position)).toEqual([0, 1]);
  const p1 = await key.get(`/v1/payroll_runs/${run.id}/items?limit=1`);
  expect(p1.body).toMatchObject({ has_more: true, data: [{ position: 0 }] });
  const p2 = await key.get(`/v1/payroll_runs/${run.id}/items?limit=1&cursor=${p1.body.next_cursor}`);
  expect(p2.body).toMatchObject({ has_more: false, next_cursor: null, data: [{ position: 1 }] });
  expectError(await key.get(`/v1/payroll_runs/${run.id}/items?cursor=nope`), 400, 'invalid_request', 'cursor_invalid', 'cursor');
  const one = await key.get(`/v1/payroll_runs/${run.id}/items/${ana.id}`);
  conforms(payrollItemResponse, one.body);
  expect(one.body.id).toBe(ana.id);

  // A second run naming Ana by id and Bo by email pays the same recipients.
  const again = await create({
    rows: [
      { recipient_id: ana.recipient.id, amount: usd('100') },
      { email: 'BO@example.com', name: 'Bo', amount: usd('1') },
    ],
    pay_period_start: '2026-11-01',
    pay_period_end: '2026-11-30',
  });
  expect(again).toMatchObject({ pay_period_start: '2026-11-01', pay_period_end: '2026-11-30' });
  const ids = (await key.get(`/v1/payroll_runs/${again.id}/items`)).body.data
    .map((i: { recipient: { id: string } }) => i.recipient.id)
    .sort();
  expect(ids).toEqual(items.body.data.map((i: { recipient: { id: string } }) => i.recipient.id).sort());
});

test('create refusals: caps name the row (422), row errors (400), duplicates, pay period, crypto funding off (409)', async () => {
  const post = (body: Record<string, unknown>) => key.post('/v1/payroll_runs', { title: 'T', currency: 'USD', ...body });
  expectError(
    await post({
      rows: [
        { email: 'a@example.com', name: 'A', amount: usd('1') },
        { email: 'b@example.com', name: 'B', amount: usd('1000001') },
      ],
    }),
    422,
    'invalid_request',
    'payroll_cap_exceeded',
    'rows[1].amount',
  );
  const big = [0, 1, 2].map((i) => ({ email: `r${i}@example.com`, name: `R${i}`, amount: usd('900000') }));
  expectError(await post({ rows: big }), 422, 'invalid_request', 'payroll_cap_exceeded', 'rows');
  const many = Array.from({ length: 501 }, (_, i) => ({ email: `m${i}@example.com`, name: `M${i}`, amount: usd('1') }));
  expectError(await post({ rows: many }), 422, 'invalid_request', 'payroll_cap_exceeded', 'rows');
  expectError(
    await post({ rows: [{ email: 'nope', name: 'X', amount: usd('1') }] }),
    400,
    'invalid_request',
    'email_invalid',
    'rows[0].email',
  );
  expectError(
    await post({ rows: [{ email: 'x@example.com', name: 'X', amount: { amount: '1', currency: 'EUR', decimals: 2 } }] }),
    400,
    'invalid_request',
    'currency_mismatch',
    'rows[0].amount',
  );
  expectError(
    await post({
      rows: [
        { email: 'x@example.com', name: 'X', amount: usd('1') },
        { email: 'X@example.com', name: 'X', amount: usd('2') },
      ],
    }),
    400,
    'invalid_request',
    'duplicate_recipient',
    'rows[1].email',
  );
  expectError(
    await post({ rows: [{ recipient_id: 'prc_doesnotexist', amount: usd('1') }] }),
    400,
    'invalid_request',
    'recipient_not_found',
    'rows[0].recipient_id',
  );
  expectError(
    await post({ pay_period_start: '2026-11-30', pay_period_end: '2026-11-01' }),
    400,
    'invalid_request',
    'pay_period_invalid',
    'pay_period_end',
  );
  expectError(await post({ currency: 'JPY' }), 400, 'invalid_request');

  const brl = await create({ currency: 'BRL', funding_method: 'crypto', rows: [] });
  expect(brl).toMatchObject({ funding_method: 'crypto', funding_blocked_reason: 'provider_funding_currency_unsupported' });
  await setSwitch('payroll.crypto_funding', false, accountId);
  try {
    const refused = await eventually(
      async () => {
        const r = await post({ funding_method: 'crypto', rows: [] });
        return r.status === 409 ? r : null;
      },
      'crypto funding off',
      10000,
    );
    expectError(refused, 409, 'capability_unavailable', 'capability_unavailable');
    expect(refused.body.error.details.crypto_funding).toEqual({ available: false, reason: 'crypto_funding_not_enabled' });
  } finally {
    await setSwitch('payroll.crypto_funding', true, accountId);
  }
});

test('readiness, approve, cancel: transitions, idempotence, items stay, 409 once cancelled; events', async () => {
  const empty = await create({ rows: [] });
  const rd = await key.get(`/v1/payroll_runs/${empty.id}/readiness`);
  conforms(payrollReadinessResponse, rd.body);
  expect(rd.body).toMatchObject({ ready: false, blockers: ['run_has_no_rows'] });

  const run = await create();
  expect((await key.get(`/v1/payroll_runs/${run.id}/readiness`)).body).toMatchObject({ ready: true, blockers: [] });
  const ap = await key.post(`/v1/payroll_runs/${run.id}/approve`);
  expect(ap.status).toBe(200);
  expect(ap.body.status).toBe('funding_pending');
  expect(ap.body.approved_at).not.toBeNull();
  expect((await key.post(`/v1/payroll_runs/${run.id}/approve`)).body.status).toBe('funding_pending');
  const c1 = await key.post(`/v1/payroll_runs/${run.id}/cancel`);
  expect(c1.body).toMatchObject({ status: 'cancelled', needs_attention: false });
  expect((await key.post(`/v1/payroll_runs/${run.id}/cancel`)).body.status).toBe('cancelled');
  expectError(await key.post(`/v1/payroll_runs/${run.id}/approve`), 409, 'conflict', 'payroll_run_state_changed');
  const items = (await key.get(`/v1/payroll_runs/${run.id}/items`)).body.data;
  expect(items.map((i: { status: string }) => i.status)).toEqual(['pending', 'pending']);
  expect((await key.get(`/v1/payroll_runs/${run.id}/readiness`)).body.blockers).toEqual(['run_not_open']);

  const ev = await eventually(async () => {
    const r = await key.get(`/v1/payroll_runs/${run.id}/events`);
    return r.body.data.length >= 3 ? r.body.data : null;
  }, 'payroll events');
  expect(ev.map((e: { type: string }) => e.type).sort()).toEqual(['payroll_run.approved', 'payroll_run.cancelled', 'payroll_run.created']);
});

test('list: status_group filters and expand=summary over every run; 404 across accounts', async () => {
  const fresh = await newAccount();
  const api = client(fresh.live_key);
  const a = await create({}, api);
  const b = await create({}, api);
  await api.post(`/v1/payroll_runs/${b.id}/approve`);
  const c = await create({}, api);
  await api.post(`/v1/payroll_runs/${c.id}/cancel`);
  const all = await api.get('/v1/payroll_runs?expand=summary&limit=2');
  conforms(payrollRunListResponse, all.body);
  expect(all.body).toMatchObject({ has_more: true, summary: { needs_action: 2, in_progress: 0, completed: 1, total: 3 } });
  expect((await api.get('/v1/payroll_runs')).body.summary).toBeUndefined();
  const ids = async (g: string) => (await api.get(`/v1/payroll_runs?status_group=${g}`)).body.data.map((x: { id: string }) => x.id).sort();
  expect(await ids('needs_you')).toEqual([a.id, b.id].sort());
  expect(await ids('done')).toEqual([c.id]);
  expect(await ids('in_progress')).toEqual([]);
  expectError(await api.get('/v1/payroll_runs?status_group=draft'), 400, 'invalid_request');
  expectError(await other.get(`/v1/payroll_runs/${a.id}`), 404, 'not_found');
  expectError(await other.get(`/v1/payroll_runs/${a.id}/items`), 404, 'not_found');
});

test('export: text/csv, header and one RFC 4180 line per item with its status', async () => {
  const run = await create();
  const res = await key.get(`/v1/payroll_runs/${run.id}/export`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
  const lines = (res.body as string).split('\r\n');
  expect(lines[0]).toBe(
    'item_id,recipient_id,recipient_name,recipient_email,amount,currency,status,destination,failure_reason,paid_at,memo',
  );
  expect(lines).toHaveLength(4);
  expect(lines[1]).toMatch(/^pri_\w+,prc_\w+,Ana Diaz,ana@example.com,2500.00,USD,pending,,,,November$/);
  expect(lines[2]).toMatch(/,"Bo, ""the builder""",bo@example.com,1200.50,USD,pending,,,,$/);
  expect(lines[3]).toBe('');
});

test('capabilities product=payroll: corridors in run currencies, funding_currencies with crypto_funding', async () => {
  // A fresh account: the crypto flag flipped by another test is cached up to 2 s by the product.
  const api = client((await newAccount()).live_key);
  const c = await api.get('/v1/capabilities?product=payroll');
  expect(c.status).toBe(200);
  conforms(capabilitiesResponse, c.body);
  expect(c.body.product).toBe('payroll');
  expect(c.body.corridors.map((x: { corridor_id: string }) => x.corridor_id)).not.toContain('cop_co_bank_transfer');
  const byCur = Object.fromEntries(c.body.funding_currencies.map((f: { currency: string }) => [f.currency, f]));
  expect(Object.keys(byCur)).toEqual(['USD', 'EUR', 'GBP', 'BRL', 'MXN']);
  expect(byCur.USD).toEqual({
    currency: 'USD',
    fiat_funding: { available: true, reason: null },
    crypto_funding: { available: true, reason: null },
  });
  expect(byCur.BRL.crypto_funding).toEqual({ available: false, reason: 'provider_funding_currency_unsupported' });
});

test('recipients: list and get with null destination and pending_destination; 404 across accounts', async () => {
  const api = client((await newAccount()).live_key);
  await create({}, api);
  const list = await api.get('/v1/payroll_recipients');
  expect(list.status).toBe(200);
  conforms(payrollRecipientListResponse, list.body);
  expect(list.body.data.map((p: { email: string }) => p.email).sort()).toEqual(['ana@example.com', 'bo@example.com']);
  const id = list.body.data[0].id;
  const one = await api.get(`/v1/payroll_recipients/${id}`);
  conforms(payrollRecipientResponse, one.body);
  expect(one.body).toMatchObject({ id, object: 'payroll_recipient', destination: null, pending_destination: null });
  expectError(await key.get(`/v1/payroll_recipients/${id}`), 404, 'not_found');
});

test('templates: from rows and from a run, list, get; a run created from a template; refusals', async () => {
  const api = client((await newAccount()).live_key);
  const t1 = await api.post('/v1/payroll_templates', {
    title: 'Monthly',
    currency: 'EUR',
    rows: [{ email: 'c@example.com', name: 'Cy', amount: { amount: '50000', currency: 'EUR', decimals: 2 } }],
  });
  expect(t1.status).toBe(201);
  conforms(payrollTemplateResponse, t1.body);
  expect(t1.body).toMatchObject({
    currency: 'EUR',
    funding_method: 'fiat',
    source_run_id: null,
    rows: [{ email: 'c@example.com', name: 'Cy', recipient_id: null }],
  });
  const run = await create({}, api);
  const t2 = await api.post('/v1/payroll_templates', { from_run_id: run.id, title: 'From November' });
  expect(t2.status).toBe(201);
  expect(t2.body).toMatchObject({
    title: 'From November',
    currency: 'USD',
    source_run_id: run.id,
    rows: [{ amount: usd('250000'), memo: 'November' }, { amount: usd('120050') }],
  });
  const list = await api.get('/v1/payroll_templates');
  conforms(payrollTemplateListResponse, list.body);
  expect(list.body.data.map((t: { id: string }) => t.id)).toEqual([t2.body.id, t1.body.id]);
  expect((await api.get(`/v1/payroll_templates/${t1.body.id}`)).body.id).toBe(t1.body.id);

  const fromT = await api.post('/v1/payroll_runs', { template_id: t2.body.id });
  expect(fromT.status).toBe(201);
  expect(fromT.body).toMatchObject({
    status: 'reviewed',
    title: 'From November',
    currency: 'USD',
    template_id: t2.body.id,
    funding_amount: usd('370050'),
    item_counts: { total: 2 },
  });
  const fromT1 = await api.post('/v1/payroll_runs', { template_id: t1.body.id, title: 'December' });
  expect(fromT1.body).toMatchObject({
    title: 'December',
    currency: 'EUR',
    funding_amount: { amount: '50000', currency: 'EUR', decimals: 2 },
  });

  expectError(
    await api.post('/v1/payroll_runs', { template_id: t1.body.id, currency: 'USD' }),
    400,
    'invalid_request',
    'currency_mismatch',
    'currency',
  );
  expectError(await api.post('/v1/payroll_runs', { rows: [] }), 400, 'invalid_request', 'parameter_missing', 'title');
  expectError(await api.post('/v1/payroll_runs', { template_id: 'prt_nope' }), 404, 'not_found');
  expectError(
    await api.post('/v1/payroll_templates', { title: 'x', currency: 'USD' }),
    400,
    'invalid_request',
    'parameter_invalid',
    'rows',
  );
  expectError(await api.post('/v1/payroll_templates', { rows: [] }), 400, 'invalid_request', 'parameter_missing', 'title');
  expectError(await key.get(`/v1/payroll_templates/${t1.body.id}`), 404, 'not_found');
});
