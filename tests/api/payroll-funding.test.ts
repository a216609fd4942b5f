/**
 * Payroll funding over HTTP (spec 2.7 "Funding instructions", 3, 4.4, 8; issue 13): bank
 * instructions on each run currency's rail with the run reference, crypto priced in USDC, BRL
 * crypto blocked, refusals, the method switch before money, the refresh re-checking funding at
 * once (short, top-up, over; a chain transfer), the attempts list, idempotent refresh, 404s; the
 * operator's return of the money a cancelled run received (issue 24) through the stack's workflow.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type Joi from 'joi';
import { call, client, connectDb, eventually, expectError, expectOk, newAccount } from '../helpers/api';
import { bankCredit } from '../helpers/bank';
import { refreshPayrollFunding } from '../../activities/payroll/funding';
import { payrollGate } from '../../activities/payroll/queries';
import { requestPayrollFundsReturn } from '../../activities/payroll/signals';
import { db } from '../../lib/db';
import { setSwitch } from '../../lib/switches';
import { payrollFundingAttemptListResponse, payrollFundingInstructionsResponse } from '../../views/payroll-funding';

type Api = ReturnType<typeof client>;
let key: Api;
let other: Api;

function conforms(schema: Joi.Schema, body: unknown): void {
  const { error } = schema.validate(body, { allowUnknown: false, presence: 'optional' });
  if (error) throw new Error(`response does not match its schema: ${error.message}\n${JSON.stringify(body)}`);
}
const m = (amount: string, currency: string) => ({ amount, currency, decimals: 2 });

beforeAll(async () => {
  await connectDb();
  key = client((await newAccount()).live_key);
  other = client((await newAccount()).live_key);
});

/** A run of two rows (6000 + 4000 minor units) in `currency`, approved unless `approve: false`. */
async function run(currency = 'USD', extra: Record<string, unknown> = {}, o: { approve?: boolean; api?: Api } = {}) {
  const api = o.api ?? key;
  const rows = [
    { email: 'ana@example.com', name: 'Ana', amount: m('6000', currency) },
    { email: 'bo@example.com', name: 'Bo', amount: m('4000', currency) },
  ];
  const r = await api.post('/v1/payroll_runs', { title: `Payroll ${currency}`, currency, rows, ...extra });
  expect(r.status).toBe(201);
  if (o.approve === false) return r.body;
  const a = await api.post(`/v1/payroll_runs/${r.body.id}/approve`);
  expect(a.body.status).toBe('funding_pending');
  return a.body;
}

async function instructions(runId: string, body: Record<string, unknown> = {}, api: Api = key) {
  const r = await api.post(`/v1/payroll_runs/${runId}/funding_instructions`, body);
  if (r.status !== 200 && r.status !== 201) throw new Error(`funding_instructions: ${r.status} ${JSON.stringify(r.body)}`);
  conforms(payrollFundingInstructionsResponse, r.body);
  return r.body;
}

const events = async (runId: string) =>
  (await key.get(`/v1/payroll_runs/${runId}/events?limit=100`)).body.data.map((e: { type: string }) => e.type).sort();

test.each([
  ['USD', 'ach', 'account_number'],
  ['EUR', 'sepa', 'iban'],
  ['GBP', 'faster_payments', 'sort_code'],
  ['MXN', 'spei', 'clabe'],
  ['BRL', 'pix', 'pix_key'],
])('bank instructions for a %s run on %s with the run reference and total', async (currency, rail, field) => {
  const r = await run(currency);
  expectError(await key.get(`/v1/payroll_runs/${r.id}/funding_instructions`), 404, 'not_found');
  const fi = await instructions(r.id);
  expect(fi).toMatchObject({
    object: 'payroll_funding_instructions',
    run_id: r.id,
    status: 'pending',
    run_reference: r.run_reference,
    retryable: false,
    funding_route_type: 'bank',
    crypto: null,
    failure_reason: null,
    superseded_at: null,
    bank: { rail, currency, reference: r.run_reference, amount: m('10000', currency) },
  });
  expect(fi.id).toMatch(/^prf_/);
  expect(fi.bank[field]).toEqual(expect.any(String));
  expect(fi.bank.beneficiary_name).toEqual(expect.any(String));
  if (currency === 'EUR') expect(fi.bank).toMatchObject({ holder_kind: 'provider_name', matching: 'reference' });
  // The GET reads the same attempt; a second POST refreshes it (same id, same instructions).
  expect((await key.get(`/v1/payroll_runs/${r.id}/funding_instructions`)).body).toMatchObject({ id: fi.id, bank: fi.bank });
  const again = await instructions(r.id);
  expect(again).toMatchObject({ id: fi.id, bank: fi.bank, status: 'pending' });
});

