/**
 * joi schemas of the payouts and capabilities areas (spec 2.6, 4.3, 4.6): request bodies and
 * queries (unknown body keys are 400, api/operation.ts) and the success bodies (`response:`, exact
 * shapes for the OpenAPI document and contract fuzzing). Corridor, amount and state rules are
 * enforced by domain/payouts.ts and activities/payouts.ts with the spec's codes.
 */
import Joi from 'joi';
import { CORRIDOR_IDS, PAYOUT_SOURCE_CHAINS, PAYOUT_STATUS_GROUPS } from '../../domain/payouts';
import { bankDetailsBody, maskedBeneficiaryOut } from './beneficiary';
import { listQuery, moneyPositive } from './common';
import { listEnvelope, moneyOut, timestamp } from '../../views/schema';

const email = Joi.string().trim().email({ tlds: { allow: false } }).max(254);
const sourceChain = Joi.string().valid(...PAYOUT_SOURCE_CHAINS);

/** `POST /payouts` body (spec 4.3). */
export const createPayoutBody = Joi.object({
  invoice_amount: moneyPositive.required(),
  corridor_id: Joi.string().valid(...CORRIDOR_IDS).required(),
  source_chain: sourceChain,
  payer_type: Joi.string().valid('individual', 'business'),
  note: Joi.string().trim().max(500).allow('', null),
  recipient_email: email.allow(null),
  notify_recipient: Joi.boolean(),
});

/** `POST /payouts/{id}/replace` body: optional overrides of the replaced payout. */
export const replacePayoutBody = Joi.object({
  invoice_amount: moneyPositive,
  source_chain: sourceChain,
  note: Joi.string().trim().max(500).allow('', null),
  recipient_email: email.allow(null),
  notify_recipient: Joi.boolean(),
});

/** `GET /payouts` query (spec 4.3). */
export const listPayoutsQuery = Joi.object({
  ...listQuery,
  status_group: Joi.string().valid(...Object.keys(PAYOUT_STATUS_GROUPS)),
});

/** `POST /payouts/{id}/beneficiary` body: raw details once (spec 2.6); `rail` optional (the payout's), rules in domain/bank-details. */
export const beneficiaryBody = bankDetailsBody('optional');

/** `POST /payouts/{id}/funding_instructions` body (spec 2.6 fund request; optional). */
export const fundRequestBody = Joi.object({
  funding_source: Joi.string().valid('external_wallet', 'service_wallet'),
  source_chain: Joi.string(),
  // Shape, checksum and zero-address rules in domain/payouts normalizeRefundAddress (null = removal: refused).
  refund_address: Joi.string(),
});

/** `GET /capabilities` query (spec 4.6: `product` required). */
export const capabilitiesQuery = Joi.object({
  product: Joi.string().valid('payment_links', 'payouts', 'payroll', 'buy_sell', 'wallet_bank').required(),
});

// ------------------------------------------------------------------ responses

const money = moneyOut;
const nMoney = moneyOut.allow(null);
const ts = timestamp.required();
const nTs = timestamp.allow(null).required();

/** The payout object (spec 2.6). */
export const payoutResponse = Joi.object({
  id: Joi.string().pattern(/^po_/).required(),
  object: Joi.string().valid('payout').required(),
  livemode: Joi.boolean().required(),
  created_at: ts,
  updated_at: ts,
  status: Joi.string().required(),
  invoice_amount: money.required(),
  corridor_id: Joi.string().required(),
  fiat_rail: Joi.string().required(),
  source_chain: Joi.string().required(),
  source_chain_chosen: Joi.boolean().required(),
  source_asset: Joi.string().valid('USDC').required(),
  payer_type: Joi.string().required(),
  fee_bps: Joi.number().integer().required(),
  notify_recipient: Joi.boolean().required(),
  recipient_email: Joi.string().allow(null).required(),
  note: Joi.string().allow(null, '').required(),
  capability_snapshot: Joi.object({
    version: Joi.string().required(),
    eta_seconds: Joi.number().integer().allow(null).required(),
    minimum: nMoney.required(),
    legal_entity_name: Joi.string().allow(null).required(),
    sender_display: Joi.string(),
  }).required(),
  needs_attention: Joi.boolean().required(),
  settled_amount: nMoney.required(),
  provider_paid_amount: nMoney.required(),
  invoice_shortfall_amount: nMoney.required(),
  beneficiary: maskedBeneficiaryOut.allow(null).required(),
  funding_source: Joi.string().allow(null).required(),
  failure_reason: Joi.string().allow(null).required(),
  return_reason: Joi.string().allow(null).required(),
  held_amount: nMoney.required(),
  replaces: Joi.string().allow(null).required(),
  replaced_by: Joi.string().allow(null).required(),
  marked_sent_at: nTs,
  funded_at: nTs,
  paid_at: nTs,
  settled_at: nTs,
});

/** `mark_sent` response: the payout plus the non-authoritative marker. */
export const markSentResponse = payoutResponse.keys({ authoritative: Joi.boolean().valid(false).required() });

export const payoutListResponse = listEnvelope(payoutResponse);

