/**
 * The payroll run and item workflows under the Java time-skipping test server with real activities
 * on real PostgreSQL (spec 2.7, 3, 4.4, 8; issue 13): execution of a funded run with one item
 * failing on the sandbox's failing test account, one returned after paying and one without a
 * destination (`partial`), every item paid by its own child workflow exactly once, a run with every
 * item paid (`completed`), an execution re-run after a reset that never pays twice, the
 * `waiting_for` query, cancel while funding, funding found by the five-minute poll two days later
 * (short, then topped up), overfunded, and a replay of every completed history.
 */
import { payrollRunContract } from '../../contracts/payroll-run';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { cancelRun, executeRun } from '../../activities/payroll/commands';
import { requestFundingInstructions } from '../../activities/payroll/funding-instructions';
import { bankCollection } from '../../providers/bank-collection';
import { notifyPayrollItemRailUpdate, wakePayrollRun } from '../../activities/payroll/signals';
import { fiatRails } from '../../providers/fiat-rails';
import { db } from '../../lib/db';
import { eventually } from '../helpers/api';
import { approvedRun, markFunded, usBank, wallet } from '../helpers/payroll';
import { startWorkflowHarness, type WorkflowHarness } from '../helpers/temporal';
import { pendingTimer } from '../helpers/time-skipping';
import { systemScope } from '../../activities/scope';
import { deadline } from '../fixtures/deadlines';

let h: WorkflowHarness;
let env: TestWorkflowEnvironment;
const req = { id: 'req_test', idempotency_key: null };
const completed = new Set<string>();
const result = async (id: string) => {
  const r = await env.client.workflow.getHandle(id).result();
  completed.add(id);
  return r;
};
const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';

beforeAll(async () => {
  h = await startWorkflowHarness();
  env = h.env;
}, 600_000);

afterAll(async () => {
  await h?.stop();
});

const items = async (runId: string) =>
  (await db().query(
    'SELECT id, status, failure_reason, return_reason, current_attempt_id FROM payroll_run_items WHERE run_id = $1 ORDER BY position',
    [runId],
  )) as Array<{ id: string; status: string; failure_reason: string | null; return_reason: string | null }>;
const types = async (id: string) =>
  (await db().query('SELECT type FROM events WHERE object_id = $1 ORDER BY seq', [id])).map((r: { type: string }) => r.type);

test('execution: paid by bank and wallet, one failing and one returned test account, one without a destination -> partial, each paid once', async () => {
  const dest = [usBank('000123456789'), usBank('000111111116'), usBank('000111111113'), wallet(WALLET), null];
  const { accountId, runId, itemIds } = await approvedRun([100000n, 200000n, 300000n, 50000n, 1000n], (i) => dest[i]);
  await wakePayrollRun(runId, accountId);
  await eventually(
    async () => (await env.client.workflow.getHandle(runId).query(payrollRunContract.queries.waitingFor)).startsWith('inbound funding'),
    'waiting for funding',
  );
  await markFunded(runId);
  await executeRun(systemScope(accountId, true, req), { id: runId });
  await wakePayrollRun(runId, accountId);
  expect(await result(runId)).toBe('partial');
  for (const id of itemIds) completed.add(id);

  expect((await items(runId)).map((i) => [i.status, i.failure_reason, i.return_reason])).toEqual([
    ['paid', null, null],
    ['failed', 'no_account', null],
    ['returned', null, 'R02 Account closed'],
    ['paid', null, null],
    ['failed', 'destination_missing', null],
  ]);
  const run = (await db().query('SELECT status, needs_attention, completed_at FROM payroll_runs WHERE id = $1', [runId]))[0];
  expect(run).toMatchObject({ status: 'partial', needs_attention: true });
  expect(run.completed_at).not.toBeNull();
  expect(await types(runId)).toEqual([
    'payroll_run.created',
    'payroll_run.approved',
    'payroll_run.execution_started',
    'payroll_run.partial',
  ]);
  expect(await types(itemIds[0])).toEqual(['payroll_item.payout_queued', 'payroll_item.payout_processing', 'payroll_item.payout_paid']);
  expect(await types(itemIds[2])).toEqual([
    'payroll_item.payout_queued',
    'payroll_item.payout_processing',
    'payroll_item.payout_paid',
    'payroll_item.payout_returned',
  ]);
  expect(await types(itemIds[4])).toEqual(['payroll_item.payout_failed']);
  // One provider payment per paid item; the wallet item is one USDC transfer of 500.00 USD at 1:1.
  for (const id of itemIds.slice(0, 3)) {
    expect((await db().query('SELECT count(*)::int AS n FROM sandbox_rail_payments WHERE client_reference = $1', [id]))[0].n).toBe(1);
  }
  const sent = await db().query(
    'SELECT amount_minor FROM sandbox_chain_transfers WHERE lower(to_address) = lower($1) AND idempotency_key = $2',
    [WALLET, `${itemIds[3]}:1`],
  );
  expect(sent).toEqual([{ amount_minor: '500000000' }]);
  // Each item is its own workflow, findable by the item id.
  expect(await env.client.workflow.getHandle(itemIds[0]).result()).toBe('paid');
});

