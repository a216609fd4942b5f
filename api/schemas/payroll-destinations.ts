/**
 * joi schemas of the payroll destination operations (spec 4.4; issue 13): the recipient's
 * destination submitted through a public session (`POST /payroll_recipient_sessions/{token}/destination`),
 * the adoption by the business (`POST /payroll_recipients/{id}/adopt_pending_destination`) and
 * `reissue_link`. Shapes only: which fields a `type` needs, the rail of the run currency, the
 * wallet chain and address checksum are domain/payroll-destinations.ts (codes naming the field).
 */
import Joi from './joi';
import { bankDetailsBody } from './beneficiary';

/**
 * A destination: `type: bank_account` with the bank beneficiary fields of the payout area
 * (api/schemas/beneficiary.ts; `account_owner_type`, `account_holder_name` and `rail` are then
 * required by the domain), or `type: wallet` with `chain` and `address` (USDC on the sandbox chain).
 */
export const submitDestinationBody = bankDetailsBody('optional')
  .fork(['account_owner_type', 'account_holder_name'], (s) => s.optional())
  .keys({
    type: Joi.string().valid('bank_account', 'wallet').required(),
    chain: Joi.string().trim().max(40).allow(null, ''),
    address: Joi.string().trim().max(100).allow(null, ''),
  });

/** Adoption: the `submitted_at` of the pending destination the caller saw (RFC 3339), so a newer submission is never adopted unseen. */
export const adoptPendingDestinationBody = Joi.object({
  expected_submitted_at: Joi.date().iso().required(),
});

/** `reissue_link` takes no parameters (an empty object or no body). */
export const reissueLinkBody = Joi.object({});
