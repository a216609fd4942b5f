/**
 * joi schemas of bank beneficiary details, shared by `POST /payouts/{id}/beneficiary` and
 * `POST /address_book/{id}/beneficiary` (spec 2.6 "Beneficiary", 2.11): the raw details request
 * (`account_owner_type`) and the masked projection read back (`beneficiary_owner_type`). Shapes
 * only: the rules per rail (required fields, formats, check digits) are domain/bank-details.ts.
 */
import type { ObjectSchema } from 'joi';
import Joi from './joi';
import { documentedAlso, NULL_ONLY, TRIM_WHITESPACE as TRIMMED } from './common';
import { BANK_RAILS, DETAIL_FIELDS, RAIL_FIELDS } from '../../domain/bank-details';
import { COUNTRIES } from '../../domain/countries';

/** A detail given: a string with something left once trimmed. */
export const GIVEN_TEXT = { type: 'string', pattern: `[^${TRIMMED}]` };
/** A detail left out: absent, null, or a string that trims to empty (the domain reads these as absent). */
export const ABSENT_TEXT = { anyOf: [NULL_ONLY, { type: 'string', pattern: `^[${TRIMMED}]*$` }] };

/**
 * The document's statement of which detail fields a rail needs and which it refuses (JSON Schema
 * `anyOf`, one branch per rail, from domain/bank-details `RAIL_FIELDS`), as `normalizeBeneficiary`
 * enforces them (`400 parameter_missing` / `parameter_invalid` naming the field). With
 * `railOptional` a body without `rail` is left to the payout's own rail (the object's state).
 */
export function bankRailRules(railOptional: boolean): Record<string, unknown> {
  const branches: Record<string, unknown>[] = BANK_RAILS.map((rail) => {
    const { required, optional } = RAIL_FIELDS[rail];
    const properties: Record<string, unknown> = { rail: { const: rail } };
    for (const f of DETAIL_FIELDS) {
      if (required.includes(f)) properties[f] = GIVEN_TEXT;
      else if (!optional.includes(f)) properties[f] = f === 'account_type' ? NULL_ONLY : ABSENT_TEXT;
    }
    return { required: ['rail', ...required], properties };
  });
  if (railOptional) branches.push({ properties: { rail: NULL_ONLY } }, { not: { required: ['rail'], properties: { rail: {} } } });
  return { anyOf: branches };
}

const detail = (max: number) => Joi.string().trim().max(max).allow(null, '');

/**
 * The raw details fields; `rail` is required by the address book and optional on a payout (the
 * payout's own rail; another value is refused by the domain).
 */
export function bankDetailsFields(rail: 'required' | 'optional'): ObjectSchema {
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
    country: Joi.string()
      .trim()
      .uppercase()
      .valid(...COUNTRIES)
      .allow(null, '')
      .messages({ 'any.only': '`country` must be an ISO 3166-1 alpha-2 country code' }),
  });
}

/** The raw details body (`bankDetailsFields`), documented with the fields each rail needs and refuses (`bankRailRules`). */
export function bankDetailsBody(rail: 'required' | 'optional'): ObjectSchema {
  return documentedAlso(bankDetailsFields(rail), bankRailRules(rail === 'optional'));
}