test('EUR: a credit to the pooled SEPA account with the run reference (typed loosely) funds the run', async () => {
  const r = await run('EUR');
  const fi = await instructions(r.id);
  const loose = ` ${fi.bank.reference.slice(0, 8).toLowerCase()} ${fi.bank.reference.slice(8).toLowerCase()}`;
  expect((await bankCredit(fi.bank, '10000', { reference: loose })).status).toBe(201);
  await instructions(r.id);
  expect((await key.get(`/v1/payroll_runs/${r.id}`)).body).toMatchObject({
    status: 'funded',
    funding_state: 'funded',
    needs_attention: false,
  });
});

test('crypto: priced in USDC (6 decimals) at a deposit address; a chain transfer funds the run and verifies the attempt', async () => {
  const r = await run('USD', { funding_method: 'crypto' });
  const fi = await instructions(r.id);
  expect(fi).toMatchObject({ status: 'pending', funding_route_type: 'crypto_deposit_to_wallet', bank: null, failure_reason: null });
  expect(fi.crypto).toMatchObject({
    address: expect.any(String),
    chain: expect.any(String),
    asset: expect.any(String),
    amount: { currency: 'USDC', decimals: 6 },
  });
  expect(BigInt(fi.crypto.amount.amount)).toBeGreaterThanOrEqual(10000n * 10000n);
  const t = await call(
    'POST',
    '/sim/chain/transfers',
    { chain: fi.crypto.chain, to_address: fi.crypto.address, asset: fi.crypto.asset, amount: fi.crypto.amount.amount },
    { idem: null },
  );
  expect(t.status).toBe(201);
  const after = await instructions(r.id);
  expect(after).toMatchObject({ id: fi.id, status: 'verified' });
  expect((await key.get(`/v1/payroll_runs/${r.id}`)).body).toMatchObject({
    status: 'funded',
    funding_state: 'funded',
    needs_attention: false,
  });
  expect(await events(r.id)).toEqual(
    expect.arrayContaining([
      'payroll_run.funding_verified',
      'payroll_run.funding_instructions_requested',
      'payroll_run.funding_instructions_verified',
    ]),
  );
});

test('BRL crypto: the attempt is blocked with provider_funding_currency_unsupported', async () => {
  const r = await run('BRL', { funding_method: 'crypto' });
  const fi = await instructions(r.id);
  expect(fi).toMatchObject({
    status: 'blocked',
    failure_reason: 'provider_funding_currency_unsupported',
    crypto: null,
    bank: null,
    funding_route_type: 'crypto_deposit_to_wallet',
  });
  // A refresh while the gate stands keeps the attempt blocked and writes no second event.
  expect(await instructions(r.id)).toMatchObject({
    id: fi.id,
    status: 'blocked',
    failure_reason: 'provider_funding_currency_unsupported',
    retryable: false,
  });
  expect((await events(r.id)).filter((e: string) => e === 'payroll_run.funding_instructions_blocked')).toHaveLength(1);
});

