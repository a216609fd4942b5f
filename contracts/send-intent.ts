/**
 * Contract of a send out of the wallet (workflows/send-intent.ts, workflow id = the intent id
 * `wsi_...`; activities/send-intents/activities.ts `sendIntentWorkflowActivities`).
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { SendIntentStatus } from '../domain/wallet-sends';
import { defineContract } from './contract';

/** Arguments of sendIntentWorkflow (`originMs`: when the first run began, carried across continue-as-new). */
export interface SendIntentWorkflowArgs {
  intentId: string;
  originMs?: number;
}

/** What the workflow does next: stop (terminal), or look again at `wakeAtMs` (workflow time) or when signalled. */
export interface SendProgress {
  status: SendIntentStatus;
  wakeAtMs: number | null;
  waitingFor: string;
}

/** The activities sendIntentWorkflow calls. */
export interface SendIntentActivities {
  /** Advances the intent as far as the facts allow at workflow time `workflowNowMs` (object clock from `originMs`). */
  advanceSendIntent(intentId: string, workflowNowMs: number, originMs?: number): Promise<SendProgress>;
}

export const sendIntentContract = defineContract<SendIntentActivities>()({
  workflowType: 'sendIntentWorkflow',
  idPrefix: 'wsi_',
  startArgs: (intentId: string): [SendIntentWorkflowArgs] => [{ intentId }],
  signals: {
    /** The intent changed (hash recorded, bridge moved): look again now. */
    update: defineSignal('update'),
    /** Operator: the cause of a parked step was fixed; run it again. */
    retry: defineSignal('retry'),
  },
  queries: { waitingFor: defineQuery<string>('waiting_for') },
});
