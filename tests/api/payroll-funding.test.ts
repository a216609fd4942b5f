/**
 * Payroll funding over HTTP (spec 2.7 "Funding instructions", 3, 4.4; issue 13): bank instructions
 * per run currency (the run reference as transfer reference; pooled SEPA matched on it), crypto
 * instructions priced in USDC, a BRL crypto run blocked, the refusals (not approved, no rows,
 * method locked after money, crypto off, cancelled), a refresh re-checking at once (partially
 * funded, funded, overfunded), a switch before money superseding the attempt, the attempts list,
 * GET before POST, idempotent refresh, and 404 across accounts.
 */
import type Joi from 'joi';
import { call, client, connectDb, eventually, expectError, expectOk, newAccount } from '../helpers/api';
import { setSwitch } from '../../lib/switches';
import { payrollFundingAttemptListResponse, payrollFundingInstructionsResponse } from '../../views/payroll-funding';

type Api = ReturnType<typeof client>;
let key: Api;
let other: Api;
let accountId: string;

function conforms(schema: Joi.Schema, body: unknown): void {
  const { error } = schema.validate(body, { allowUnknown: false, presence: 'optional' });
  if (error) throw new Error(`response does not match its schema: ${error.message}\n${JSON.stringify(body)}`);
}
const m = (amount: string, currency = 'USD') => ({ amount, currency, decimals: currency === 'USDC' ? 6 : 2 });

beforeAll(async () => {
  await connectDb();
  const a = await newAccount();
  accountId = a.account_id;
  key = client(a.live_key);
  other = client((await newAccount()).live_key);
});

/** An approved run of one row of `amount` in `currency`. */
async function approved(currency = 'USD', amount = '100000', extra: Record<string, unknown> = {}) {
  const run = expectOk(await key.post('/v1/payroll_runs', { title: 'Funding', currency, rows: [{ email: `f${Math.random()}@example.com`, name: 'F', amount: m(amount, currency) }], ...extra }), 201);
  expectOk(await key.post(`/v1/payroll_runs/${run.id}/approve`, {}));
  return run;
}
const fund = (id: string, body: Record<string, unknown> = {}) => key.post(`/v1/payroll_runs/${id}/funding_instructions`, body);
const credit = (fi: Record<string, any>, amount: string, currency: string) => call('POST', '/sim/bank/credits', {
  rail: fi.bank.rail, currency, amount, reference: fi.run_reference,
  to_account: fi.bank.account_number && fi.bank.sort_code ? `${fi.bank.sort_code}${fi.bank.account_number}` : (fi.bank.iban ?? fi.bank.clabe ?? fi.bank.pix_key ?? fi.bank.account_number), sender_name: 'Acme',
}, { idem: null });
const runOf = async (id: string) => expectOk(await key.get(`/v1/payroll_runs/${id}`));

test.each([
  ['USD', 'ach', 'account_number'], ['EUR', 'sepa', 'iban'], ['GBP', 'faster_payments', 'sort_code'], ['MXN', 'spei', 'clabe'], ['BRL', 'pix', 'pix_key'],
])('%s: bank instructions on %s with the run reference; a credit matched and seen at once by the refresh', async (currency, rail, field) => {
  const run = await approved(currency, '250000');
  expectError(await key.get(`/v1/payroll_runs/${run.id}/funding_instructions`), 404, 'not_found');
  const fi = expectOk(await fund(run.id));
  conforms(payrollFundingInstructionsResponse, fi);
  expect(fi).toMatchObject({ status: 'pending', funding_route_type: 'bank', funding_method: 'fiat', run_reference: run.run_reference, crypto: null, failure_reason: null,
    bank: { rail, reference: run.run_reference, amount: m('250000', currency) }, amount_due: m('250000', currency) });
  expect(fi.bank[field]).toEqual(expect.any(String));
  expect(expectOk(await credit(fi, '250000', currency), 201).matched).toBe(true);
  const again = expectOk(await fund(run.id));
  expect(again).toMatchObject({ id: fi.id, status: 'verified' });
  expect(await runOf(run.id)).toMatchObject({ status: 'funded', funding_state: 'funded', needs_attention: false, funding_confirmed_amount: m('250000', currency) });
  expect(expectOk(await key.get(`/v1/payroll_runs/${run.id}/funding_instructions`)).id).toBe(fi.id);
});

