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
export function addressBookEntryView(addressBookEntry: AddressBookEntry): AddressBookCreate {
  const s = addressBookEntry.screening;
  return {
    id: addressBookEntry.id,
    object: 'address_book_entry',
    livemode: addressBookEntry.livemode,
    kind: addressBookEntry.kind,
    label: addressBookEntry.label,
    chain: addressBookEntry.chain,
    address: addressBookEntry.address,
    currency: addressBookEntry.bank_currency,
    beneficiary: addressBookEntry.kind === 'bank' ? (addressBookEntry.beneficiary_masked ?? null) : null,
    screening: s
      ? {
          status: s.status,
          risk_score: s.risk_score,
          risk_level: s.risk_level,
          verdict: s.verdict,
          action: s.action,
          flags: s.flags,
          provider_version: s.provider_version,
          screened_at: s.screened_at,
        }
      : null,
    proof_of_control: addressBookEntry.proof_method
      ? {
          method: addressBookEntry.proof_method,
          verified_at: addressBookEntry.proof_verified_at?.toISOString() ?? null,
          artifact_url: addressBookEntry.proof_artifact_url,
        }
      : null,
    travel_rule_required: addressBookEntry.travel_rule_required,
    travel_rule_last_attested_at: addressBookEntry.travel_rule_last_attested_at?.toISOString() ?? null,
    counterparty_name: addressBookEntry.counterparty_name,
    counterparty_country: addressBookEntry.counterparty_country,
    counterparty_vasp_name: addressBookEntry.counterparty_vasp_name,
    counterparty_vasp_jurisdiction: addressBookEntry.counterparty_vasp_jurisdiction,
    created_at: addressBookEntry.created_at.toISOString(),
    updated_at: addressBookEntry.updated_at.toISOString(),
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
  proof_of_control: Joi.object({
    method: Joi.string().required(),
    verified_at: timestamp.allow(null).required(),
    artifact_url: nullableString,
  })
    .allow(null)
    .required(),
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
