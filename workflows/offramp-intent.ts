/**
 * One off-ramp to a bank (workflow id = the intent id `ofr_...`, AccountId; spec 2.5, 3, part 6
 * `offramp_intent.*`): waits for the transit deposit until the funding deadline, pays the bank
 * exactly once through the fiat rail (provider idempotency key `offramp:<id>`, so a crash between
 * `funds_received` and `payment_submitted` re-submits the same payment), follows the rail to
 * `payment_processed`, or returns the USDC (`refunded` / `refund_failed`). Each decision is an
 * activity's (activities/wallet/activities.ts) taken at workflow time; signals: `update` (the
 * transit deposit arrived, the rail moved, a cancel) and `retry` (an operator fixed a parked step).
 *
 * Deterministic and replay-safe (workflows/convention.ts); the state lives in PostgreSQL.
 */
import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import { offrampIntentContract, type OfframpActivities, type OfframpIntentWorkflowArgs } from '../contracts/offramp-intent';
import { activityOptions, continueAsNewIfDue, msUntil, parkForOperator, workflowNowMs } from './convention';

/** Provider calls: retried 2 s doubling to 5 min with no limit (the idempotency keys make retries safe). */
const act = proxyActivities<OfframpActivities>(activityOptions({ retry: { initialInterval: '2 seconds', maximumInterval: '5 minutes' } }));
const { signals, queries } = offrampIntentContract;

/** The contract's definitions under this module's older names (tests import them from here). */
export const offrampIntentWaitingForQuery = queries.waitingFor;

/** Follows intent `intentId` to a terminal state; returns it. */
export async function offrampIntentWorkflow(args: OfframpIntentWorkflowArgs): Promise<string> {
  // When this workflow began (carried across continue-as-new): the origin of the object's clock (domain/object-clock.ts).
  const originMs = args.originMs ?? workflowNowMs();
  let wake = false;
  let waitingFor = 'loading the off-ramp intent';
  setHandler(signals.update, () => { wake = true; });
  setHandler(signals.retry, () => { wake = true; });
  setHandler(queries.waitingFor, () => waitingFor);

  for (;;) {
    wake = false;
    try {
      const p = await act.advanceOfframp(args.intentId, workflowNowMs(), originMs);
      waitingFor = p.waitingFor;
      if (p.next === 'done') return p.status;
      if (p.next === 'submit') { await act.submitOfframpPayment(args.intentId); continue; }
      if (p.next === 'refund') { await act.refundOfframp(args.intentId); continue; }
      await condition(() => wake, msUntil(p.wakeAtMs ?? workflowNowMs() + 60_000));
      await continueAsNewIfDue<typeof offrampIntentWorkflow>(!wake, { ...args, originMs });
    } catch (e) {
      await parkForOperator(e, { setWaitingFor: (s) => { waitingFor = s; }, resumed: () => wake });
    }
  }
}
