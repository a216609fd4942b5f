/**
 * Contract of a cross-network pay-in (`crypto_xchain`; workflows/xchain-payment.ts, workflow id =
 * the payment id `pay_...`; activities/payments/xchain.ts through `xchainPaymentWorkflowActivities`).
 * The signals of the payment contract (`deposit`, `linkEnded`, `retry`, query `waiting_for`) plus
 * `bridgeUpdate`; it calls the settlement activities of the payment contract besides its own.
 */
import { defineSignal } from '@temporalio/workflow';
import type { PaymentStatus } from '../domain/verdicts';
import type { WatcherState } from '../domain/xchain';
import { defineContract } from './contract';
import { depositSignal, linkEndedSignal, paymentRetrySignal, paymentWaitingForQuery, type PaymentActivities } from './payment';

/** Arguments of xchainPaymentWorkflow (`originMs`: when the first run began, carried across continue-as-new). */
export interface XchainPaymentWorkflowArgs {
  paymentId: string;
  originMs?: number;
}

/** What the cross-network workflow plans with. */
export interface XchainState {
  status: PaymentStatus;
  watcherState: WatcherState | null;
  /** ISO time the deposit window closes (only while nothing was seen). */
  expiresAt: string;
  /** ISO creation time: anchors `expiresAt` to the workflow's clock (domain/object-clock.ts). */
  createdAt: string;
  /** Deposits recorded but not yet applied (oldest first). */
  pendingDepositIds: string[];
  /** The bridge holds source funds not yet delivered: advance it. */
  bridgeActive: boolean;
  /** Money owed to the refund address. */
  needsRecovery: boolean;
  needsSettlement: boolean;
  /** Nothing left to watch. */
  done: boolean;
  linkEnded?: boolean;
  linkId?: string | null;
  /** See contracts/payment.ts `PaymentStep.linkNotified`. */
  linkNotified?: boolean;
}

/** Where the bridge's transfer stands after `advanceBridge`. */
export type BridgeProgress = 'idle' | 'awaiting_funds' | 'in_flight' | 'delivered' | 'covered' | 'failed';

/** The watcher's own activities (`xchainPaymentWorkflowActivities` registers exactly these). */
export interface XchainWatcherActivities {
  loadXchainState(paymentId: string): Promise<XchainState>;
  applyXchainDeposit(paymentId: string, depositId: string): Promise<XchainState>;
  advanceBridge(paymentId: string): Promise<XchainState & { bridge: BridgeProgress }>;
  recoverFunds(paymentId: string): Promise<XchainState>;
  expireXchainPayment(paymentId: string): Promise<XchainState>;
  closeXchainWatcher(paymentId: string): Promise<XchainState>;
}

/** Everything xchainPaymentWorkflow calls: its own activities and the payment contract's settlement ones. */
export type XchainPaymentActivities = XchainWatcherActivities &
  Pick<PaymentActivities, 'sendSettlement' | 'recordSettlement' | 'notifyLinkWorkflow'>;

export const xchainPaymentContract = defineContract<XchainPaymentActivities>()({
  workflowType: 'xchainPaymentWorkflow',
  idPrefix: 'pay_',
  startArgs: (paymentId: string): [XchainPaymentWorkflowArgs] => [{ paymentId }],
  signals: {
    deposit: depositSignal,
    linkEnded: linkEndedSignal,
    /** The bridge changed the payment's transfer (delivered, failed, released): re-read it now. */
    update: defineSignal('bridgeUpdate'),
    retry: paymentRetrySignal,
  },
  queries: { waitingFor: paymentWaitingForQuery },
});
