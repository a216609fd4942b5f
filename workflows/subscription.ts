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
import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import { subscriptionContract, type SubscriptionActivities, type SubscriptionWorkflowArgs } from '../contracts/subscription';
import { activityOptions, done, runObjectLoop, waitFor, workflowNowMs } from './convention';

const act = proxyActivities<SubscriptionActivities>(activityOptions('provider'));

/** Bills subscription `subscriptionId` until it is cancelled or completed; returns that status. */
export async function subscriptionWorkflow(args: SubscriptionWorkflowArgs): Promise<string> {
  // When this workflow began (carried across continue-as-new): the origin of the object's clock (domain/object-clock.ts).
  const originMs = args.originMs ?? workflowNowMs();
  return runObjectLoop({
    contract: subscriptionContract,
    initially: 'loading the subscription',
    continueAsNew: () => continueAsNew<typeof subscriptionWorkflow>({ ...args, originMs }),
    step: async () => {
      const p = await act.advanceSubscription(args.subscriptionId, workflowNowMs(), originMs);
      if (p.done) return done(p.status, p.waitingFor);
      return waitFor(p.waitingFor, { atMs: p.wakeAtMs });
    },
  });
}
