/** Wire projection of an address-book entry (`adr_`, spec 2.11 "Address book entry"). */
import Joi from 'joi';
import type { AddressBookEntry } from '../entities';
import { maskedBeneficiaryOut } from './beneficiary';
import { listEnvelope, timestamp } from './schema';
import type { AddressBookCreate, AddressBookDelete } from './wire';

/**
 * Address-book entry as returned by every `/address_book` operation: ObjectBase, `kind`, `label`,
 * `chain` and `address` (crypto; address case preserved), `beneficiary` (bank; masked projection
 * only, null until set), `screening` (crypto; latest result, null for bank entries),
 * read-only `proof_of_control` (null until verified), travel-rule and counterparty fields.
 * Raw bank details never appear here.
 */
export function addressBookEntryView(e: AddressBookEntry): AddressBookCreate {
  const s = e.screening;
  return {
    id: e.id,
    object: 'address_book_entry',
    livemode: e.livemode,
    kind: e.kind,
    label: e.label,
    chain: e.chain,
    address: e.address,
    currency: e.bank_currency,
    beneficiary: e.kind === 'bank' ? (e.beneficiary_masked ?? null) : null,
    screening: s ? {
      status: s.status, risk_score: s.risk_score, risk_level: s.risk_level, verdict: s.verdict, action: s.action,
      flags: s.flags, provider_version: s.provider_version, screened_at: s.screened_at,
    } : null,
    proof_of_control: e.proof_method ? {
      method: e.proof_method,
      verified_at: e.proof_verified_at?.toISOString() ?? null,
      artifact_url: e.proof_artifact_url,
    } : null,
    travel_rule_required: e.travel_rule_required,
    travel_rule_last_attested_at: e.travel_rule_last_attested_at?.toISOString() ?? null,
    counterparty_name: e.counterparty_name,
    counterparty_country: e.counterparty_country,
    counterparty_vasp_name: e.counterparty_vasp_name,
    counterparty_vasp_jurisdiction: e.counterparty_vasp_jurisdiction,
    created_at: e.created_at.toISOString(),
    updated_at: e.updated_at.toISOString(),
  };
}

/** Body of `DELETE /address_book/{id}`. */
export function deletedAddressBookEntryView(id: string): AddressBookDelete {
  return { id, object: 'address_book_entry', deleted: true };
}

// ---------------------------------------------------------------------------------------
// Response schemas (spec 4.10)


const nullableString = Joi.string().allow(null).required();

const screeningOut = Joi.object({
  status: Joi.string().valid('completed', 'unavailable').required(),
  risk_score: Joi.number().integer().min(0).max(100).allow(null).required(),
  risk_level: nullableString,
  verdict: nullableString,
  action: nullableString,
  flags: Joi.array().items(Joi.string()).required(),
  provider_version: nullableString,
  screened_at: timestamp.required(),
});

/** An address-book entry (api/views/address-book.ts). */
export const addressBookEntryOut = Joi.object({
  id: Joi.string().pattern(/^adr_/).required(),
  object: Joi.string().valid('address_book_entry').required(),
  livemode: Joi.boolean().required(),
  kind: Joi.string().valid('crypto', 'bank').required(),
  label: nullableString,
  chain: nullableString,
  address: nullableString,
  currency: nullableString,
  beneficiary: maskedBeneficiaryOut.allow(null).required(),
  screening: screeningOut.allow(null).required(),
  proof_of_control: Joi.object({ method: Joi.string().required(), verified_at: timestamp.allow(null).required(), artifact_url: nullableString }).allow(null).required(),
  travel_rule_required: Joi.boolean().required(),
  travel_rule_last_attested_at: timestamp.allow(null).required(),
  counterparty_name: nullableString,
  counterparty_country: nullableString,
  counterparty_vasp_name: nullableString,
  counterparty_vasp_jurisdiction: nullableString,
  created_at: timestamp.required(),
  updated_at: timestamp.required(),
});

export const addressBookListOut = listEnvelope(addressBookEntryOut);

export const deletedEntryOut = Joi.object({
  id: Joi.string().pattern(/^adr_/).required(),
  object: Joi.string().valid('address_book_entry').required(),
  deleted: Joi.boolean().valid(true).required(),
});
