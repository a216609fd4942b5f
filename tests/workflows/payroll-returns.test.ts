/**
 * Money a payroll run owes back, returned by the operator's `returnFunds` signal through the run's
 * workflow (issue 24; domain/payroll-returns.ts, activities/payroll/returns.ts), under the Java
 * time-skipping test server with real activities on real PostgreSQL: a bank-funded run cancelled
 * after its credit arrived reads `needs_attention`; the signal, sent twice to a workflow that had
 * ended, makes one fiat rail payment back under the return's idempotency key, followed until the
 * rail pays it (`needs_attention` clears, `payroll_run.funds_returned`); a crypto-funded run's USDC
 * goes back to the sending address at once; a partial run with overfunding returns what was not
 * paid out, a failed return is owed again (`payroll_run.funds_return_failed`) and the next request
 * returns it under a new key; and every history replays.
 */
import { payrollRunContract } from '../../contracts/payroll-run';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { cancelRun, executeRun } from '../../activities/payroll/commands';
import { refreshPayrollFunding } from '../../activities/payroll/funding';
import { requestFundingInstructions } from '../../activities/payroll/funding-instructions';
import { notifyPayrollItemRailUpdate, requestPayrollFundsReturn, wakePayrollRun } from '../../activities/payroll/signals';
import { db } from '../../lib/db';
import { bankCollection } from '../../providers/bank-collection';
import { chainAdapter } from '../../providers/chain';
import { fiatRails } from '../../providers/fiat-rails';
import { eventually } from '../helpers/api';
import { approvedRun, usBank } from '../helpers/payroll';
import { startWorkflowHarness, type WorkflowHarness } from '../helpers/temporal';
import { systemScope } from '../../activities/scope';

let h: WorkflowHarness;
let env: TestWorkflowEnvironment;
const req = { id: 'req_test', idempotency_key: null };
const histories = new Set<string>();
const SENDER = '0x1111111111111111111111111111111111111111';

beforeAll(async () => {
  h = await startWorkflowHarness();
  env = h.env;
}, 600_000);

afterAll(async () => {
  await h?.stop();
});

const result = async (id: string) => {
  const r = await env.client.workflow.getHandle(id).result();
  histories.add(id);
  return r;
};
const waitingFor = (id: string) => env.client.workflow.getHandle(id).query(payrollRunContract.queries.waitingFor);
const runRow = async (id: string) => (await db().query('SELECT status, needs_attention FROM payroll_runs WHERE id = $1', [id]))[0];
const returnsOf = async (id: string) =>
  (await db().query(
    'SELECT id, return_no, idempotency_key, source_kind, source_ref, amount_minor, currency, status, reason, provider_ref, failure_reason FROM payroll_fund_returns WHERE run_id = $1 ORDER BY return_no',
    [id],
  )) as Array<Record<string, string>>;
const railPayments = async (id: string) =>
  (await db().query(
    `SELECT id, idempotency_key, client_reference, rail, currency, amount_minor, state FROM sandbox_rail_payments WHERE idempotency_key LIKE $1 ORDER BY created_at`,
    [`${id}:return:%`],
  )) as Array<Record<string, string>>;
const events = async (id: string) =>
  (await db().query('SELECT type, data FROM events WHERE object_id = $1 ORDER BY seq', [id])) as Array<{
    type: string;
    data: { object: Record<string, any> };
  }>;

/** Bank instructions, then the outside world sends `amount` cents with the run reference; the funding poll sees it. Returns the credit id. */
async function fundByBank(accountId: string, runId: string, amount: bigint): Promise<string> {
  const at = await requestFundingInstructions(systemScope(accountId, true, req), { id: runId });
  const c = await bankCollection().receive({
    rail: 'ach',
    currency: 'USD',
    amount,
    reference: at.run_reference,
    toAccount: String(at.bank!.account_number),
    senderName: 'Acme Inc',
  });
  await refreshPayrollFunding(runId);
  return c.id;
}