/** Funding instructions (spec 2.6). */
export const fundingInstructionsResponse = Joi.object({
  object: Joi.string().valid('payout_funding_instructions').required(),
  payout_id: Joi.string().required(),
  attempt_id: Joi.string().required(),
  status: Joi.string().required(),
  deposit_address: Joi.string().required(),
  chain: Joi.string().required(),
  asset: Joi.string().valid('USDC').required(),
  amount: money.required(),
  buffer: money.required(),
  fee: money.required(),
  fee_bps: Joi.number().integer().required(),
  gross_amount: money.required(),
  amount_is_estimate: Joi.boolean().valid(true).required(),
  deposit_message: Joi.string().allow(null).required(),
  transfer_reference: Joi.string().required(),
  refund_address: Joi.string().allow(null).required(),
  expires_at: ts,
  sandbox: Joi.boolean().valid(true),
  funding_source: Joi.string().valid('service_wallet'),
  wallet_send: Joi.object({
    id: Joi.string().required(), status: Joi.string().required(), from_address: Joi.string().required(), chain: Joi.string().required(),
    amount: money.required(), delivery: money.required(), signable_until: ts,
  }),
  send_instructions: Joi.object({ steps: Joi.array().items(Joi.object().unknown(true)).min(1).required() }),
});

/** Wallet funding quote (spec 2.6). */
export const walletFundingQuoteResponse = Joi.object({
  object: Joi.string().valid('payout_wallet_funding_quote').required(),
  payout_id: Joi.string().required(),
  funding_source: Joi.string().valid('service_wallet').required(),
  available: Joi.boolean().required(),
  reason: Joi.string().allow(null).required(),
  source_chain: Joi.string().required(),
  required_delivery: money.required(),
  wallet_send_estimate: money.required(),
  cross_network_cost: money.required(),
  wallet_balance: nMoney.required(),
  covers: Joi.boolean().required(),
  shortfall: nMoney.required(),
  expires_at: ts,
});

/** Receipt (spec 2.6). */
export const receiptResponse = Joi.object({
  object: Joi.string().valid('payout_receipt').required(),
  payout_id: Joi.string().required(),
  livemode: Joi.boolean().required(),
  received_amount: money.required(),
  returned_amount: money.required(),
  sent_amount: nMoney.required(),
  settled_amount: nMoney.required(),
  invoice_amount: money.required(),
  fee: Joi.valid(null).required(),
  gross: Joi.valid(null).required(),
  provider_reference: Joi.string().allow(null).required(),
  settled_at: nTs,
  beneficiary: maskedBeneficiaryOut.allow(null).required(),
  estimates: Joi.object({
    authoritative: Joi.boolean().valid(false).required(), label: Joi.string().valid('estimate').required(),
    fee: money.required(), gross_amount: money.required(), source_amount: money.required(),
  }).required(),
  note: Joi.string().allow(null, '').required(),
});

/** Attempt (`poa_`, spec 2.6). */
export const attemptResponse = Joi.object({
  id: Joi.string().pattern(/^poa_/).required(),
  object: Joi.string().valid('payout_attempt').required(),
  livemode: Joi.boolean().required(),
  payout_id: Joi.string().required(),
  created_at: ts,
  updated_at: ts,
  status: Joi.string().required(),
  funding_source: Joi.string().required(),
  source_chain: Joi.string().required(),
  source_currency: Joi.string().required(),
  source_tx_hash: Joi.string().allow(null).required(),
  refund_address: Joi.string().allow(null).required(),
  amount_received: money.required(),
  surplus: nMoney.required(),
  amount_returned: money.required(),
  expires_at: ts,
});

/** One corridor row (spec 4.6). */
export const corridorResponse = Joi.object({
  corridor_id: Joi.string().required(),
  currency: Joi.string().allow(null),
  fiat_rail: Joi.string().allow(null),
  lifecycle: Joi.string().valid('public', 'preview', 'blocked').required(),
  public_claim_status: Joi.string().valid('live', 'unverified', 'planned').required(),
  executable: Joi.boolean().required(),
  blocked_reason: Joi.string(),
  source_chains: Joi.array().items(Joi.string()).required(),
  max_amount: nMoney.required(),
  minimum: nMoney,
  eta_seconds: Joi.number().integer().allow(null),
  action: Joi.string().required(),
  display_label: Joi.string().required(),
  logo_url: Joi.string().required(),
});

/** The capabilities document (spec 4.6) of `payment_links` or `payouts`, and `GET /payouts/eligibility`. */
export const capabilitiesResponse = Joi.object({
  object: Joi.string().valid('capabilities').required(),
  product: Joi.string().required(),
  livemode: Joi.boolean().required(),
  corridors: Joi.array().items(corridorResponse).required(),
  fee: Joi.object({
    kind: Joi.string().required(), bps: Joi.number().integer().required(), applies_to: Joi.string().required(),
    rails: Joi.array().items(Joi.string()).required(), rounding: Joi.string().required(), rounding_decimals: Joi.number().integer().required(),
  }),
  funding_sources: Joi.array().items(Joi.object({
    funding_source: Joi.string().valid('external_wallet', 'service_wallet').required(),
    available: Joi.boolean().required(),
    reason: Joi.string().allow(null).required(),
    source_chains: Joi.array().items(Joi.string()).required(),
  })),
});

/** One event of a per-object list (spec 2.11 envelope). */
export const eventResponse = Joi.object({
  id: Joi.string().required(),
  object: Joi.string().valid('event').required(),
  type: Joi.string().required(),
  created_at: ts,
  livemode: Joi.boolean().required(),
  api_version: Joi.string().required(),
  data: Joi.object({ object: Joi.object({ id: Joi.string().required(), type: Joi.string().required() }).unknown(true).required() }).required(),
  request: Joi.object({ id: Joi.string().allow(null).required(), idempotency_key: Joi.string().allow(null).required() }).required(),
});

export const eventResponseList = listEnvelope(eventResponse);
