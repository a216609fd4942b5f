/**
 * Contract of an off-ramp to a bank (workflows/offramp-intent.ts, workflow id = the intent id
 * `ofr_...`; activities/offramp-intents/activities.ts `offrampWorkflowActivities`).
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { OfframpStatus } from '../domain/offramp';
import { defineContract } from './contract';

/** Arguments of offrampIntentWorkflow (`originMs`: when the first run began, carried across continue-as-new). */
export interface OfframpIntentWorkflowArgs {
  intentId: string;
  originMs?: number;
}

/** What the workflow does next. */
export interface OfframpProgress {
  status: OfframpStatus;
  next: 'submit' | 'refund' | 'wait' | 'done';
  wakeAtMs: number | null;
  waitingFor: string;
}

/** The activities offrampIntentWorkflow calls. */
export interface OfframpActivities {
  /** Decides the next step at workflow time `workflowNowMs` (object clock from `originMs`). */
  advanceOfframp(intentId: string, workflowNowMs: number, originMs?: number): Promise<OfframpProgress>;
  /** Pays the bank once through the fiat rail (idempotency key `offramp:<id>`). */
  submitOfframpPayment(intentId: string): Promise<void>;
  /** Returns the USDC. */
  refundOfframp(intentId: string): Promise<void>;
}

export const offrampIntentContract = defineContract<OfframpActivities>()({
  workflowType: 'offrampIntentWorkflow',
  idPrefix: 'ofr_',
  startArgs: (intentId: string): [OfframpIntentWorkflowArgs] => [{ intentId }],
  signals: {
    /** The transit deposit arrived, the rail moved, or a cancel was written. */
    update: defineSignal('update'),
    /** Operator: the cause of a parked step was fixed; run it again. */
    retry: defineSignal('retry'),
  },
  queries: { waitingFor: defineQuery<string>('waiting_for') },
});
