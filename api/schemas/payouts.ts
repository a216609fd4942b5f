/**
 * joi schemas of the payouts and capabilities areas (spec 2.6, 4.3, 4.6): request bodies and
 * queries (unknown body keys are 400, api/operation.ts). The success bodies
 * (`response:`) live next to their projections in views/payout.ts. Corridor, amount and state rules are
 * enforced by domain/payouts.ts and activities/payouts.ts with the spec's codes.
 */
import Joi from './joi';
import { CORRIDOR_IDS, PAYOUT_SOURCE_CHAINS, PAYOUT_STATUS_GROUPS } from '../../domain/payouts';
import { bankDetailsBody } from './beneficiary';
import { documentedAs, evmAddressDocument, listQuery, moneyPositive } from './common';

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
  source_chain: sourceChain,
  // Shape, checksum and zero-address rules in domain/payouts normalizeRefundAddress (null = removal: refused).
  refund_address: documentedAs(Joi.string(), evmAddressDocument),
});

/** `GET /capabilities` query (spec 4.6: `product` required). */
export const capabilitiesQuery = Joi.object({
  product: Joi.string().valid('payment_links', 'payouts', 'payroll', 'buy_sell', 'wallet_bank').required(),
});
