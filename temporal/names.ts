/**
 * Workflow type names, workflow ids and signal names shared by the API, activities and workflows.
 * Workflow id = the object id (`pay_...`, `pl_...`, `whd_...`) so operators find it by id.
 */
export const WF = {
  payment: 'paymentWorkflow',
  paymentLink: 'paymentLinkWorkflow',
  webhookDelivery: 'webhookDeliveryWorkflow',
  payout: 'payoutWorkflow',
} as const;

export const SIGNALS = {
  /** payment: a deposit row was recorded for this payment; arg { depositId }. */
  deposit: 'deposit',
  /** payment: the link ended (cancelled/expired); arg { reason }. */
  linkEnded: 'linkEnded',
  /** payment link: (re)evaluate state after activation / PATCH / reminder changes; no args. */
  linkChanged: 'linkChanged',
  /** webhook delivery: start or replay now; no args. */
  deliver: 'deliver',
  /** payout: a funding attempt was recorded (POST funding_instructions) or a refund address set; no args. */
  payoutFund: 'fund',
  /** payout: a deposit reached the funding address; arg { depositId }. */
  payoutDeposit: 'payoutDeposit',
  /** payout: a provider (bridge, fiat rail) changed state; re-read it; no args. */
  payoutProviderUpdate: 'providerUpdate',
  /** payout: cancelled through the API; no args. */
  payoutCancelled: 'cancelled',
  /** payout: the reconciliation signal; arg { needsAttention }. */
  payoutReconciliation: 'reconciliation',
  /** payout: an operator fixed the cause of a parked step; run again; no args. */
  payoutRetry: 'retry',
} as const;
