/**
 * The rail-specific columns of a payment (entities/payments.ts) a payment on another rail leaves
 * empty, so every created Payment carries every column as the database will: the bank
 * rails' (instructions, returns, bank settlement, refunds) and the cross-network rail's (bridge,
 * quote, watcher, refund address).
 */

/** The bank columns of a crypto-rail payment: none apply. */
export const NO_BANK_FIELDS = {
  bank_instructions: null,
  bank_reference: null,
  bank_account_key: null,
  return_reason: null,
  payer_state: null,
  settled_minor: '0',
  settlement_rail: null,
  settlement_rail_payment_id: null,
  settlement_attempt: 0,
  refund_rail_payment_id: null,
  refund_attempt: 0,
  refund_completed_at: null,
  refund_reason: null,
  refunded_at: null,
} as const;

/** The cross-network columns of a payment on any other rail: none apply. */
export const NO_XCHAIN_FIELDS = {
  delivery_chain: null,
  delivery_address: null,
  refund_address: null,
  source_address: null,
  bridge_transfer_id: null,
  amount_in_minor: null,
  bridge_fee_minor: null,
  quote_expires_at: null,
  gross_up: null,
  watcher_state: null,
  watcher_reason: null,
  recovery_tx_hash: null,
} as const;
