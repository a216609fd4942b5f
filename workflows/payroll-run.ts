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
 * - `returnFunds` (operator only; `npm run payroll:return`): returns the money the run
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
import { continueAsNew, executeChild, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { payrollRunContract, type PayrollRunActivities, type PayrollRunWorkflowArgs } from '../contracts/payroll-run';
import { activityOptions, again, done, isoAt, runObjectLoop, waitFor, workflowNowMs, type LoopControl } from './convention';
import { payrollItemWorkflow } from './payroll-item';

/** Database-only activities: the `database` profile. */
const db = proxyActivities<PayrollRunActivities>(activityOptions('database'));

/** Activities that read a provider (funding observations): the `provider` profile with 60 s to answer. */
const provider = proxyActivities<PayrollRunActivities>(activityOptions('provider', { startToCloseTimeout: '60 seconds' }));

/** Funding poll interval (spec 4.4, 8: "polled every 5 minutes"). */
export const FUNDING_POLL_MS = 5 * 60 * 1000;
/** Item payments in flight at once during an execution. */
export const EXECUTION_CONCURRENCY = 50;
/** How long a funds return in flight waits between rail re-reads when no notification comes. */
export const RETURN_POLL_MS = 60 * 60 * 1000;

/** Pays the unpaid items of an executing run, EXECUTION_CONCURRENCY at a time, each by its child workflow. */
async function executeItems(itemIds: string[], loop: LoopControl): Promise<void> {
  let next = 0;
  let finished = 0;
  const lane = async (): Promise<void> => {
    while (next < itemIds.length) {
      const itemId = itemIds[next++];
      // The child carries the run's AccountId, so an operator finds it by account as well as by item id.
      await executeChild(payrollItemWorkflow, {
        workflowId: itemId,
        args: [{ itemId }],
        typedSearchAttributes: workflowInfo().typedSearchAttributes,
      });
      finished++;
      loop.setWaitingFor(`paying items: ${finished} of ${itemIds.length} finished`);
    }
  };
  loop.setWaitingFor(`paying items: 0 of ${itemIds.length} finished`);
  await Promise.all(Array.from({ length: Math.min(EXECUTION_CONCURRENCY, itemIds.length) }, lane));
}

/** Runs payroll run `runId` until it is finished or cancelled; returns its final status. */
export async function payrollRunWorkflow(args: PayrollRunWorkflowArgs): Promise<string> {
  const { runId } = args;
  /** Operators' `returnFunds` requests not yet carried out (their reasons), oldest first. */
  const returnRequests: string[] = [];
  return runObjectLoop({
    contract: payrollRunContract,
    initially: 'loading the run',
    on: {
      returnFunds: (req?: { reason?: unknown }) => {
        returnRequests.push(typeof req?.reason === 'string' ? req.reason : '');
      },
    },
    safeToContinue: () => returnRequests.length === 0,
    continueAsNew: () => continueAsNew<typeof payrollRunWorkflow>({ runId }),
    // One turn: carries out an operator's return request, follows returns in flight, applies the run's state, then waits.
    step: async (loop) => {
      if (returnRequests.length > 0) {
        loop.setWaitingFor('returning the money owed back to its funding sources (idempotent by the return keys)');
        await provider.returnPayrollFunds(runId, returnRequests[0]);
        returnRequests.shift();
      }
      const st = await db.loadPayrollRunState(runId);
      let returnsInFlight = st.returns_in_flight ?? 0;
      if (returnsInFlight > 0) {
        loop.setWaitingFor('reading the funds returns in flight from their provider');
        returnsInFlight = (await provider.syncPayrollFundsReturns(runId)).in_flight;
      }
      switch (st.status) {
        case 'draft':
        case 'approved':
        case 'reviewed':
          return waitFor('approval (POST /payroll_runs/{id}/approve)');
        case 'funding_pending':
        case 'funded': {
          loop.setWaitingFor("reading the run's funding");
          const f = await provider.refreshPayrollFunding(runId);
          if (f.status !== st.status) return again();
          const nextPoll = workflowNowMs() + FUNDING_POLL_MS;
          return waitFor(
            st.status === 'funding_pending'
              ? `inbound funding (funding_state ${f.funding_state}); next poll at ${isoAt(nextPoll)}`
              : `POST /payroll_runs/{id}/execute (funding_state ${f.funding_state}); next funding poll at ${isoAt(nextPoll)}`,
            { atMs: nextPoll },
          );
        }
        case 'executing': {
          const unpaid = await db.payrollItemsToPay(runId);
          if (unpaid.length > 0) await executeItems(unpaid, loop);
          loop.setWaitingFor('recording the outcome of the execution');
          await db.finishPayrollExecution(runId);
          return again();
        }
        default: {
          if (loop.woken() || returnRequests.length > 0) return again();
          if (returnsInFlight > 0) {
            const nextRead = workflowNowMs() + RETURN_POLL_MS;
            return waitFor(`the rail to pay or fail ${returnsInFlight} funds return(s); next read at ${isoAt(nextRead)}`, {
              atMs: nextRead,
            });
          }
          return done(st.status, `nothing (${st.status})`);
        }
      }
    },
  });
}
