/**
 * One order (workflow id = the order id `ord_...`, AccountId; spec 2.10, 4.9, part 6 `order.*`):
 * follows the provider's order to a terminal status. Each turn is one activity
 * (activities/orders/activities.ts `advanceOrder`) taken at workflow time: it places the order if
 * the API could not (a crash between the insert and the provider call), applies the provider's
 * report (status, money state, failure, delivery), expires an unpaid order at its checkout or
 * deposit deadline, and says when to look again (the deadline, or a 10-minute poll when no report
 * arrives). Signals: `update` (the provider reported, or a cancel was written) and `retry` (an
 * operator fixed a parked step). Deterministic and replay-safe (workflows/convention.ts); the
 * state lives in PostgreSQL.
 */
import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import { orderContract, type OrderActivities, type OrderWorkflowArgs } from '../contracts/order';
import { activityOptions, continueAsNewIfDue, msUntil, parkForOperator, workflowNowMs } from './convention';

/** Provider calls: retried 2 s doubling to 5 min with no limit (placement is idempotent by order id). */
const act = proxyActivities<OrderActivities>(activityOptions({ retry: { initialInterval: '2 seconds', maximumInterval: '5 minutes' } }));
const { signals, queries } = orderContract;

/** The contract's definitions under this module's older names (tests import them from here). */
export const orderWaitingForQuery = queries.waitingFor;

/** Follows order `orderId` to a terminal status; returns it. */
export async function orderWorkflow(args: OrderWorkflowArgs): Promise<string> {
  // When this workflow began (carried across continue-as-new): the origin of the object's clock (domain/object-clock.ts).
  const originMs = args.originMs ?? workflowNowMs();
  let wake = false;
  let waitingFor = 'loading the order';
  setHandler(signals.update, () => { wake = true; });
  setHandler(signals.retry, () => { wake = true; });
  setHandler(queries.waitingFor, () => waitingFor);

  for (;;) {
    wake = false;
    try {
      const p = await act.advanceOrder(args.orderId, workflowNowMs(), originMs);
      waitingFor = p.waitingFor;
      // A report that arrived during the turn (a refund of a failed order) is read before ending.
      if (p.done && !wake) return p.status;
      if (p.done) continue;
      await condition(() => wake, msUntil(p.wakeAtMs));
      await continueAsNewIfDue<typeof orderWorkflow>(!wake, { ...args, originMs });
    } catch (e) {
      await parkForOperator(e, { setWaitingFor: (s) => { waitingFor = s; }, resumed: () => wake });
    }
  }
}
