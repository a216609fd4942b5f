/**
 * Tier A: payrollRunWorkflow and payrollItemWorkflow logic with stub activities over an in-memory
 * run (no database, no provider): approval wait, the five-minute funding poll (exact timers) with
 * funding arriving after days, execution through child workflows with at most 50 item payments in
 * flight, an item whose payment is still processing, cancel while funding, parking on a
 * non-retryable failure and the `retry` signal, and the operator's `returnFunds` on a run whose
 * workflow had ended (started again, each request carried out in order, a return in flight
 * re-read every hour until the rail answers).
 */
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { payrollItemContract } from '../../../contracts/payroll-item';
import type { FundingState, PayrollItemStatus, PayrollRunStatus } from '../../../domain/payroll';
import { payrollRunContract } from '../../../contracts/payroll-run';
import { FUNDING_POLL_MS, payrollRunWorkflow, RETURN_POLL_MS } from '../../../workflows/payroll-run';
import { gate, startLogicEnv, timersOf, uid, waitingFor, withWorker, type Stubs } from './harness';

const {
  retry: payrollRunRetrySignal,
  returnFunds: payrollRunReturnFundsSignal,
  update: payrollRunUpdateSignal,
} = payrollRunContract.signals;
const payrollItemUpdateSignal = payrollItemContract.signals.update;
/** The run's worker also runs its items' child workflows: the stubs serve both contracts. */
const RUN_AND_ITEMS = [payrollRunContract, payrollItemContract] as const;

/** The in-memory run the stubs read and change; `log` records calls; `inFlight` / `maxInFlight` count item payments. */
function model(status: PayrollRunStatus, items = 0) {
  const run: { status: PayrollRunStatus; funding_state: FundingState; fundedAtPoll: number; polls: number } = {
    status,
    funding_state: 'unfunded',
    fundedAtPoll: -1,
    polls: 0,
  };
  const item = new Map<string, PayrollItemStatus>(Array.from({ length: items }, (_, i) => [`pri_${i}`, 'pending']));
  const counters = { inFlight: 0, maxInFlight: 0 };
  const log: string[] = [];
  const acts: Stubs<typeof RUN_AND_ITEMS> = {
    loadPayrollRunState: async () => ({ status: run.status }),
    refreshPayrollFunding: async () => {
      run.polls++;
      if (run.fundedAtPoll >= 0 && run.polls >= run.fundedAtPoll && run.status === 'funding_pending') {
        run.status = 'funded';
        run.funding_state = 'funded';
      }
      return { status: run.status, funding_state: run.funding_state };
    },
    payrollItemsToPay: async () => [...item.entries()].filter(([, s]) => s !== 'paid' && s !== 'failed').map(([id]) => id),
    finishPayrollExecution: async () => {
      log.push('finish');
      run.status = [...item.values()].every((s) => s === 'paid') ? 'completed' : 'partial';
      return run.status;
    },
    payPayrollItem: async (id: string) => {
      counters.inFlight++;
      counters.maxInFlight = Math.max(counters.maxInFlight, counters.inFlight);
      await new Promise((r) => setTimeout(r, 5));
      counters.inFlight--;
      if (item.get(id) === 'pending') item.set(id, id === 'pri_3' ? 'processing' : 'paid');
      return item.get(id)!;
    },
    syncPayrollItem: async (id: string) => item.get(id)!,
  };
  return { run, item, counters, log, acts };
}

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startLogicEnv();
}, 120_000);
afterAll(async () => {
  await env?.teardown();
});

const start = (taskQueue: string, runId = uid('pr_')) =>
  env.client.workflow.start(payrollRunWorkflow, { taskQueue, workflowId: runId, args: [{ runId }] });

test('reviewed waits for approval; funding_pending polls every five minutes; funding two days later is seen within one poll', async () => {
  const m = model('reviewed');
  await withWorker(env, RUN_AND_ITEMS, m.acts, async (tq) => {
    const h = await start(tq);
    expect(await waitingFor(h, /^approval/)).toBe('approval (POST /payroll_runs/{id}/approve)');
    m.run.status = 'funding_pending';
    m.run.fundedAtPoll = 2 * 24 * 12 + 1; // the first poll after two days
    await h.signal(payrollRunUpdateSignal);
    await waitingFor(h, /^inbound funding/);
    await env.sleep('2 days');
    await env.sleep('5 minutes');
    await waitingFor(h, /^POST \/payroll_runs\/\{id\}\/execute \(funding_state funded\)/);
    expect(m.run.polls).toBeGreaterThanOrEqual(2 * 24 * 12 + 1);
    m.run.status = 'cancelled';
    await h.signal(payrollRunUpdateSignal);
    expect(await h.result()).toBe('cancelled');
    // Every wait between polls is exactly five minutes (the last run's history; earlier runs continued as new).
    const timers = await timersOf(h);
    expect(timers.length).toBeGreaterThan(0);
    expect(new Set(timers)).toEqual(new Set([FUNDING_POLL_MS]));
  });
}, 120_000);