test('a provider failure: failed with provider_error (retryable, no provider text); the next POST prepares the same attempt again', async () => {
  const a = await newAccount();
  const api = client(a.live_key);
  const r = await run('USD', {}, { api });
  // The provider fails for this account only, as the outside world would (POST /sim/providers/faults).
  const fault = (value: string | null) =>
    call(
      'POST',
      '/sim/providers/faults',
      { account_id: a.account_id, name: 'bank_collection.issue_fails', value },
      { key: null, idem: null },
    );
  expectOk(await fault('true'));
  try {
    const failed = await instructions(r.id, {}, api);
    expect(failed).toMatchObject({ status: 'failed', failure_reason: 'provider_error', retryable: true, bank: null });
    expect(JSON.stringify(failed)).not.toContain('bank.example');
  } finally {
    expectOk(await fault(null));
  }
  const got = (await api.get(`/v1/payroll_runs/${r.id}/funding_instructions`)).body;
  expect(got).toMatchObject({ status: 'failed', failure_reason: 'provider_error', retryable: true, bank: null });
  const again = await instructions(r.id, {}, api);
  expect(again).toMatchObject({
    id: got.id,
    status: 'pending',
    failure_reason: null,
    retryable: false,
    bank: { reference: r.run_reference },
  });
  const ev = (await api.get(`/v1/payroll_runs/${r.id}/events?limit=100`)).body.data.map((e: { type: string }) => e.type);
  expect(ev.filter((e: string) => e === 'payroll_run.funding_instructions_failed')).toHaveLength(1);
});

test('an attempt left preparing (a POST that died before recording) is prepared by the next POST', async () => {
  const r = await run('GBP');
  const fi = await instructions(r.id);
  await db().query(`UPDATE payroll_funding_attempts SET status = 'preparing', bank = NULL WHERE id = $1`, [fi.id]);
  expect((await key.get(`/v1/payroll_runs/${r.id}/funding_instructions`)).body).toMatchObject({ status: 'preparing', bank: null });
  expect(await instructions(r.id)).toMatchObject({ id: fi.id, status: 'pending', bank: fi.bank });
});

test('refusals: no rows, not approved, cancelled, crypto flag off (409)', async () => {
  const empty = await run('USD', { rows: [] });
  expectError(await key.post(`/v1/payroll_runs/${empty.id}/funding_instructions`, {}), 409, 'conflict', 'run_has_no_rows');
  const reviewed = await run('USD', {}, { approve: false });
  expectError(await key.post(`/v1/payroll_runs/${reviewed.id}/funding_instructions`, {}), 409, 'conflict', 'payroll_run_not_approved');
  const cancelled = await run('USD');
  expect((await key.post(`/v1/payroll_runs/${cancelled.id}/cancel`)).body.status).toBe('cancelled');
  expectError(await key.post(`/v1/payroll_runs/${cancelled.id}/funding_instructions`, {}), 409, 'conflict', 'payroll_run_state_changed');
  expectError(
    await key.post(`/v1/payroll_runs/${reviewed.id}/funding_instructions`, { funding_method: 'wire' }),
    400,
    'invalid_request',
    undefined,
    'funding_method',
  );

  // Crypto with the account's flag off (its own account: the flag is cached up to 2 s).
  const a = await newAccount();
  const api = client(a.live_key);
  const r = await run('USD', {}, { api });
  await setSwitch('payroll.crypto_funding', false, a.account_id);
  await new Promise((ok) => setTimeout(ok, 2200));
  const refused = await api.post(`/v1/payroll_runs/${r.id}/funding_instructions`, { funding_method: 'crypto' });
  expectError(refused, 409, 'capability_unavailable', 'capability_unavailable');
  expect(refused.body.error.details.crypto_funding).toEqual({ available: false, reason: 'crypto_funding_not_enabled' });
  expect((await api.get(`/v1/payroll_runs/${r.id}/funding_instructions`)).status).toBe(404);
});

