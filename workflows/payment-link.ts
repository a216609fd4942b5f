/**
 * Payment link timers: one workflow per link (workflow id = `pl_...`; spec 2.3 ReminderSchedule,
 * 3, 4.1). Started by signalWithStart(`linkChanged`) at activation and signalled on every PATCH
 * of the link or its reminder schedule, on disable, cancel, and when a payment makes the link
 * paid or settled. It sleeps until the next reminder (days after activation, domain/reminders.ts)
 * or the link's `expires_at`, whichever comes first; sends the reminder or expires the link
 * through activities; on a signal it reloads the link and recomputes the next wake-up. It ends
 * when the link is paid, settled, cancelled, expired or refunded (or is no longer activated).
 * Deterministic: workflow APIs only; the clock is the workflow clock, passed to activities.
 * Operators see what it waits for through the `waiting_for` query.
 */
import { condition, continueAsNew, defineQuery, defineSignal, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { PaymentLinkWorkflowActivities } from '../activities/payment-links/activities';

const acts = proxyActivities<PaymentLinkWorkflowActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

/** Signal: the link or its reminder schedule changed; reload and re-plan. No arguments. */
export const linkChangedSignal = defineSignal('linkChanged');
/** Query: a human-readable description of what the workflow waits for. */
export const linkWaitingForQuery = defineQuery<string>('waiting_for');

/** History length after which the workflow continues as new (keeps long-lived links cheap to replay). */
const CONTINUE_AS_NEW_AFTER_EVENTS = 2000;

/**
 * Runs the timers of link `linkId` until the link ends. Returns the final link status
 * (`missing` when the row is gone).
 */
export async function paymentLinkWorkflow(args: { linkId: string }): Promise<string> {
  const { linkId } = args;
  let changed = false;
  let waitingFor = 'loading the link';
  setHandler(linkChangedSignal, () => { changed = true; });
  setHandler(linkWaitingForQuery, () => waitingFor);

  for (;;) {
    changed = false;
    const st = await acts.loadPaymentLinkState({ linkId });
    if (st.ended) {
      waitingFor = 'nothing (completed)';
      return st.status ?? 'missing';
    }
    const now = Date.now();
    if (st.expiresAt !== null && st.expiresAt <= now) {
      waitingFor = 'expiring the link';
      const r = await acts.expirePaymentLink({ linkId, at: now });
      if (r.paymentIds.length && r.accountId) {
        await acts.signalPaymentsLinkEnded({ paymentIds: r.paymentIds, accountId: r.accountId, reason: 'expired' });
      }
      continue;
    }
    if (st.nextReminderAt !== null && st.nextReminderAt <= now) {
      waitingFor = `sending reminder ${st.reminderIndex + 1}`;
      await acts.sendPaymentLinkReminder({ linkId, index: st.reminderIndex, at: now });
      continue;
    }
    if (workflowInfo().historyLength > CONTINUE_AS_NEW_AFTER_EVENTS) {
      await continueAsNew<typeof paymentLinkWorkflow>({ linkId });
    }
    const wakes = [st.expiresAt, st.nextReminderAt].filter((t): t is number => t !== null);
    if (wakes.length === 0) {
      waitingFor = `a change to the link (status ${st.status}; no reminder or expiry pending)`;
      await condition(() => changed);
    } else {
      const wakeAt = Math.min(...wakes);
      waitingFor = wakeAt === st.expiresAt
        ? `expiry at ${new Date(wakeAt).toISOString()}`
        : `reminder ${st.reminderIndex + 1} at ${new Date(wakeAt).toISOString()}`;
      await condition(() => changed, Math.max(1, wakeAt - now));
    }
  }
}