test('execution: 120 items through child workflows, at most 50 payments in flight, one item still processing until the rail answers', async () => {
  const m = model('executing', 120);
  await withWorker(env, RUN_AND_ITEMS, m.acts, async (tq) => {
    const h = await start(tq);
    await waitingFor(h, /^paying items: 119 of 120 finished/, 30_000);
    expect(m.counters.maxInFlight).toBeLessThanOrEqual(50);
    expect(m.counters.maxInFlight).toBeGreaterThan(1);
    // pri_3 waits for the rail; its own workflow is findable by the item id.
    const child = env.client.workflow.getHandle('pri_3');
    expect(await waitingFor(child, /^the rail/)).toBe('the rail to pay, fail or return the payment');
    m.item.set('pri_3', 'paid');
    await child.signal(payrollItemUpdateSignal);
    expect(await h.result()).toBe('completed');
    expect(m.log).toEqual(['finish']);
  });
}, 120_000);

test('a non-retryable failure parks the run for an operator; the retry signal runs the step again', async () => {
  const m = model('funding_pending');
  let fail = true;
  const held = gate();
  const acts: Stubs<typeof RUN_AND_ITEMS> = {
    ...m.acts,
    refreshPayrollFunding: async () => {
      if (fail) {
        held.open();
        throw ApplicationFailure.nonRetryable('payroll run gone', 'NotFound');
      }
      return { status: 'cancelled', funding_state: 'unfunded' };
    },
    loadPayrollRunState: async () => ({ status: fail ? 'funding_pending' : 'cancelled' }),
  };
  await withWorker(env, RUN_AND_ITEMS, acts, async (tq) => {
    const h = await start(tq);
    await held.promise;
    expect(await waitingFor(h, /^an operator/)).toMatch(/NotFound: payroll run gone/);
    fail = false;
    await h.signal(payrollRunRetrySignal);
    expect(await h.result()).toBe('cancelled');
  });
}, 60_000);

test('returnFunds on an ended run: started again, each request carried out in order, a return in flight re-read every hour until paid', async () => {
  const m = model('cancelled');
  const reasons: string[] = [];
  let inFlight = 0;
  let reads = 0;
  const acts: Stubs<typeof RUN_AND_ITEMS> = {
    ...m.acts,
    loadPayrollRunState: async () => ({ status: m.run.status, returns_in_flight: inFlight }),
    returnPayrollFunds: async (_id: string, reason: string) => {
      reasons.push(reason);
      const created = reasons.length === 1 ? 1 : 0; // the second request finds nothing outstanding
      inFlight += created;
      return { created, in_flight: inFlight, unreturned: true };
    },
    syncPayrollFundsReturns: async () => {
      reads++;
      if (reads >= 3) inFlight = 0; // the rail pays it on the third read
      return { in_flight: inFlight };
    },
  };
  await withWorker(env, RUN_AND_ITEMS, acts, async (tq) => {
    const runId = uid('pr_');
    const first = await start(tq, runId);
    expect(await first.result()).toBe('cancelled');
    const h = await env.client.workflow.signalWithStart(payrollRunWorkflow, {
      taskQueue: tq,
      workflowId: runId,
      args: [{ runId }],
      signal: payrollRunReturnFundsSignal,
      signalArgs: [{ reason: 'owed back' }],
    });
    await h.signal(payrollRunReturnFundsSignal, { reason: 'again' });
    await waitingFor(h, /^the rail to pay or fail 1 funds return/);
    expect(h.signaledRunId).not.toBe(first.firstExecutionRunId);
    await env.sleep('2 hours');
    expect(await h.result()).toBe('cancelled');
    expect(reasons).toEqual(['owed back', 'again']);
    expect(reads).toBeGreaterThanOrEqual(3);
    expect(new Set(await timersOf(h))).toEqual(new Set([RETURN_POLL_MS]));
  });
}, 120_000);