test('switch before money supersedes the attempt; after a credit the method is locked; the attempts list', async () => {
  const r = await run('USD');
  const bank = await instructions(r.id);
  const crypto = await instructions(r.id, { funding_method: 'crypto' });
  expect(crypto.id).not.toBe(bank.id);
  expect(crypto).toMatchObject({ funding_route_type: 'crypto_deposit_to_wallet', status: 'pending' });
  expect((await key.get(`/v1/payroll_runs/${r.id}`)).body.funding_method).toBe('crypto');
  const fiat = await instructions(r.id, { funding_method: 'fiat' });
  expect(fiat.id).not.toBe(bank.id);
  expect(fiat.bank).toMatchObject({ reference: r.run_reference });

  const list = await key.get(`/v1/payroll_runs/${r.id}/attempts`);
  expect(list.status).toBe(200);
  conforms(payrollFundingAttemptListResponse, list.body);
  expect(list.body.data.map((a: { id: string }) => a.id)).toEqual([fiat.id, crypto.id, bank.id]);
  expect(list.body.data.map((a: { superseded_at: string | null }) => a.superseded_at === null)).toEqual([true, false, false]);
  const p1 = await key.get(`/v1/payroll_runs/${r.id}/attempts?limit=2`);
  expect(p1.body).toMatchObject({ has_more: true });
  const p2 = await key.get(`/v1/payroll_runs/${r.id}/attempts?limit=2&cursor=${p1.body.next_cursor}`);
  expect(p2.body).toMatchObject({ has_more: false, data: [{ id: bank.id }] });

  expect((await bankCredit(fiat.bank, '100')).status).toBe(201);
  const locked = await key.post(`/v1/payroll_runs/${r.id}/funding_instructions`, { funding_method: 'crypto' });
  expectError(locked, 409, 'conflict', 'funding_method_locked');
  expect((await instructions(r.id, { funding_method: 'fiat' })).id).toBe(fiat.id);
});

test('the refresh re-checks at once: short (funded, partially_funded, needs attention), top-up (funded), over (overfunded); idempotent', async () => {
  const r = await run('USD');
  const fi = await instructions(r.id);
  const credit = await bankCredit(fi.bank, '7000');
  expect(credit.status).toBe(201);
  expect(credit.body).toMatchObject({ matched: true });
  // Detection is the poll and the refresh: the simulator pushes nothing into the run. (The run's own
  // re-check, woken by the instructions request above, may still be running on a busy worker and
  // see the credit: then it is detected, never anything else.)
  const seen = (await key.get(`/v1/payroll_runs/${r.id}`)).body;
  expect([
    ['funding_pending', 'unfunded'],
    ['funded', 'partially_funded'],
  ]).toContainEqual([seen.status, seen.funding_state]);

  expect(await instructions(r.id)).toMatchObject({ id: fi.id, status: 'pending' });
  expect((await key.get(`/v1/payroll_runs/${r.id}`)).body).toMatchObject({
    status: 'funded',
    funding_state: 'partially_funded',
    needs_attention: true,
    funding_confirmed_amount: m('7000', 'USD'),
  });
  expect((await key.get(`/v1/payroll_runs/${r.id}`)).body.funded_at).not.toBeNull();

  const before = await events(r.id);
  await instructions(r.id);
  expect(await events(r.id)).toEqual(before);

  await bankCredit(fi.bank, '3000');
  expect(await instructions(r.id)).toMatchObject({ id: fi.id, status: 'verified' });
  expect((await key.get(`/v1/payroll_runs/${r.id}`)).body).toMatchObject({
    status: 'funded',
    funding_state: 'funded',
    needs_attention: false,
    funding_confirmed_amount: m('10000', 'USD'),
  });

  await bankCredit(fi.bank, '500');
  expect(await instructions(r.id)).toMatchObject({ status: 'verified' });
  expect((await key.get(`/v1/payroll_runs/${r.id}`)).body).toMatchObject({
    status: 'funded',
    funding_state: 'overfunded',
    needs_attention: true,
    funding_confirmed_amount: m('10500', 'USD'),
  });

  const ev = await events(r.id);
  for (const t of [
    'payroll_run.funding_verified',
    'payroll_run.underfunded',
    'payroll_run.funding_instructions_requested',
    'payroll_run.funding_instructions_verified',
  ]) {
    expect(ev.filter((e: string) => e === t)).toHaveLength(1);
  }
  await instructions(r.id);
  expect(await events(r.id)).toEqual(ev);
});

