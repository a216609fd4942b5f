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
import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import { orderContract, type OrderActivities, type OrderWorkflowArgs } from '../contracts/order';
import { activityOptions, again, done, runObjectLoop, waitFor, workflowNowMs } from './convention';

/** Provider calls: the `provider` profile (placement is idempotent by order id). */
const act = proxyActivities<OrderActivities>(activityOptions('provider'));

/** Follows order `orderId` to a terminal status; returns it. */
export async function orderWorkflow(args: OrderWorkflowArgs): Promise<string> {
  // When this workflow began (carried across continue-as-new): the origin of the object's clock (domain/object-clock.ts).
  const originMs = args.originMs ?? workflowNowMs();
  return runObjectLoop({
    contract: orderContract,
    initially: 'loading the order',
    continueAsNew: () => continueAsNew<typeof orderWorkflow>({ ...args, originMs }),
    step: async (loop) => {
      const p = await act.advanceOrder(args.orderId, workflowNowMs(), originMs);
      loop.setWaitingFor(p.waitingFor);
      // A report that arrived during the turn (a refund of a failed order) is read before ending.
      if (p.done) return loop.woken() ? again() : done(p.status, p.waitingFor);
      return waitFor(p.waitingFor, { atMs: p.wakeAtMs });
    },
  });
}
