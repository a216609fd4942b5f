/**
 * joi schemas of the payroll destination operations (spec 4.4): the recipient's
 * destination submitted through a public session (`POST /payroll_recipient_sessions/{token}/destination`),
 * the adoption by the business (`POST /payroll_recipients/{id}/adopt_pending_destination`) and
 * `reissue_link`. Shapes only: which fields a `type` needs, the rail of the run currency, the
 * wallet chain and address checksum are domain/payroll-destinations.ts (codes naming the field).
 */
import Joi from './joi';
import { ABSENT_TEXT, bankDetailsFields, bankRailRules, GIVEN_TEXT } from './beneficiary';
import { documentedAlso, NULL_ONLY } from './common';

/**
 * A destination: `type: bank_account` with the bank beneficiary fields of the payout area
 * (api/schemas/beneficiary.ts; `account_owner_type`, `account_holder_name` and `rail` are then
 * required by the domain), or `type: wallet` with `chain` and `address` (USDC on the sandbox chain).
 */
export const submitDestinationBody = documentedAlso(
  bankDetailsFields('optional')
    .fork(['account_owner_type', 'account_holder_name'], (s) => s.optional())
    .keys({
      type: Joi.string().valid('bank_account', 'wallet').required(),
      chain: Joi.string().trim().max(40).allow(null, ''),
      address: Joi.string().trim().max(100).allow(null, ''),
    }),
  destinationTypeRules(),
);

/**
 * The document's statement of domain/payroll-destinations `checkSubmittedDestination`'s rules over
 * two fields: a wallet needs `chain` and `address` and takes no bank field; a bank
 * account needs `account_owner_type`, `account_holder_name` and `rail`, takes no `chain` or
 * `address`, and then the rail's fields (`bankRailRules`). Which rail pays the run's currency, the
 * sandbox chain and the address checksum stay the domain's (the run's state, a checksum).
 */
function destinationTypeRules(): Record<string, unknown> {
  // Fields that never take a blank string (a closed set or a required name): absent or null only.
  const CLOSED_KEYS = ['account_owner_type', 'account_holder_name', 'rail', 'account_type'];
  const bankKeys = [
    'account_owner_type',
    'account_holder_name',
    'bank_name',
    'rail',
    'account_number',
    'routing_number',
    'account_type',
    'iban',
    'bic',
    'sort_code',
    'clabe',
    'pix_key',
    'tax_id',
    'country',
  ];
  const wallet = {
    required: ['type', 'chain', 'address'],
    properties: {
      type: { const: 'wallet' },
      chain: GIVEN_TEXT,
      address: GIVEN_TEXT,
      ...Object.fromEntries(bankKeys.map((k) => [k, CLOSED_KEYS.includes(k) ? NULL_ONLY : ABSENT_TEXT])),
    },
  };
  const bank = {
    allOf: [
      {
        required: ['type', 'account_owner_type', 'account_holder_name', 'rail'],
        properties: { type: { const: 'bank_account' }, rail: { not: NULL_ONLY }, chain: ABSENT_TEXT, address: ABSENT_TEXT },
      },
      bankRailRules(false),
    ],
  };
  return { anyOf: [wallet, bank] };
}

/** Adoption: the `submitted_at` of the pending destination the caller saw (RFC 3339), so a newer submission is never adopted unseen. */
export const adoptPendingDestinationBody = Joi.object({
  expected_submitted_at: Joi.date().iso().required(),
});

/** `reissue_link` takes no parameters (an empty object or no body). */
export const reissueLinkBody = Joi.object({});
