/**
 * Contract of a customer's verification (workflows/customer.ts, workflow id = the customer id
 * `cus_...`; activities/customers/activities.ts `customerWorkflowActivities`).
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { VerificationState } from '../domain/customers';
import { defineContract } from './contract';

/** Arguments of customerWorkflow. */
export interface CustomerWorkflowArgs {
  customerId: string;
}

/** The activities customerWorkflow calls. */
export interface CustomerActivities {
  /** Reads the KYC provider's record of the customer and applies it; returns the verification state. */
  syncCustomerVerification(customerId: string): Promise<VerificationState>;
}

export const customerContract = defineContract<CustomerActivities>()({
  workflowType: 'customerWorkflow',
  idPrefix: 'cus_',
  startArgs: (customerId: string): [CustomerWorkflowArgs] => [{ customerId }],
  signals: {
    /** A verification link was issued or the provider decided: re-read now. */
    update: defineSignal('update'),
    /** Operator: the cause of a parked step was fixed; run it again. */
    retry: defineSignal('retry'),
  },
  queries: { waitingFor: defineQuery<string>('waiting_for') },
});
