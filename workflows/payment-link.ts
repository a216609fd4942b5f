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
import { again, done, isoAt, proxyDatabaseActivities, runObjectLoop, waitFor, workflowNowMs } from './convention';
import { continueAsNew } from '@temporalio/workflow';
import { paymentLinkContract, type PaymentLinkActivities, type PaymentLinkWorkflowArgs } from '../contracts/payment-link';

/**
 * Runs the timers of link `linkId` until the link ends. Returns the final link status
 * (`missing` when the row is gone).
 */
export async function paymentLinkWorkflow(args: PaymentLinkWorkflowArgs): Promise<string> {
  const { linkId } = args;
  // Local activities in runs started with `localSteps` (convention.ts proxyDatabaseActivities).
  const acts = proxyDatabaseActivities<PaymentLinkActivities>(args.localSteps, {
    startToCloseTimeout: '1 minute',
    retry: { maximumInterval: '5 minutes' },
  });
  return runObjectLoop({
    contract: paymentLinkContract,
    initially: 'loading the link',
    continueAsNew: () => continueAsNew<typeof paymentLinkWorkflow>({ linkId, localSteps: true }),
    step: async (loop) => {
      const st = await acts.loadPaymentLinkState({ linkId });
      if (st.ended) return done(st.status ?? 'missing');
      const now = workflowNowMs();
      if (st.expiresAt !== null && st.expiresAt <= now) {
        loop.setWaitingFor('expiring the link');
        const r = await acts.expirePaymentLink({ linkId, at: now });
        if (r.paymentIds.length && r.accountId) {
          await acts.signalPaymentsLinkEnded({ paymentIds: r.paymentIds, accountId: r.accountId, reason: 'expired' });
        }
        return again();
      }
      if (st.nextReminderAt !== null && st.nextReminderAt <= now) {
        loop.setWaitingFor(`sending reminder ${st.reminderIndex + 1}`);
        await acts.sendPaymentLinkReminder({ linkId, index: st.reminderIndex, at: now });
        return again();
      }
      const wakes = [st.expiresAt, st.nextReminderAt].filter((t): t is number => t !== null);
      if (wakes.length === 0) return waitFor(`a change to the link (status ${st.status}; no reminder or expiry pending)`);
      const wakeAt = Math.min(...wakes);
      return waitFor(wakeAt === st.expiresAt ? `expiry at ${isoAt(wakeAt)}` : `reminder ${st.reminderIndex + 1} at ${isoAt(wakeAt)}`, {
        atMs: wakeAt,
      });
    },
  });
}