test('short, then topped up, then over: partially_funded (funded status, needs_attention), funded, overfunded; refresh is idempotent', async () => {
  const run = await approved('USD', '100000');
  const fi = expectOk(await fund(run.id));
  expectOk(await credit(fi, '40000', 'USD'), 201);
  expectOk(await fund(run.id));
  expect(await runOf(run.id)).toMatchObject({ status: 'funded', funding_state: 'partially_funded', needs_attention: true, funding_confirmed_amount: m('40000') });
  expectOk(await fund(run.id));
  const ev = (await key.get(`/v1/payroll_runs/${run.id}/events?limit=100`)).body.data.map((e: { type: string }) => e.type);
  expect(ev.filter((t: string) => t === 'payroll_run.funding_verified')).toHaveLength(1);
  expectOk(await credit(fi, '60000', 'USD'), 201);
  expectOk(await fund(run.id));
  expect(await runOf(run.id)).toMatchObject({ funding_state: 'funded', needs_attention: false, funding_confirmed_amount: m('100000') });
  expectOk(await credit(fi, '1', 'USD'), 201);
  expectOk(await fund(run.id));
  expect(await runOf(run.id)).toMatchObject({ funding_state: 'overfunded', needs_attention: true, funding_confirmed_amount: m('100001') });
});

test('crypto: priced in USDC at the reference rate, funded by a transfer to the address; a BRL crypto run is blocked', async () => {
  const run = await approved('GBP', '100000', { funding_method: 'crypto' });
  const fi = expectOk(await fund(run.id));
  conforms(payrollFundingInstructionsResponse, fi);
  expect(fi).toMatchObject({ status: 'pending', funding_route_type: 'crypto_deposit_to_wallet', bank: null, crypto: { amount: m('1270000000', 'USDC') }, amount_due: m('1270000000', 'USDC') });
  expectOk(await call('POST', '/sim/chain/transfers', { chain: fi.crypto.chain, asset: fi.crypto.asset, to_address: fi.crypto.address.toLowerCase(), amount: '1270000000' }, { idem: null }), 201);
  expect(expectOk(await fund(run.id)).status).toBe('verified');
  expect(await runOf(run.id)).toMatchObject({ status: 'funded', funding_state: 'funded', funding_confirmed_amount: m('1270000000', 'USDC') });

  const brl = await approved('BRL', '100000', { funding_method: 'crypto' });
  expect(expectOk(await fund(brl.id))).toMatchObject({ status: 'blocked', failure_reason: 'provider_funding_currency_unsupported', crypto: null, retryable: false });
  // The business switches to a bank transfer: a new attempt, the old one superseded.
  const bank = expectOk(await fund(brl.id, { funding_method: 'fiat' }));
  expect(bank).toMatchObject({ status: 'pending', funding_route_type: 'bank', bank: { rail: 'pix' } });
  const list = expectOk(await key.get(`/v1/payroll_runs/${brl.id}/attempts`));
  conforms(payrollFundingAttemptListResponse, list);
  expect(list.data.map((a: { id: string; superseded_at: string | null }) => [a.id === bank.id, a.superseded_at === null])).toEqual([[true, true], [false, false]]);
  expect((await runOf(brl.id)).funding_method).toBe('fiat');
});

test('refusals: not approved, no rows, method locked after money, crypto off, cancelled; 404 across accounts', async () => {
  const reviewed = expectOk(await key.post('/v1/payroll_runs', { title: 'R', currency: 'USD', rows: [{ email: 'r@example.com', name: 'R', amount: m('100') }] }), 201);
  expectError(await fund(reviewed.id), 409, 'conflict', 'payroll_run_not_approved');
  const empty = expectOk(await key.post('/v1/payroll_runs', { title: 'E', currency: 'USD', rows: [] }), 201);
  expectOk(await key.post(`/v1/payroll_runs/${empty.id}/approve`, {}));
  expectError(await fund(empty.id), 409, 'conflict', 'run_has_no_rows');

  const run = await approved('USD', '5000');
  const fi = expectOk(await fund(run.id));
  expectOk(await credit(fi, '5000', 'USD'), 201);
  expectOk(await fund(run.id));
  const locked = await fund(run.id, { funding_method: 'crypto' });
  expectError(locked, 409, 'conflict', 'funding_method_locked');
  expect(locked.body.error.details).toEqual({ funding_method: 'fiat' });
  expectError(await other.post(`/v1/payroll_runs/${run.id}/funding_instructions`, {}), 404, 'not_found');
  expectError(await other.get(`/v1/payroll_runs/${run.id}/attempts`), 404, 'not_found');
  expectError(await fund(run.id, { funding_method: 'wire' }), 400, 'invalid_request', undefined, 'funding_method');

  const switched = await approved('USD', '5000');
  await setSwitch('payroll.crypto_funding', false, accountId);
  try {
    const off = await eventually(async () => {
      const r = await fund(switched.id, { funding_method: 'crypto' });
      return r.status === 409 ? r : null;
    }, 'crypto funding off', 10000);
    expectError(off, 409, 'capability_unavailable', 'capability_unavailable');
    expect(off.body.error.details.crypto_funding).toEqual({ available: false, reason: 'crypto_funding_not_enabled' });
  } finally {
    await setSwitch('payroll.crypto_funding', true, accountId);
  }
  expectOk(await key.post(`/v1/payroll_runs/${switched.id}/cancel`, {}));
  expectError(await fund(switched.id), 409, 'conflict', 'payroll_run_state_changed');
});