test('a run cancelled after its bank credit: needs_attention; returnFunds twice returns once, back to the credit on its rail, followed until paid', async () => {
  const { accountId, runId } = await approvedRun([6000n, 4000n], () => usBank('000123456789'));
  const creditId = await fundByBank(accountId, runId, 10000n);
  expect(await runRow(runId)).toEqual({ status: 'funded', needs_attention: false });
  await cancelRun(systemScope(accountId, true, req), { id: runId });
  await wakePayrollRun(runId, accountId);
  expect(await result(runId)).toBe('cancelled');
  expect(await runRow(runId)).toEqual({ status: 'cancelled', needs_attention: true });

  // The operator's action, twice: the workflow had ended, so the first signal starts it again.
  expect(await requestPayrollFundsReturn(runId, 'run cancelled by the customer; ticket 4711')).toBe(true);
  expect(await requestPayrollFundsReturn(runId, 'sent again by mistake')).toBe(true);
  await eventually(async () => /^the rail to pay or fail 1 funds return/.test(await waitingFor(runId)), 'the return in flight');
  const [ret, ...more] = await returnsOf(runId);
  expect(more).toEqual([]);
  expect(ret).toMatchObject({
    return_no: 1,
    idempotency_key: `${runId}:return:1`,
    source_kind: 'bank_credit',
    source_ref: creditId,
    amount_minor: '10000',
    currency: 'USD',
    status: 'submitted',
    reason: 'run cancelled by the customer; ticket 4711',
    failure_reason: null,
  });
  expect(ret.id).toMatch(/^prfr_/);
  expect(await railPayments(runId)).toEqual([
    {
      id: ret.provider_ref,
      idempotency_key: `${runId}:return:1`,
      client_reference: ret.id,
      rail: 'ach',
      currency: 'USD',
      amount_minor: '10000',
      state: 'submitted',
    },
  ]);
  expect(await runRow(runId)).toEqual({ status: 'cancelled', needs_attention: true });

  // The rail pays the return; its callback wakes the run's workflow, which records it and ends.
  await fiatRails().simulate(ret.id, { state: 'paid' });
  expect(await notifyPayrollItemRailUpdate(ret.id)).toBe(true);
  expect(await result(runId)).toBe('cancelled');
  expect((await returnsOf(runId)).map((r) => r.status)).toEqual(['returned']);
  expect(await runRow(runId)).toEqual({ status: 'cancelled', needs_attention: false });
  const ev = await events(runId);
  expect(ev.map((e) => e.type)).toEqual([
    'payroll_run.created',
    'payroll_run.approved',
    'payroll_run.funding_instructions_requested',
    'payroll_run.funding_verified',
    'payroll_run.funding_instructions_verified',
    'payroll_run.cancelled',
    'payroll_run.funds_returned',
  ]);
  expect(ev[ev.length - 1].data.object).toMatchObject({
    id: runId,
    status: 'cancelled',
    needs_attention: false,
    funds_return: {
      id: ret.id,
      object: 'payroll_funds_return',
      status: 'returned',
      amount: { amount: '10000', currency: 'USD', decimals: 2 },
      source: { type: 'bank_credit', reference: creditId },
      provider_reference: ret.provider_ref,
      failure_reason: null,
      returned_at: expect.any(String),
    },
  });
  expect(JSON.stringify(ev[ev.length - 1].data)).not.toContain('ticket 4711');

  // Once everything is back, another request returns nothing.
  await requestPayrollFundsReturn(runId, 'third time');
  expect(await result(runId)).toBe('cancelled');
  expect(await returnsOf(runId)).toHaveLength(1);
  expect(await railPayments(runId)).toHaveLength(1);
  expect(await requestPayrollFundsReturn('pr_unknown', 'x')).toBe(false);
}, 300_000);

test('a crypto-funded run cancelled: its USDC goes back to the sending address at once, under the return key', async () => {
  const { accountId, runId } = await approvedRun([2500n], () => usBank('000123456789'));
  const at = await requestFundingInstructions(systemScope(accountId, true, req), { id: runId, funding_method: 'crypto' });
  const crypto = at.crypto as { address: string; chain: string; asset: string; amount: { amount: string } };
  const chain = chainAdapter();
  const t = await chain.inject({
    chain: crypto.chain,
    asset: crypto.asset,
    to_address: crypto.address,
    from_address: SENDER,
    amount: BigInt(crypto.amount.amount),
    decimals: 6,
  });
  await refreshPayrollFunding(runId);
  await cancelRun(systemScope(accountId, true, req), { id: runId });
  await wakePayrollRun(runId, accountId);
  expect(await result(runId)).toBe('cancelled');
  expect(await runRow(runId)).toEqual({ status: 'cancelled', needs_attention: true });

  await requestPayrollFundsReturn(runId, 'cancelled');
  expect(await result(runId)).toBe('cancelled');
  const [ret] = await returnsOf(runId);
  expect(ret).toMatchObject({
    source_kind: 'chain_transfer',
    source_ref: `${t.chain}:${t.tx_hash}`,
    amount_minor: crypto.amount.amount,
    currency: 'USDC',
    status: 'returned',
  });
  const sent = await db().query(
    'SELECT from_address, to_address, amount_minor, asset FROM sandbox_chain_transfers WHERE idempotency_key = $1',
    [`${runId}:return:1`],
  );
  expect(sent).toEqual([{ from_address: crypto.address, to_address: SENDER, amount_minor: crypto.amount.amount, asset: crypto.asset }]);
  expect(ret.provider_ref).toMatch(new RegExp(`^${chain.chain}:`));
  expect(await runRow(runId)).toEqual({ status: 'cancelled', needs_attention: false });
  expect((await events(runId)).map((e) => e.type).filter((x) => x.startsWith('payroll_run.funds_'))).toEqual([
    'payroll_run.funds_returned',
  ]);
}, 300_000);

