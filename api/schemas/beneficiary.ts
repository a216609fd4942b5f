/**
 * joi schemas of bank beneficiary details, shared by `POST /payouts/{id}/beneficiary` and
 * `POST /address_book/{id}/beneficiary` (spec 2.6 "Beneficiary", 2.11): the raw details request
 * (`account_owner_type`) and the masked projection read back (`beneficiary_owner_type`). Shapes
 * only: the rules per rail (required fields, formats, check digits) are domain/bank-details.ts.
 */
import type { ObjectSchema } from 'joi';
import Joi from './joi';
import { BANK_RAILS } from '../../domain/bank-details';
import { COUNTRIES } from '../../domain/countries';

const detail = (max: number) => Joi.string().trim().max(max).allow(null, '');

/**
 * The raw details body; `rail` is required by the address book and optional on a payout (the
 * payout's own rail; another value is refused by the domain).
 */
export function bankDetailsBody(rail: 'required' | 'optional'): ObjectSchema {
  const railSchema = Joi.string().valid(...BANK_RAILS);
  return Joi.object({
    account_owner_type: Joi.string().valid('individual', 'business').required(),
    account_holder_name: Joi.string().trim().min(1).max(140).required(),
    bank_name: detail(140),
    rail: rail === 'required' ? railSchema.required() : railSchema.allow(null),
    account_number: detail(34),
    routing_number: detail(20),
    account_type: Joi.string().valid('checking', 'savings').allow(null),
    iban: detail(42),
    bic: detail(14),
    sort_code: detail(10),
    clabe: detail(22),
    pix_key: detail(77),
    tax_id: detail(40),
    country: Joi.string().trim().uppercase().valid(...COUNTRIES).allow(null, '')
      .messages({ 'any.only': '`country` must be an ISO 3166-1 alpha-2 country code' }),
  });
}
