/**
 * One off-ramp to a bank (workflow id = the intent id `ofr_...`, AccountId; spec 2.5, 3, part 6
 * `offramp_intent.*`): waits for the transit deposit until the funding deadline, pays the bank
 * exactly once through the fiat rail (provider idempotency key `offramp:<id>`, so a crash between
 * `funds_received` and `payment_submitted` re-submits the same payment), follows the rail to
 * `payment_processed`, or returns the USDC (`refunded` / `refund_failed`). Each decision is an
 * activity's (activities/offramp-intents/activities.ts) taken at workflow time; signals: `update` (the
 * transit deposit arrived, the rail moved, a cancel) and `retry` (an operator fixed a parked step).
 *
 * Deterministic and replay-safe (workflows/convention.ts); the state lives in PostgreSQL.
 */
import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import { offrampIntentContract, type OfframpActivities, type OfframpIntentWorkflowArgs } from '../contracts/offramp-intent';
import { activityOptions, again, done, runObjectLoop, waitFor, workflowNowMs } from './convention';

/** Provider calls: the `provider` profile (the idempotency keys make retries safe). */
const act = proxyActivities<OfframpActivities>(activityOptions('provider'));

/** Follows intent `intentId` to a terminal state; returns it. */
export async function offrampIntentWorkflow(args: OfframpIntentWorkflowArgs): Promise<string> {
  // When this workflow began (carried across continue-as-new): the origin of the object's clock (domain/object-clock.ts).
  const originMs = args.originMs ?? workflowNowMs();
  return runObjectLoop({
    contract: offrampIntentContract,
    initially: 'loading the off-ramp intent',
    continueAsNew: () => continueAsNew<typeof offrampIntentWorkflow>({ ...args, originMs }),
    step: async (loop) => {
      const p = await act.advanceOfframp(args.intentId, workflowNowMs(), originMs);
      loop.setWaitingFor(p.waitingFor);
      if (p.next === 'done') return done(p.status, p.waitingFor);
      if (p.next === 'submit') {
        await act.submitOfframpPayment(args.intentId);
        return again();
      }
      if (p.next === 'refund') {
        await act.refundOfframp(args.intentId);
        return again();
      }
      return waitFor(p.waitingFor, { atMs: p.wakeAtMs ?? workflowNowMs() + 60_000 });
    },
  });
}