test('after execution: a partial overfunded run returns what was not paid out; a failed return is owed again and the next request sends it under a new key', async () => {
  const dest = [usBank('000123456789'), usBank('000111111116')];
  const { accountId, runId } = await approvedRun([6000n, 4000n], (i) => dest[i]);
  await fundByBank(accountId, runId, 12500n);
  await executeRun(systemScope(accountId, true, req), { id: runId });
  await wakePayrollRun(runId, accountId);
  expect(await result(runId)).toBe('partial');
  expect(await runRow(runId)).toEqual({ status: 'partial', needs_attention: true });

  // 12,500 received, 6,000 paid: 6,500 owed back (the failed item's 4,000 and the 2,500 surplus).
  await requestPayrollFundsReturn(runId, 'unpaid item and surplus');
  await eventually(async () => /^the rail to pay or fail 1 funds return/.test(await waitingFor(runId)), 'the return in flight');
  const [first] = await returnsOf(runId);
  expect(first).toMatchObject({ amount_minor: '6500', status: 'submitted', idempotency_key: `${runId}:return:1` });
  await fiatRails().simulate(first.id, { state: 'failed', reason: 'R03 No account / unable to locate account' });
  await notifyPayrollItemRailUpdate(first.id);
  expect(await result(runId)).toBe('partial');
  expect(await returnsOf(runId)).toMatchObject([{ status: 'failed', failure_reason: 'provider_error' }]);
  expect(await runRow(runId)).toEqual({ status: 'partial', needs_attention: true });

  await requestPayrollFundsReturn(runId, 'retry after the sender fixed their account');
  await eventually(
    async () => (await returnsOf(runId)).length === 2 && (await returnsOf(runId))[1].status === 'submitted',
    'the second return',
  );
  const second = (await returnsOf(runId))[1];
  expect(second).toMatchObject({ return_no: 2, idempotency_key: `${runId}:return:2`, amount_minor: '6500' });
  await fiatRails().simulate(second.id, { state: 'paid' });
  await notifyPayrollItemRailUpdate(second.id);
  expect(await result(runId)).toBe('partial');
  expect(await runRow(runId)).toEqual({ status: 'partial', needs_attention: false });
  expect((await railPayments(runId)).map((p) => [p.idempotency_key, p.amount_minor, p.state])).toEqual([
    [`${runId}:return:1`, '6500', 'failed'],
    [`${runId}:return:2`, '6500', 'paid'],
  ]);
  const ev = (await events(runId)).filter((e) => e.type.startsWith('payroll_run.funds_'));
  expect(ev.map((e) => [e.type, e.data.object.needs_attention, e.data.object.funds_return.status])).toEqual([
    ['payroll_run.funds_return_failed', true, 'failed'],
    ['payroll_run.funds_returned', false, 'returned'],
  ]);
}, 300_000);

test('replay: every payroll history with a funds return replays against the current workflow code', async () => {
  expect(histories.size).toBe(3);
  const all = await Promise.all(
    [...histories].map(async (workflowId) => ({ workflowId, history: await env.client.workflow.getHandle(workflowId).fetchHistory() })),
  );
  let n = 0;
  for await (const r of Worker.runReplayHistories(
    { workflowsPath: require.resolve('../../workflows'), replayName: 'payroll-returns-replay' },
    all,
  )) {
    expect(r.error).toBeUndefined();
    n++;
  }
  expect(n).toBe(3);
}, 120_000);
