/**
 * Payroll run: one workflow per run (workflow id = `pr_...`; spec 2.7, 3, 4.4, 8). Started
 * (signalWithStart `update`) when the run is approved. It holds the funding poll and the
 * execution:
 * - `funding_pending` / `funded`: re-reads the run's funding every five minutes (spec 4.4 "Funding
 *   status updates come from a five-minute poll"; the funding POST re-checks at once and signals
 *   `update`), until the run executes or is cancelled;
 * - `executing`: pays every item through its own child workflow (workflows/payroll-item.ts,
 *   workflow id = the item id `pri_...`, findable and retryable in the Temporal UI), at most
 *   EXECUTION_CONCURRENCY at once, then records the outcome (`completed`, `partial`, `failed`);
 * - `returnFunds` (operator only, issue 24; `npm run payroll:return`): returns the money the run
 *   owes back (domain/payroll-returns.ts: a cancelled run's funding, a finished run's unpaid items
 *   and overfunding) to its funding sources, then follows returns in flight until the rail pays or
 *   fails them. Sent with signalWithStart, so a run whose workflow has ended starts it again; a
 *   repeated signal finds nothing outstanding and returns nothing twice.
 * Operators find it by run id or AccountId and see what it waits for through `waiting_for`.
 *
 * Deterministic and replay-safe (workflows/convention.ts): every decision comes from activity
 * results, signals and the workflow clock. All state lives in PostgreSQL, so each turn re-reads it
 * and the workflow may continue-as-new between turns (never during an execution pass).
 */
import { condition, executeChild, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import { payrollRunContract, type PayrollRunActivities, type PayrollRunWorkflowArgs } from '../contracts/payroll-run';
import { activityOptions, continueAsNewIfDue, isoAt, msUntil, parkForOperator, workflowNowMs } from './convention';
import { payrollItemWorkflow } from './payroll-item';

/** Database-only activities: 30 s, retried 1 s doubling to 1 min without limit. */
const db = proxyActivities<PayrollRunActivities>(activityOptions());

/** Activities that read a provider (funding observations): 60 s, retried 2 s doubling to 5 min without limit. */
const provider = proxyActivities<PayrollRunActivities>(activityOptions({
  startToCloseTimeout: '60 seconds', retry: { initialInterval: '2 seconds', maximumInterval: '5 minutes' },
}));

const { signals, queries } = payrollRunContract;

/** The contract's definitions under this module's older names (tests import them from here). */
export const payrollRunWaitingForQuery = queries.waitingFor;

/** Funding poll interval (spec 4.4, 8: "polled every 5 minutes"). */
export const FUNDING_POLL_MS = 5 * 60 * 1000;
/** Item payments in flight at once during an execution. */
export const EXECUTION_CONCURRENCY = 50;
/** How long a funds return in flight waits between rail re-reads when no notification comes. */
export const RETURN_POLL_MS = 60 * 60 * 1000;

/** Runs payroll run `runId` until it is finished or cancelled; returns its final status. */
export async function payrollRunWorkflow(args: PayrollRunWorkflowArgs): Promise<string> {
  const { runId } = args;
  let wake = false;
  let waitingFor = 'loading the run';
  /** Operators' `returnFunds` requests not yet carried out (their reasons), oldest first. */
  const returnRequests: string[] = [];
  const kick = () => { wake = true; };
  setHandler(signals.update, kick);
  setHandler(signals.retry, kick);
  setHandler(signals.returnFunds, (req) => {
    returnRequests.push(typeof req?.reason === 'string' ? req.reason : '');
    wake = true;
  });
  setHandler(queries.waitingFor, () => waitingFor);

  /** Pays the unpaid items of an executing run, EXECUTION_CONCURRENCY at a time, each by its child workflow. */
  const executeItems = async (itemIds: string[]): Promise<void> => {
    let next = 0;
    let done = 0;
    const lane = async (): Promise<void> => {
      while (next < itemIds.length) {
        const itemId = itemIds[next++];
        // The child carries the run's AccountId, so an operator finds it by account as well as by item id.
        await executeChild(payrollItemWorkflow, { workflowId: itemId, args: [{ itemId }], typedSearchAttributes: workflowInfo().typedSearchAttributes });
        done++;
        waitingFor = `paying items: ${done} of ${itemIds.length} finished`;
      }
    };
    waitingFor = `paying items: 0 of ${itemIds.length} finished`;
    await Promise.all(Array.from({ length: Math.min(EXECUTION_CONCURRENCY, itemIds.length) }, lane));
  };

  /** One turn: carries out an operator's return request, follows returns in flight, applies the run's state, then waits. Returns the final status when done. */
  const turn = async (): Promise<string | null> => {
    wake = false;
    if (returnRequests.length > 0) {
      waitingFor = 'returning the money owed back to its funding sources (idempotent by the return keys)';
      await provider.returnPayrollFunds(runId, returnRequests[0]);
      returnRequests.shift();
    }
    const st = await db.loadPayrollRunState(runId);
    let returnsInFlight = st.returns_in_flight ?? 0;
    if (returnsInFlight > 0) {
      waitingFor = 'reading the funds returns in flight from their provider';
      returnsInFlight = (await provider.syncPayrollFundsReturns(runId)).in_flight;
    }
    switch (st.status) {
      case 'draft':
      case 'approved':
      case 'reviewed':
        waitingFor = 'approval (POST /payroll_runs/{id}/approve)';
        await condition(() => wake);
        return null;
      case 'funding_pending':
      case 'funded': {
        waitingFor = 'reading the run\'s funding';
        const f = await provider.refreshPayrollFunding(runId);
        if (f.status !== st.status) return null;
        const nextPoll = workflowNowMs() + FUNDING_POLL_MS;
        waitingFor = st.status === 'funding_pending'
          ? `inbound funding (funding_state ${f.funding_state}); next poll at ${isoAt(nextPoll)}`
          : `POST /payroll_runs/{id}/execute (funding_state ${f.funding_state}); next funding poll at ${isoAt(nextPoll)}`;
        await condition(() => wake, msUntil(nextPoll));
        return null;
      }
      case 'executing': {
        const unpaid = await db.payrollItemsToPay(runId);
        if (unpaid.length > 0) await executeItems(unpaid);
        waitingFor = 'recording the outcome of the execution';
        await db.finishPayrollExecution(runId);
        return null;
      }
      default: {
        if (wake || returnRequests.length > 0) return null;
        if (returnsInFlight > 0) {
          const nextRead = workflowNowMs() + RETURN_POLL_MS;
          waitingFor = `the rail to pay or fail ${returnsInFlight} funds return(s); next read at ${isoAt(nextRead)}`;
          await condition(() => wake, msUntil(nextRead));
          return null;
        }
        waitingFor = `nothing (${st.status})`;
        return st.status;
      }
    }
  };

  for (;;) {
    await continueAsNewIfDue<typeof payrollRunWorkflow>(!wake && returnRequests.length === 0, { runId });
    try {
      const done = await turn();
      if (done !== null) return done;
    } catch (e) {
      await parkForOperator(e, { setWaitingFor: (s) => { waitingFor = s; }, resumed: () => wake });
    }
  }
}
