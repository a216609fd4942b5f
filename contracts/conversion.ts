/**
 * Contract of a wallet conversion (workflows/conversion.ts, workflow id = the conversion id
 * `cnv_...`; activities/conversions/activities.ts `conversionWorkflowActivities`).
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import { defineContract } from './contract';

/** Arguments of conversionWorkflow (`originMs`: when the first run began, carried across continue-as-new). */
export interface ConversionWorkflowArgs {
  conversionId: string;
  originMs?: number;
}

/** A conversion as its workflow sees it; `createdAt` anchors its deadlines to the workflow's clock (domain/object-clock.ts). */
export interface ConversionState {
  status: string;
  terminal: boolean;
  signableUntil: string;
  confirmBy: string | null;
  createdAt: string;
}

/** The activities conversionWorkflow calls. */
export interface ConversionActivities {
  /** Checks a submitted conversion's transaction on the chain (settles or fails it); else unchanged. */
  checkConversion(conversionId: string): Promise<ConversionState>;
  /** At a deadline (workflow time): `failed` `expired` or `source_tx_not_found`. */
  expireConversion(conversionId: string): Promise<ConversionState>;
}

export const conversionContract = defineContract<ConversionActivities>()({
  workflowType: 'conversionWorkflow',
  idPrefix: 'cnv_',
  startArgs: (conversionId: string): [ConversionWorkflowArgs] => [{ conversionId }],
  signals: {
    /** The conversion changed (hash recorded): re-read now. */
    update: defineSignal('conversionUpdate'),
    /** Operator: the cause of a parked step was fixed; run it again. */
    retry: defineSignal('retry'),
  },
  queries: { waitingFor: defineQuery<string>('waiting_for') },
});
