/**
 * Contract of a subscription's billing (workflows/subscription.ts, workflow id = the subscription id
 * `sub_...`; activities/subscriptions/activities.ts `subscriptionWorkflowActivities`).
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import { defineContract } from './contract';

/** Arguments of subscriptionWorkflow (`originMs`: when the first run began, carried across continue-as-new). */
export interface SubscriptionWorkflowArgs {
  subscriptionId: string;
  originMs?: number;
}

/** One turn's answer: done, or when to look again (workflow time). */
export interface SubscriptionProgress {
  done: boolean;
  status: string;
  wakeAtMs: number;
  waitingFor: string;
}

/** The activities subscriptionWorkflow calls. */
export interface SubscriptionActivities {
  /** One turn of billing at workflow time `workflowNowMs` (object clock from `originMs`). */
  advanceSubscription(subscriptionId: string, workflowNowMs: number, originMs?: number): Promise<SubscriptionProgress>;
}

export const subscriptionContract = defineContract<SubscriptionActivities>()({
  workflowType: 'subscriptionWorkflow',
  idPrefix: 'sub_',
  startArgs: (subscriptionId: string): [SubscriptionWorkflowArgs] => [{ subscriptionId }],
  signals: {
    /** Pause, resume or cancel was written. */
    update: defineSignal('changed'),
    /** Operator: the cause of a parked step was fixed; run it again. */
    retry: defineSignal('retry'),
  },
  queries: { waitingFor: defineQuery<string>('waiting_for') },
});
