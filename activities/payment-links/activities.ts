/**
 * The payment link workflow's activities (contracts/payment-link.ts; spec 4.1): load its timers,
 * expire the link, send a due reminder, tell the payments a link end closed. They take the
 * workflow's clock (`at`, epoch ms) so that time-skipped tests and production agree. Every status
 * change is written by activities/records/payment-links.ts. The worker registers
 * `paymentLinkWorkflowActivities`.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { LinkWorkflowState, PaymentLinkActivities } from '../../contracts/payment-link';
import { LINK_EXPIRABLE_STATUSES, LINK_WORKFLOW_END_STATUSES } from '../../domain/payment-links';
import { linkNextReminderAt } from '../../domain/reminders';
import { Account, PaymentLink } from '../../entities';
import { db, transaction } from '../../lib/db';
import { linkViewContext } from '../../lib/rails-availability';
import { emailProvider } from '../../providers/email';
import { paymentLinkView } from '../../views/payment-link';
import { closeLivePaymentsForLink } from '../payments/links';
import { signalLinkEndedToPayments } from '../payments/signals';
import { linkEmailBody } from './emails';
import { emitLinkEvent, expirePaymentLink as expireLink } from '../records/payment-links';

/** Activity: the link's current timers (contracts/payment-link.ts `LinkWorkflowState`). Corrupt stored data fails non-retryably. */
export async function loadPaymentLinkState(args: { linkId: string }): Promise<LinkWorkflowState> {
  const link = await db().getRepository(PaymentLink).findOneBy({ id: args.linkId });
  if (!link) return { exists: false, status: null, ended: true, expiresAt: null, nextReminderAt: null, reminderIndex: 0 };
  const ended = link.status === 'draft' || LINK_WORKFLOW_END_STATUSES.includes(link.status);
  let next: Date | null;
  try {
    next = ended ? null : linkNextReminderAt(link);
  } catch (e) {
    throw ApplicationFailure.nonRetryable(`payment link ${link.id} has an unusable reminder schedule: ${String(e)}`, 'LinkStateCorrupt');
  }
  return {
    exists: true,
    status: link.status,
    ended,
    expiresAt: !ended && link.expires_at ? link.expires_at.getTime() : null,
    nextReminderAt: next ? next.getTime() : null,
    reminderIndex: link.reminder_schedule?.sent?.length ?? 0,
  };
}

/**
 * Activity: expires the link at the workflow's time `at` when it is still active, viewed or
 * processing and `expires_at <= at`: status `expired`, `partial_payment` cleared, live payments
 * closed in the same transaction (`closeLivePaymentsForLink(m, link, 'expired', null)`), event
 * `payment_link.expired`. Idempotent (a second call changes nothing). Returns the closed payment
 * ids for `signalPaymentsLinkEnded`.
 */
export async function expirePaymentLink(args: {
  linkId: string;
  at: number;
}): Promise<{ expired: boolean; accountId: string | null; paymentIds: string[] }> {
  return transaction(async (m) => {
    const link = await m.findOne(PaymentLink, { where: { id: args.linkId }, lock: { mode: 'pessimistic_write' } });
    if (!link) return { expired: false, accountId: null, paymentIds: [] };
    if (!LINK_EXPIRABLE_STATUSES.includes(link.status) || !link.expires_at || link.expires_at.getTime() > args.at) {
      return { expired: false, accountId: link.account_id, paymentIds: [] };
    }
    const { paymentIds } = await expireLink(
      m,
      link,
      { at: new Date(args.at), closePayments: (ended) => closeLivePaymentsForLink(m, ended, 'expired', null) },
      null,
    );
    return { expired: true, accountId: link.account_id, paymentIds };
  });
}

/** Activity: tells the payment workflows closed by a link end (activities/payments/signals.ts `signalLinkEndedToPayments`). */
export async function signalPaymentsLinkEnded(args: {
  paymentIds: string[];
  accountId: string;
  reason: 'cancelled' | 'expired';
}): Promise<void> {
  if (args.paymentIds.length) await signalLinkEndedToPayments(args.paymentIds, args.accountId, args.reason);
}

/**
 * Activity: sends reminder number `index` when it is still due at the workflow's time `at`
 * (schedule on, link remindable, exactly `index` reminders sent, due time <= `at`): emails the
 * payer through the email provider (idempotent by link, index and due time), appends `at` to
 * `reminder_schedule.sent` and emits `payment_link.reminder_sent`, in one transaction holding the
 * link's row lock. Returns `{ sent: false }` when the reminder is no longer due.
 */
export async function sendPaymentLinkReminder(args: {
  linkId: string;
  index: number;
  at: number;
}): Promise<{ sent: boolean; emailId: string | null }> {
  return transaction(async (m) => {
    const link = await m.findOne(PaymentLink, { where: { id: args.linkId }, lock: { mode: 'pessimistic_write' } });
    if (!link) return { sent: false, emailId: null };
    const due = linkNextReminderAt(link);
    if (!due || (link.reminder_schedule.sent?.length ?? 0) !== args.index || due.getTime() > args.at) return { sent: false, emailId: null };
    const [account, vctx] = await Promise.all([m.findOneByOrFail(Account, { id: link.account_id }), linkViewContext(link.account_id)]);
    const view = paymentLinkView(link, vctx);
    const email = await emailProvider().send({
      to: link.payer_email!,
      template: 'payment_link_reminder',
      accountId: link.account_id,
      relatedObjectId: link.id,
      subject: `Reminder from ${account.display_name}: ${link.title} (${link.reference_id})`,
      body: linkEmailBody(link, String(view.url), account.display_name, 'reminder'),
      idempotencyKey: `reminder:${link.id}:${args.index}:${due.toISOString()}`,
    });
    link.reminder_schedule = { ...link.reminder_schedule, sent: [...link.reminder_schedule.sent, new Date(args.at).toISOString()] };
    await m.save(link);
    const saved = await m.findOneByOrFail(PaymentLink, { id: link.id });
    await emitLinkEvent(m, saved, 'payment_link.reminder_sent', null);
    return { sent: true, emailId: email.id };
  });
}

/** The activities of contracts/payment-link.ts (and only those): what the worker registers for paymentLinkWorkflow. */
export const paymentLinkWorkflowActivities = {
  loadPaymentLinkState,
  expirePaymentLink,
  sendPaymentLinkReminder,
  signalPaymentsLinkEnded,
} satisfies PaymentLinkActivities;
