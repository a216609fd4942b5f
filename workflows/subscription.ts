/**
 * One subscription's billing (workflow id = the subscription id `sub_...`, AccountId; spec 4.2,
 * part 6 `subscription.*`): sleeps to each period start and issues its invoice (each a pay-in
 * watched by its own payment workflow), marks an invoice overdue after the grace period, skips a
 * period that starts while paused, and ends when the subscription is cancelled or completed. Each
 * turn is one activity (activities/subscriptions/activities.ts `advanceSubscription`) taken at
 * the object's time. Signals: `changed` (pause, resume or cancel was written) and `retry` (an
 * operator fixed a parked step). Deterministic and replay-safe (workflows/convention.ts); the
 * state lives in PostgreSQL, so it continues as new at any wait.
 */
import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import { subscriptionContract, type SubscriptionActivities, type SubscriptionWorkflowArgs } from '../contracts/subscription';
import { activityOptions, continueAsNewIfDue, msUntil, parkForOperator, workflowNowMs } from './convention';

const act = proxyActivities<SubscriptionActivities>(activityOptions({ retry: { initialInterval: '2 seconds', maximumInterval: '5 minutes' } }));
const { signals, queries } = subscriptionContract;

/** The contract's definitions under this module's older names (tests import them from here). */
export const subscriptionWaitingForQuery = queries.waitingFor;

/** Bills subscription `subscriptionId` until it is cancelled or completed; returns that status. */
export async function subscriptionWorkflow(args: SubscriptionWorkflowArgs): Promise<string> {
  // When this workflow began (carried across continue-as-new): the origin of the object's clock (domain/object-clock.ts).
  const originMs = args.originMs ?? workflowNowMs();
  let wake = false;
  let waitingFor = 'loading the subscription';
  setHandler(signals.changed, () => { wake = true; });
  setHandler(signals.retry, () => { wake = true; });
  setHandler(queries.waitingFor, () => waitingFor);

  for (;;) {
    wake = false;
    try {
      const p = await act.advanceSubscription(args.subscriptionId, workflowNowMs(), originMs);
      waitingFor = p.waitingFor;
      if (p.done) return p.status;
      await condition(() => wake, msUntil(p.wakeAtMs));
      await continueAsNewIfDue<typeof subscriptionWorkflow>(!wake, { ...args, originMs });
    } catch (e) {
      await parkForOperator(e, { setWaitingFor: (s) => { waitingFor = s; }, resumed: () => wake });
    }
  }
}
