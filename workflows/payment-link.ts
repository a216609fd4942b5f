/**
 * Payment link timers: one workflow per link (workflow id = `pl_...`; spec 2.3 ReminderSchedule,
 * 3, 4.1). Started by signalWithStart(`linkChanged`) at activation and signalled on every PATCH
 * of the link or its reminder schedule, on disable, cancel, and when a payment makes the link
 * paid or settled. It sleeps until the next reminder (days after activation, domain/reminders.ts)
 * or the link's `expires_at`, whichever comes first; sends the reminder or expires the link
 * through activities; on a signal it reloads the link and recomputes the next wake-up. It ends
 * when the link is paid, settled, cancelled, expired or refunded (or is no longer activated).
 * Deterministic: workflow APIs only; the clock is the workflow clock, passed to activities.
 * Operators see what it waits for through the `waiting_for` query. A non-retryable activity failure
 * parks the link for an operator (workflows/convention.ts); the `retry` signal (or a change) runs
 * the step again.
 */
import { activityOptions, continueAsNewIfDue, isoAt, msUntil, parkForOperator, workflowNowMs } from './convention';
import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import { paymentLinkContract, type PaymentLinkActivities, type PaymentLinkWorkflowArgs } from '../contracts/payment-link';

const acts = proxyActivities<PaymentLinkActivities>({
  startToCloseTimeout: '1 minute',
  retry: activityOptions({ retry: { maximumInterval: '5 minutes' } }).retry,
});
const { signals, queries } = paymentLinkContract;

/** The contract's definitions under this module's older names (tests import them from here). */
export const linkWaitingForQuery = queries.waitingFor;

/**
 * Runs the timers of link `linkId` until the link ends. Returns the final link status
 * (`missing` when the row is gone).
 */
export async function paymentLinkWorkflow(args: PaymentLinkWorkflowArgs): Promise<string> {
  const { linkId } = args;
  let changed = false;
  let waitingFor = 'loading the link';
  setHandler(signals.linkChanged, () => { changed = true; });
  setHandler(signals.retry, () => { changed = true; });
  setHandler(queries.waitingFor, () => waitingFor);

  /** One turn: reload, act on what is due, or wait. Returns the final status when the link ended. */
  const turn = async (): Promise<string | null> => {
    changed = false;
    const st = await acts.loadPaymentLinkState({ linkId });
    if (st.ended) {
      waitingFor = 'nothing (completed)';
      return st.status ?? 'missing';
    }
    const now = workflowNowMs();
    if (st.expiresAt !== null && st.expiresAt <= now) {
      waitingFor = 'expiring the link';
      const r = await acts.expirePaymentLink({ linkId, at: now });
      if (r.paymentIds.length && r.accountId) {
        await acts.signalPaymentsLinkEnded({ paymentIds: r.paymentIds, accountId: r.accountId, reason: 'expired' });
      }
      return null;
    }
    if (st.nextReminderAt !== null && st.nextReminderAt <= now) {
      waitingFor = `sending reminder ${st.reminderIndex + 1}`;
      await acts.sendPaymentLinkReminder({ linkId, index: st.reminderIndex, at: now });
      return null;
    }
    // A safe point: the next run reloads the link from PostgreSQL.
    await continueAsNewIfDue<typeof paymentLinkWorkflow>(true, { linkId });
    const wakes = [st.expiresAt, st.nextReminderAt].filter((t): t is number => t !== null);
    if (wakes.length === 0) {
      waitingFor = `a change to the link (status ${st.status}; no reminder or expiry pending)`;
      await condition(() => changed);
    } else {
      const wakeAt = Math.min(...wakes);
      waitingFor = wakeAt === st.expiresAt
        ? `expiry at ${isoAt(wakeAt)}`
        : `reminder ${st.reminderIndex + 1} at ${isoAt(wakeAt)}`;
      await condition(() => changed, msUntil(wakeAt));
    }
    return null;
  };

  for (;;) {
    try {
      const done = await turn();
      if (done !== null) return done;
    } catch (e) {
      await parkForOperator(e, { setWaitingFor: (s) => { waitingFor = s; }, resumed: () => changed });
    }
  }
}