test('every item paid -> completed; executing again returns the run unchanged; a re-started item workflow never pays twice', async () => {
  const { accountId, runId, itemIds } = await approvedRun([1000n, 2000n, 3000n], () => usBank('000123456789'));
  await markFunded(runId);
  const r = await executeRun(systemScope(accountId, true, req), { id: runId });
  expect(r.status).toBe('executing');
  expect((await executeRun(systemScope(accountId, true, req), { id: runId })).status).toBe('executing');
  await wakePayrollRun(runId, accountId);
  expect(await result(runId)).toBe('completed');
  expect((await items(runId)).every((i) => i.status === 'paid')).toBe(true);
  // An operator re-runs one item's workflow: it reads the item as paid and submits nothing.
  const again = await env.client.workflow.start('payrollItemWorkflow', {
    taskQueue: (await import('../../lib/config')).loadConfig().temporalTaskQueue,
    workflowId: itemIds[0],
    args: [{ itemId: itemIds[0] }],
  });
  expect(await again.result()).toBe('paid');
  expect((await db().query('SELECT count(*)::int AS n FROM sandbox_rail_payments WHERE client_reference = $1', [itemIds[0]]))[0].n).toBe(1);
  expect((await db().query('SELECT count(*)::int AS n FROM payroll_item_attempts WHERE item_id = $1', [itemIds[0]]))[0].n).toBe(1);
  let err: unknown = null;
  try {
    await executeRun(systemScope(accountId, true, req), { id: runId });
  } catch (e) {
    err = e;
  }
  expect(err).toMatchObject({ type: 'conflict', code: 'payroll_run_state_changed' });

  // Days later the recipient's bank returns item 2: its workflow starts again, records the return
  // with the bank's words, and the finished run reads needs_attention.
  await fiatRails().simulate(itemIds[1], { state: 'returned', reason: 'R03 No account' });
  expect(await notifyPayrollItemRailUpdate(itemIds[1])).toBe(true);
  await eventually(async () => (await items(runId))[1].status === 'returned', 'item returned');
  expect((await items(runId))[1].return_reason).toBe('R03 No account');
  expect((await db().query('SELECT status, needs_attention FROM payroll_runs WHERE id = $1', [runId]))[0]).toEqual({
    status: 'completed',
    needs_attention: true,
  });
  expect(await notifyPayrollItemRailUpdate('pri_unknown')).toBe(false);
});

test('execute refused while underfunded: 409 payroll_run_underfunded names the shortfall', async () => {
  const { accountId, runId } = await approvedRun([150000n], () => usBank('000123456789'));
  let err: unknown = null;
  try {
    await executeRun(systemScope(accountId, true, req), { id: runId });
  } catch (e) {
    err = e;
  }
  expect(err).toMatchObject({
    type: 'conflict',
    code: 'payroll_run_underfunded',
    details: { funding_state: 'unfunded', shortfall: { amount: '150000', currency: 'USD', decimals: 2 } },
  });
  await db().query(
    `UPDATE payroll_runs SET status = 'funded', funding_state = 'partially_funded', funding_confirmed_minor = 100000, funding_confirmed_currency = 'USD' WHERE id = $1`,
    [runId],
  );
  err = null;
  try {
    await executeRun(systemScope(accountId, true, req), { id: runId });
  } catch (e) {
    err = e;
  }
  expect(err).toMatchObject({
    code: 'payroll_run_underfunded',
    details: { funding_state: 'partially_funded', shortfall: { amount: '50000' } },
  });
});

test('cancel while funding: the workflow polls every five minutes, then ends cancelled on the signal', async () => {
  const { accountId, runId } = await approvedRun([1000n], () => usBank('000123456789'));
  await wakePayrollRun(runId, accountId);
  const handle = env.client.workflow.getHandle(runId);
  await eventually(
    async () => (await handle.query(payrollRunContract.queries.waitingFor)).startsWith('inbound funding'),
    'waiting for funding',
  );
  // The poll timer is the spec's five minutes: never longer, shorter only by the turn that started it.
  const poll = deadline('payroll_funding_poll');
  const timer = await eventually(async () => pendingTimer(env, runId), 'the funding poll timer');
  expect(timer!.fireAtMs - timer!.startedMs).toBeLessThanOrEqual(poll.ms);
  expect(timer!.fireAtMs - timer!.startedMs).toBeGreaterThan(poll.ms - poll.slackMs);
  const t0 = Date.now();
  await env.sleep('1 hour');
  const polls = (await handle.fetchHistory()).events!.filter(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'refreshPayrollFunding',
  ).length;
  console.log(`1 hour of funding polls: ${polls} polls in ${Date.now() - t0} ms`);
  expect(polls).toBeGreaterThanOrEqual(12);
  expect(polls).toBeLessThanOrEqual(14);
  await cancelRun(systemScope(accountId, true, req), { id: runId });
  await wakePayrollRun(runId, accountId);
  expect(await result(runId)).toBe('cancelled');
}, 300_000);

