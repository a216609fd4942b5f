/**
 * Contract of a pay-in on the native, transfer and bank rails (workflows/payment.ts, workflow id =
 * the payment id `pay_...`; activities/payments/activities.ts `paymentWorkflowActivities`). Its
 * `deposit`, `linkEnded` and `retry` signals and `waiting_for` query are shared by the
 * cross-network watcher (contracts/xchain-payment.ts).
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { PaymentStatus } from '../domain/verdicts';
import { defineContract } from './contract';

/**
 * Arguments of paymentWorkflow (`originMs`: when the first run began, carried across
 * continue-as-new; the origin of the object's clock; `localSteps`: the run calls its steps as local
 * activities, true in every run started by this build, absent in runs started by earlier builds, which keep
 * their remote activities: workflows/convention.ts proxyDatabaseActivities).
 */
export interface PaymentWorkflowArgs {
  paymentId: string;
  originMs?: number;
  localSteps?: boolean;
}

/** What the payment workflow plans with. */
export interface PaymentState {
  status: PaymentStatus;
  /** ISO time the deposit window closes. */
  expiresAt: string;
  /** ISO creation time: anchors `expiresAt` to a workflow's clock (domain/object-clock.ts). */
  createdAt: string;
  /** Wall-clock ms when the activity read the payment (the object clock's wall reading; absent in results recorded before it existed). */
  readAtMs?: number;
  /**
   * What was recorded but not yet applied (oldest first): chain deposits (`dep_`), bank credits
   * (`bcr_`) and bank returns (`return:<bcr_ id>`); the workflow applies them in order.
   */
  pendingDepositIds: string[];
  /** True when the payment needs settling (paid/overpaid, no settlement in flight). */
  needsSettlement: boolean;
  /** How it settles: `wallet` (chain transfer), `bank` (fiat rail payout to the merchant's bank), null (not by this workflow). */
  settlement: string | null;
  /** True while a bank settlement payout is in flight (the fiat rail has not reported its outcome). */
  settlementPending: boolean;
  /** True when the merchant refunded the payment and the money has not been sent back yet. */
  needsRefund: boolean;
  /** True while the refund payout is in flight (the rail has not reported it paid). */
  refundPending: boolean;
  /** True when nothing remains to watch. */
  done: boolean;
}

/**
 * Result of an activity that may move the link: the watch state plus whether the link reached
 * paid/settled or reopened. `linkNotified`: the activity's own transaction recorded the link
 * workflow's signal (activities/payments/links.ts, performed after commit durably), so the workflow
 * calls `notifyLinkWorkflow` only when it is absent (results recorded by runs without local steps).
 */
export type PaymentStep = PaymentState & { linkEnded: boolean; linkId: string | null; linkNotified?: boolean };

/** The activities paymentWorkflow calls. */
export interface PaymentActivities {
  /** The payment's watch state; non-retryable `NotFound` when it does not exist. */
  loadPaymentState(paymentId: string): Promise<PaymentState>;
  /** Applies one recorded chain deposit (verdicts); idempotent. */
  applyDepositActivity(paymentId: string, depositId: string): Promise<PaymentStep>;
  /** Closes the deposit window (awaiting -> expired); else unchanged. */
  expirePaymentActivity(paymentId: string): Promise<PaymentState>;
  /** Provider call: the settlement transfer to the merchant (idempotent by payment id); returns its tx hash. */
  sendSettlement(paymentId: string): Promise<string>;
  /** Records a completed settlement (payment and link settled). */
  recordSettlement(paymentId: string, txHash: string): Promise<PaymentStep>;
  /** Wakes link `linkId`'s workflow (contracts/payment-link.ts `linkChanged`). */
  notifyLinkWorkflow(linkId: string): Promise<void>;
  /** Applies one bank credit (`bcr_`) through the provider-settled reducer. */
  applyBankCreditActivity(paymentId: string, creditId: string): Promise<PaymentStep>;
  /** Applies the return of bank credit `creditId`. */
  applyBankReturnActivity(paymentId: string, creditId: string): Promise<PaymentStep>;
  /** Submits the bank settlement payout (fiat rail). */
  submitBankSettlement(paymentId: string): Promise<PaymentStep>;
  /** Re-reads the bank settlement payout in flight. */
  syncBankSettlement(paymentId: string): Promise<PaymentStep>;
  /** Sends a refunded payment's money back to the payer. */
  submitRefund(paymentId: string): Promise<PaymentStep>;
  /** Re-reads the refund payout in flight. */
  syncRefund(paymentId: string): Promise<PaymentStep>;
}

/** A deposit was observed for this payment (id of the deposit row). */
export const depositSignal = defineSignal<[{ depositId: string }]>('deposit');
/** The payment's link ended (`cancelled` or `expired`): reload and close. */
export const linkEndedSignal = defineSignal<[{ reason: string }]>('linkEnded');
/** Operator: the cause of a parked step was fixed; run it again. */
export const paymentRetrySignal = defineSignal('retry');
/** Query: a human-readable description of what the workflow waits for. */
export const paymentWaitingForQuery = defineQuery<string>('waiting_for');

export const paymentContract = defineContract<PaymentActivities>()({
  workflowType: 'paymentWorkflow',
  idPrefix: 'pay_',
  startArgs: (paymentId: string): [PaymentWorkflowArgs] => [{ paymentId, localSteps: true }],
  signals: {
    deposit: depositSignal,
    linkEnded: linkEndedSignal,
    /** A provider reported a change of this payment's rail payment (settlement payout, refund): re-read it. */
    update: defineSignal('providerUpdate'),
    retry: paymentRetrySignal,
  },
  queries: { waitingFor: paymentWaitingForQuery },
});
