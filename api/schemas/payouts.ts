/**
 * joi schemas of the payouts and capabilities areas (spec 2.6, 4.3, 4.6): request bodies and
 * queries (unknown body keys are 400, api/operation/validate.ts). The success bodies
 * (`response:`) live next to their projections in views/payout.ts. Corridor, amount and state rules are
 * enforced by domain/payouts/ (corridors.ts, statuses.ts) and activities/payouts/ with the spec's codes.
 */
import Joi from './joi';
import { PAYOUT_STATUS_GROUPS } from '../../domain/payouts/statuses';
import { CORRIDOR_IDS, CORRIDORS, PAYOUT_SOURCE_CHAINS } from '../../domain/payouts/corridors';
import { bankDetailsBody } from './beneficiary';
import { digitsAtLeast, digitsUpTo, documentedAlso, documentedAs, evmAddressDocument, listQuery, moneyPositive } from './common';

const email = Joi.string()
  .trim()
  .email({ tlds: { allow: false } })
  .max(254);
const sourceChain = Joi.string().valid(...PAYOUT_SOURCE_CHAINS);

/**
 * What the command checks over two fields, stated in the document: the corridor decides
 * the invoice currency and its bounds (`400 currency_mismatch`, `amount_invalid`), and
 * `notify_recipient: true` needs a `recipient_email` (`400 parameter_missing`).
 */
function payoutRules(): Record<string, unknown> {
  const corridors = CORRIDORS.map((c) => ({
    properties: {
      corridor_id: { const: c.id },
      invoice_amount: {
        properties: {
          currency: { const: c.currency },
          ...(c.max_minor > 0n
            ? {
                amount: {
                  allOf: [{ pattern: digitsAtLeast(c.min_minor > 0n ? c.min_minor : 1n) }, { pattern: digitsUpTo(c.max_minor, true) }],
                },
              }
            : {}),
        },
      },
    },
  }));
  const notify = {
    anyOf: [
      { not: { required: ['notify_recipient'], properties: { notify_recipient: { const: true } } } },
      { required: ['recipient_email'], properties: { recipient_email: { type: 'string', minLength: 1 } } },
    ],
  };
  return { allOf: [notify, { anyOf: corridors }] };
}

/** `POST /payouts` body (spec 4.3). */
export const createPayoutBody = documentedAlso(
  Joi.object({
    invoice_amount: moneyPositive.required(),
    corridor_id: Joi.string()
      .valid(...CORRIDOR_IDS)
      .required(),
    source_chain: sourceChain,
    payer_type: Joi.string().valid('individual', 'business'),
    note: Joi.string().trim().max(500).allow('', null),
    recipient_email: email.allow(null),
    notify_recipient: Joi.boolean(),
  }).example({
    invoice_amount: { amount: '125000', currency: 'USD', decimals: 2 },
    corridor_id: 'usd_ach',
    payer_type: 'business',
    note: 'Supplier invoice 2291',
    recipient_email: 'billing@supplier.example',
    notify_recipient: true,
  }),
  payoutRules(),
);

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
export const fundRequestBody = documentedAlso(
  Joi.object({
    funding_source: Joi.string().valid('external_wallet', 'service_wallet'),
    source_chain: sourceChain,
    // Shape, checksum and zero-address rules in domain/payouts/refund-address.ts normalizeRefundAddress (null = removal: refused).
    refund_address: documentedAs(Joi.string(), { ...evmAddressDocument, not: { pattern: '^0x0{40}$' } }),
  }),
  {
    // A service-wallet funding returns to the wallet: no `refund_address` (400 `parameter_invalid`).
    anyOf: [
      { not: { required: ['funding_source'], properties: { funding_source: { const: 'service_wallet' } } } },
      { properties: { refund_address: false } },
    ],
  },
);

/** `GET /capabilities` query (spec 4.6: `product` required). */
export const capabilitiesQuery = Joi.object({
  product: Joi.string().valid('payment_links', 'payouts', 'payroll', 'buy_sell', 'wallet_bank').required(),
});