test('a returned credit stops counting', async () => {
  const r = await run('USD');
  const fi = await instructions(r.id);
  const c = await bankCredit(fi.bank, '10000', { sender_name: 'RETURN_ME' });
  expect(c.status).toBe(201);
  await instructions(r.id);
  expect((await key.get(`/v1/payroll_runs/${r.id}`)).body).toMatchObject({
    status: 'funding_pending',
    funding_state: 'unfunded',
    needs_attention: true,
  });
});

test('a cancelled run: the poll records money that arrives after cancelling and flags it, without moving the run', async () => {
  const r = await run('USD');
  const fi = await instructions(r.id);
  expect((await key.post(`/v1/payroll_runs/${r.id}/cancel`)).body.status).toBe('cancelled');
  await bankCredit(fi.bank, '2500');
  // The run workflow's five-minute poll, called directly.
  expect(await refreshPayrollFunding(r.id)).toEqual({ status: 'cancelled', funding_state: 'partially_funded' });
  expect((await key.get(`/v1/payroll_runs/${r.id}`)).body).toMatchObject({
    status: 'cancelled',
    needs_attention: true,
    funding_confirmed_amount: m('2500', 'USD'),
  });
  const ev = await events(r.id);
  expect(ev).not.toContain('payroll_run.funding_verified');
  expect(ev).not.toContain('payroll_run.underfunded');
  expect(await refreshPayrollFunding(r.id)).toEqual({ status: 'cancelled', funding_state: 'partially_funded' });
  expect(await events(r.id)).toEqual(ev);
});

test('another account gets 404', async () => {
  const r = await run('USD');
  await instructions(r.id);
  expectError(await other.post(`/v1/payroll_runs/${r.id}/funding_instructions`, {}), 404, 'not_found');
  expectError(await other.get(`/v1/payroll_runs/${r.id}/funding_instructions`), 404, 'not_found');
  expectError(await other.get(`/v1/payroll_runs/${r.id}/attempts`), 404, 'not_found');
});

test('verification_required comes from the customer (issue 24): a customer not yet approved creates the run but blocks its funding; approval unblocks it', async () => {
  const acct = await newAccount();
  const owner = client(acct.session_token);
  const api = client(acct.live_key);
  const cus = await owner.post('/v1/customers', { customer_type: 'business', legal_name: 'Payroll Payer Ltd' });
  expect(cus.status).toBe(201);
  expect((await payrollGate({ accountId: acct.account_id, livemode: true })).verified).toBe(false);
  const r = await run('USD', {}, { api });
  expect(r.status).toBe('funding_pending');
  const ready = await api.get(`/v1/payroll_runs/${r.id}/readiness`);
  expect(ready.body).toMatchObject({ ready: false, blockers: expect.arrayContaining(['verification_required']) });
  const blocked = await instructions(r.id, {}, api);
  expect(blocked).toMatchObject({ status: 'blocked', failure_reason: 'verification_required', bank: null });
  // The provider approves the customer; the next request of the instructions is no longer blocked.
  expect((await call('POST', '/sim/kyc/decisions', { customer_id: cus.body.id, state: 'approved' }, { idem: null })).status).toBe(201);
  const deadline = Date.now() + 15_000;
  while (!(await payrollGate({ accountId: acct.account_id, livemode: true })).verified) {
    if (Date.now() > deadline) throw new Error('customer never approved');
    await new Promise((res) => setTimeout(res, 200));
  }
  const open = await instructions(r.id, {}, api);
  expect(open.status).not.toBe('blocked');
  expect(open.failure_reason).toBeNull();
  // An account without a customer record is not gated (unless its cohort flag says so).
  expect((await payrollGate({ accountId: (await newAccount()).account_id, livemode: true })).verified).toBe(true);
}, 60_000);

