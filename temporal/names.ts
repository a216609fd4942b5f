/**
 * Workflow type names, workflow ids and signal names shared by the API, activities and workflows.
 * Workflow id = the object id (`pay_...`, `pl_...`, `whd_...`) so operators find it by id.
 */
export const WF = {
  payment: 'paymentWorkflow',
  paymentLink: 'paymentLinkWorkflow',
  webhookDelivery: 'webhookDeliveryWorkflow',
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
} as const;