/** Bank funding instructions of `runId` through the product's command. */
async function bankInstructions(accountId: string, runId: string) {
  return requestFundingInstructions(systemScope(accountId, true, req), { id: runId });
}
/** The outside world: a bank transfer of `amount` cents with the run reference to the instructions' account. */
async function bankTransfer(at: { bank: Record<string, unknown> | null; run_reference: string }, amount: bigint) {
  await bankCollection().receive({
    rail: 'ach',
    currency: 'USD',
    amount,
    reference: at.run_reference,
    toAccount: String(at.bank!.account_number),
    senderName: 'Acme',
  });
}
const runRow = async (id: string) =>
  (await db().query('SELECT status, funding_state, needs_attention, funding_confirmed_minor FROM payroll_runs WHERE id = $1', [id]))[0];

test('funding over days: money arriving two days later is found by the next five-minute poll (no refresh), short then topped up, then executed', async () => {
  const { accountId, runId } = await approvedRun([60000n, 40000n], () => usBank('000123456789'));
  const at = await bankInstructions(accountId, runId);
  const handle = env.client.workflow.getHandle(runId);
  await eventually(
    async () => (await handle.query(payrollRunContract.queries.waitingFor)).startsWith('inbound funding'),
    'waiting for funding',
  );
  await env.sleep('2 days');
  expect(await runRow(runId)).toMatchObject({ status: 'funding_pending', funding_state: 'unfunded' });
  await bankTransfer(at, 70000n);
  await env.sleep('5 minutes');
  await eventually(async () => (await runRow(runId)).funding_state === 'partially_funded', 'partially funded by the poll');
  expect(await runRow(runId)).toMatchObject({ status: 'funded', needs_attention: true, funding_confirmed_minor: '70000' });
  expect(await handle.query(payrollRunContract.queries.waitingFor)).toMatch(
    /^POST \/payroll_runs\/\{id\}\/execute \(funding_state partially_funded\)/,
  );
  await bankTransfer(at, 30000n);
  await env.sleep('5 minutes');
  await eventually(async () => (await runRow(runId)).funding_state === 'funded', 'funded by the poll');
  expect(await runRow(runId)).toMatchObject({ needs_attention: false, funding_confirmed_minor: '100000' });
  expect((await types(runId)).filter((t: string) => t.startsWith('payroll_run.'))).toEqual([
    'payroll_run.created',
    'payroll_run.approved',
    'payroll_run.funding_instructions_requested',
    'payroll_run.funding_verified',
    'payroll_run.underfunded',
    'payroll_run.funding_instructions_verified',
  ]);
  await executeRun(systemScope(accountId, true, req), { id: runId });
  await wakePayrollRun(runId, accountId);
  expect(await result(runId)).toBe('completed');
}, 300_000);

test('overfunded: the surplus is recorded (needs_attention) and the run still executes', async () => {
  const { accountId, runId } = await approvedRun([10000n], () => usBank('000123456789'));
  const at = await bankInstructions(accountId, runId);
  await bankTransfer(at, 12500n);
  await env.sleep('5 minutes');
  await eventually(async () => (await runRow(runId)).funding_state === 'overfunded', 'overfunded by the poll');
  expect(await runRow(runId)).toMatchObject({ status: 'funded', needs_attention: true, funding_confirmed_minor: '12500' });
  await executeRun(systemScope(accountId, true, req), { id: runId });
  await wakePayrollRun(runId, accountId);
  expect(await result(runId)).toBe('completed');
}, 300_000);

test('replay: every completed payroll history replays against the current workflow code without nondeterminism', async () => {
  expect(completed.size).toBeGreaterThanOrEqual(4);
  const histories = await Promise.all(
    [...completed].map(async (workflowId) => ({ workflowId, history: await env.client.workflow.getHandle(workflowId).fetchHistory() })),
  );
  const results = Worker.runReplayHistories({ workflowsPath: require.resolve('../../workflows'), replayName: 'payroll-replay' }, histories);
  let n = 0;
  for await (const r of results) {
    expect(r.error).toBeUndefined();
    n++;
  }
  expect(n).toBe(completed.size);
}, 120_000);
