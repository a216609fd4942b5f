/**
 * Contract of a wallet deposit from another chain (workflows/deposit-intent.ts, workflow id = the
 * intent id `dpi_...`; activities/deposit-intents/activities.ts `depositIntentWorkflowActivities`).
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import { defineContract } from './contract';

/** Arguments of depositIntentWorkflow (`originMs`: when the first run began, carried across continue-as-new). */
export interface DepositIntentWorkflowArgs {
  depositIntentId: string;
  originMs?: number;
}

/** What the deposit intent workflow needs after a step. */
export interface DepositIntentState {
  status: string;
  sourceChain: string;
  expiresAt: string;
  terminal: boolean;
  /** Anchors `expiresAt` to the workflow's clock (domain/object-clock.ts). */
  createdAt: string;
  /** True when the step changed the status (the workflow steps again at once). */
  changed: boolean;
}

/** The activities depositIntentWorkflow calls. */
export interface DepositIntentActivities {
  /** Moves the intent as far as the source chain and the bridge allow. */
  advanceDepositIntent(depositIntentId: string): Promise<DepositIntentState>;
  /** At `expires_at` (workflow time) with nothing arrived: `expired`. */
  expireDepositIntent(depositIntentId: string): Promise<DepositIntentState>;
}

export const depositIntentContract = defineContract<DepositIntentActivities>()({
  workflowType: 'depositIntentWorkflow',
  idPrefix: 'dpi_',
  startArgs: (depositIntentId: string): [DepositIntentWorkflowArgs] => [{ depositIntentId }],
  signals: {
    /** The chain or the bridge changed something for the intent: re-read now. */
    update: defineSignal('depositIntentUpdate'),
    /** Operator: the cause of a parked step was fixed; run it again. */
    retry: defineSignal('retry'),
  },
  queries: { waitingFor: defineQuery<string>('waiting_for') },
});
