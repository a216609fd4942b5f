/**
 * Contract of a payment link's timers (workflows/payment-link.ts, workflow id = the link id `pl_...`;
 * activities/payment-links/activities.ts `paymentLinkWorkflowActivities`). Activities take the
 * workflow's clock (`at`, epoch ms).
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { LinkStatus } from '../domain/payment-links';
import { defineContract } from './contract';

/** Arguments of paymentLinkWorkflow. */
export interface PaymentLinkWorkflowArgs {
  linkId: string;
  /** Local-activity steps (true in runs started with local steps; contracts/payment.ts `PaymentWorkflowArgs.localSteps`). */
  localSteps?: boolean;
}

/** What the link workflow needs to plan its next wake-up. Times are epoch milliseconds. */
export interface LinkWorkflowState {
  /** False when the row is gone. */
  exists: boolean;
  status: LinkStatus | null;
  /** True when the workflow has nothing left to do (not activated, or paid/settled/cancelled/expired/refunded). */
  ended: boolean;
  /** Expiry time for a link that can still expire (active, viewed, processing); else null. */
  expiresAt: number | null;
  /** Due time of the next reminder (view's `next_reminder_at`), or null. */
  nextReminderAt: number | null;
  /** Index of the next reminder (= reminders already sent). */
  reminderIndex: number;
}

/** The activities paymentLinkWorkflow calls. */
export interface PaymentLinkActivities {
  /** The link's current timers; corrupt stored data fails non-retryably (`LinkStateCorrupt`). */
  loadPaymentLinkState(args: { linkId: string }): Promise<LinkWorkflowState>;
  /** Expires the link at workflow time `at` when still expirable and due; returns the live payments it closed. */
  expirePaymentLink(args: { linkId: string; at: number }): Promise<{ expired: boolean; accountId: string | null; paymentIds: string[] }>;
  /** Sends reminder number `index` when still due at `at`. */
  sendPaymentLinkReminder(args: { linkId: string; index: number; at: number }): Promise<{ sent: boolean; emailId: string | null }>;
  /** Tells the payment workflows a link end closed (contracts/payment.ts `linkEnded`). */
  signalPaymentsLinkEnded(args: { paymentIds: string[]; accountId: string; reason: 'cancelled' | 'expired' }): Promise<void>;
}

export const paymentLinkContract = defineContract<PaymentLinkActivities>()({
  workflowType: 'paymentLinkWorkflow',
  idPrefix: 'pl_',
  startArgs: (linkId: string): [PaymentLinkWorkflowArgs] => [{ linkId, localSteps: true }],
  signals: {
    /** The link or its reminder schedule changed; reload and re-plan. No arguments. */
    update: defineSignal('linkChanged'),
    /** Operator: the cause of a parked step was fixed; run it again. No arguments. */
    retry: defineSignal('retry'),
  },
  queries: { waitingFor: defineQuery<string>('waiting_for') },
});