test('operator return (issue 24): a run cancelled after its bank credit reads needs_attention; returnFunds sent twice returns it once, back to the credit; paid by the rail, needs_attention clears', async () => {
  const r = await run('USD');
  const fi = await instructions(r.id);
  const credit = await bankCredit(fi.bank, '10000', { sender_name: 'Acme Payroll Ltd' });
  expect(credit.status).toBe(201);
  await instructions(r.id);
  expect((await key.get(`/v1/payroll_runs/${r.id}`)).body).toMatchObject({
    status: 'funded',
    funding_state: 'funded',
    needs_attention: false,
  });
  const cancelled = await key.post(`/v1/payroll_runs/${r.id}/cancel`);
  expect(cancelled.body).toMatchObject({ status: 'cancelled', needs_attention: true, funding_confirmed_amount: m('10000', 'USD') });

  // The operator's command, `npm run payroll:return` (compiled by the test setup), then the same request again: one return.
  const script = path.resolve(__dirname, '../../dist/scripts/payroll-return.js');
  const out = execFileSync(process.execPath, [script, r.id, '--reason', 'cancelled by the business'], {
    encoding: 'utf8',
    env: process.env,
  });
  expect(out).toContain(`${r.id} (`);
  expect(out).toMatch(/USD: owed 10000, returned 0, in flight 0, outstanding 10000/);
  expect(out).toContain(`returnFunds sent to ${r.id}`);
  expect(await requestPayrollFundsReturn(r.id, 'cancelled by the business')).toBe(true);
  type Ret = { id: string; status: string; idempotency_key: string; source_ref: string; amount_minor: string; currency: string };
  const returns = async (): Promise<Ret[]> =>
    db().query(
      'SELECT id, status, idempotency_key, source_ref, amount_minor, currency FROM payroll_fund_returns WHERE run_id = $1 ORDER BY return_no',
      [r.id],
    );
  const [ret] = await eventually(
    async () => ((await returns())[0]?.status === 'submitted' ? returns() : null),
    'the return submitted',
    30_000,
  );
  expect(ret).toMatchObject({ idempotency_key: `${r.id}:return:1`, source_ref: credit.body.id, amount_minor: '10000', currency: 'USD' });
  const rails = async () =>
    db().query(
      'SELECT idempotency_key, client_reference, rail, amount_minor, state FROM sandbox_rail_payments WHERE idempotency_key LIKE $1',
      [`${r.id}:return:%`],
    );
  expect(await rails()).toEqual([
    { idempotency_key: `${r.id}:return:1`, client_reference: ret.id, rail: 'ach', amount_minor: '10000', state: 'submitted' },
  ]);
  expect((await key.get(`/v1/payroll_runs/${r.id}`)).body.needs_attention).toBe(true);

  // The outside world: the rail pays the return; its report wakes the run's workflow.
  expect((await call('POST', `/sim/providers/fiat_rails/payments/${ret.id}`, { state: 'paid' }, { idem: null })).status).toBe(200);
  await eventually(
    async () => (await key.get(`/v1/payroll_runs/${r.id}`)).body.needs_attention === false,
    'needs_attention cleared',
    30_000,
  );
  expect((await returns()).map((x) => x.status)).toEqual(['returned']);
  const ev = (await key.get(`/v1/payroll_runs/${r.id}/events?limit=100`)).body.data as Array<{
    type: string;
    data: { object: Record<string, any> };
  }>;
  const returned = ev.filter((e) => e.type === 'payroll_run.funds_returned');
  expect(returned).toHaveLength(1);
  expect(returned[0].data.object).toMatchObject({
    id: r.id,
    status: 'cancelled',
    needs_attention: false,
    funds_return: { id: ret.id, status: 'returned', amount: m('10000', 'USD') },
  });
  expect(ev.some((e) => e.type === 'payroll_run.funds_return_failed')).toBe(false);
  // Not a merchant operation: no such route.
  expect((await key.post(`/v1/payroll_runs/${r.id}/return_funds`, {})).status).toBe(404);
  expect(await rails()).toHaveLength(1);
  const status = execFileSync(process.execPath, [script, r.id, '--status'], { encoding: 'utf8', env: process.env });
  expect(status).toMatch(/cancelled, needs_attention false/);
  expect(status).toMatch(/USD: owed 10000, returned 10000, in flight 0, outstanding 0/);
  expect(status).toContain(`${ret.id} returned 10000 USD -> bank_credit ${credit.body.id}`);
}, 90_000);
