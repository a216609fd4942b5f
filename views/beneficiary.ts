/**
 * The masked bank beneficiary read back by payouts and the address book (spec 2.6 "Beneficiary",
 * 2.11): its joi response schema. The projection itself is domain/bank-details.ts
 * `MaskedBeneficiary` (stored masked; never raw details).
 */
import Joi from 'joi';
import { BANK_RAILS, PIX_KEY_TYPES } from '../domain/bank-details';

const nullableString = Joi.string().allow(null).required();

/** The masked projection (domain/bank-details.ts `MaskedBeneficiary`): never raw details. */
export const maskedBeneficiaryOut = Joi.object({
  beneficiary_owner_type: Joi.string().valid('individual', 'business').required(),
  account_holder_name: Joi.string().required(),
  bank_name: nullableString,
  rail: Joi.string()
    .valid(...BANK_RAILS)
    .required(),
  currency: Joi.string().required(),
  account_type: Joi.string().valid('checking', 'savings').allow(null).required(),
  account_number_last4: Joi.string().max(4).allow(null).required(),
  routing_number: nullableString,
  sort_code: nullableString,
  iban_country: Joi.string().length(2).allow(null).required(),
  iban_last4: Joi.string().max(4).allow(null).required(),
  bic: nullableString,
  clabe_last4: Joi.string().max(4).allow(null).required(),
  pix_key_type: Joi.string()
    .valid(...PIX_KEY_TYPES)
    .allow(null)
    .required(),
  pix_key_last4: Joi.string().max(4).allow(null).required(),
});
