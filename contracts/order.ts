/**
 * Contract of an order at its quote provider (workflows/order.ts, workflow id = the order id
 * `ord_...`; activities/orders/activities.ts `orderWorkflowActivities`).
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import { defineContract } from './contract';

/** Arguments of orderWorkflow (`originMs`: when the first run began, carried across continue-as-new). */
export interface OrderWorkflowArgs {
  orderId: string;
  originMs?: number;
}

/** One turn's answer: done, or when to look again (workflow time). */
export interface OrderProgress {
  done: boolean;
  status: string;
  wakeAtMs: number;
  waitingFor: string;
}

/** The activities orderWorkflow calls. */
export interface OrderActivities {
  /** One turn at workflow time `workflowNowMs` (object clock from `originMs`): placement, reports, deadlines. */
  advanceOrder(orderId: string, workflowNowMs: number, originMs?: number): Promise<OrderProgress>;
}

export const orderContract = defineContract<OrderActivities>()({
  workflowType: 'orderWorkflow',
  idPrefix: 'ord_',
  startArgs: (orderId: string): [OrderWorkflowArgs] => [{ orderId }],
  signals: {
    /** The provider reported, or a cancel was written. */
    update: defineSignal('update'),
    /** Operator: the cause of a parked step was fixed; run it again. */
    retry: defineSignal('retry'),
  },
  queries: { waitingFor: defineQuery<string>('waiting_for') },
});
