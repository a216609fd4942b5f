/**
 * Contract of one payroll item's payment (workflows/payroll-item.ts, workflow id = the item id
 * `pri_...`, a child of its run; activities/payroll/activities.ts `payrollItemWorkflowActivities`).
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { PayrollItemStatus } from '../domain/payroll';
import { defineContract } from './contract';

/** Arguments of payrollItemWorkflow. */
export interface PayrollItemWorkflowArgs {
  itemId: string;
}

/** The activities payrollItemWorkflow calls. */
export interface PayrollItemActivities {
  /** Submits the item's payment under its attempt's idempotency key; returns the item's status. */
  payPayrollItem(itemId: string): Promise<PayrollItemStatus>;
  /** Re-reads the payment from its provider; returns the item's status. */
  syncPayrollItem(itemId: string): Promise<PayrollItemStatus>;
}

export const payrollItemContract = defineContract<PayrollItemActivities>()({
  workflowType: 'payrollItemWorkflow',
  idPrefix: 'pri_',
  startArgs: (itemId: string): [PayrollItemWorkflowArgs] => [{ itemId }],
  signals: {
    /** The provider reported a change of this item's payment (e.g. a return): re-read it. */
    update: defineSignal('update'),
    /** Operator: the cause of a parked step was fixed; run the step again. */
    retry: defineSignal('retry'),
  },
  queries: { waitingFor: defineQuery<string>('waiting_for') },
});
