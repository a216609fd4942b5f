/**
 * Contract of a virtual account funding the wallet (workflows/virtual-account.ts, workflow id = the
 * account id `va_...`; activities/virtual-accounts/activities.ts `virtualAccountWorkflowActivities`).
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { VirtualAccountStatus } from '../domain/virtual-accounts';
import { defineContract } from './contract';

/** Arguments of virtualAccountWorkflow. */
export interface VirtualAccountWorkflowArgs {
  virtualAccountId: string;
}

/** The activities virtualAccountWorkflow calls. */
export interface VirtualAccountActivities {
  /** Settles every received credit (converted into the wallet, or returned); returns the account's status. */
  settleVirtualAccountCredits(virtualAccountId: string): Promise<{ status: VirtualAccountStatus; settled: number }>;
}

export const virtualAccountContract = defineContract<VirtualAccountActivities>()({
  workflowType: 'virtualAccountWorkflow',
  idPrefix: 'va_',
  startArgs: (virtualAccountId: string): [VirtualAccountWorkflowArgs] => [{ virtualAccountId }],
  signals: {
    /** A credit was recorded or the status changed: settle again now. */
    update: defineSignal('update'),
    /** Operator: the cause of a parked step was fixed; run it again. */
    retry: defineSignal('retry'),
  },
  queries: { waitingFor: defineQuery<string>('waiting_for') },
});
