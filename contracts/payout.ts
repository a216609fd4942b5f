/**
 * Contract of a payout's funding and execution (workflows/payout.ts, workflow id = the payout id
 * `po_...`; activities/payouts/activities.ts `payoutWorkflowActivities`).
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import { defineContract } from './contract';

/** Arguments of payoutWorkflow. */
export interface PayoutWorkflowArgs {
  payoutId: string;
}

/** What the payout workflow needs to decide its next step. */
export interface PayoutState {
  status: string;
  attemptId: string | null;
  /** Attempt still needs its provider transfer. */
  needsTransfer: boolean;
  /** Funding window end (ms since epoch) while awaiting funds. */
  expiresAtMs: number | null;
  pendingDepositIds: string[];
  /** USDC held for return, and whether it has somewhere to go. */
  held: boolean;
  canRefund: boolean;
  railPaymentId: string | null;
  terminal: boolean;
  /** Human-readable funding target for the `waiting_for` query. */
  fundingTarget: string | null;
}

/** The activities payoutWorkflow calls (database steps through its `db` proxy, provider calls through `provider`). */
export interface PayoutActivities {
  loadPayoutState(payoutId: string): Promise<PayoutState>;
  /** Provider call: the attempt's transfer (idempotent by the attempt id), at workflow time `nowMs`. */
  ensureProviderTransfer(payoutId: string, nowMs?: number): Promise<PayoutState>;
  applyPayoutDeposit(payoutId: string, depositId: string): Promise<PayoutState>;
  expirePayout(payoutId: string): Promise<PayoutState>;
  submitFiatPayment(payoutId: string): Promise<PayoutState>;
  /** Re-reads the rail payment; `notify`: the recipient is to be told (settled). */
  syncRailPayment(payoutId: string): Promise<PayoutState & { notify: boolean }>;
  refundHeldFunds(payoutId: string): Promise<PayoutState>;
  setPayoutNeedsAttention(payoutId: string, needsAttention: boolean): Promise<void>;
  notifyPayoutRecipient(payoutId: string): Promise<void>;
}

export const payoutContract = defineContract<PayoutActivities>()({
  workflowType: 'payoutWorkflow',
  idPrefix: 'po_',
  startArgs: (payoutId: string): [PayoutWorkflowArgs] => [{ payoutId }],
  signals: {
    /**
     * The payout changed: a funding attempt was recorded, a refund address set, USDC reached the
     * funding address, the provider changed a transfer or payment, or the payout was cancelled.
     * Re-read it. (Wire name `providerUpdate`, which every deployed payout workflow handles.)
     */
    update: defineSignal('providerUpdate'),
    /** Sets or clears `needs_attention`. */
    reconciliation: defineSignal<[{ needsAttention: boolean }]>('reconciliation'),
    /** Operator: the cause of a parked step was fixed; run the loop again. */
    retry: defineSignal('retry'),
  },
  queries: { waitingFor: defineQuery<string>('waiting_for') },
  // Wire names of earlier releases, each meaning `update`: workflows still accept them (histories, in-flight senders).
  legacySignals: {
    fund: defineSignal('fund'),
    payoutDeposit: defineSignal<[{ depositId: string }]>('payoutDeposit'),
    cancelled: defineSignal('cancelled'),
  },
});
