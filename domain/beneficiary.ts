/**
 * Payout beneficiary (spec 2.6 "Beneficiary"): the raw bank details of one fiat rail are checked
 * here, cross the boundary once (`POST /payouts/{id}/beneficiary`, request `account_owner_type`),
 * are stored encrypted, and are read back only as the masked projection (`beneficiary_owner_type`).
 * IBAN and BIC checks use `ibantools`; ABA routing, CLABE and Pix key checks are those of the
 * address book's bank details (domain/bank-details.ts).
 *
 * Pure: no I/O.
 */
import { electronicFormatIBAN, isValidBIC, isValidIBAN } from 'ibantools';
import { isValidAbaRouting, isValidClabe, pixKeyType } from './bank-details';
import { invalidRequest } from './errors';

export { isValidAbaRouting, isValidClabe };

/** Raw details as accepted on the wire (after joi); which keys are required depends on the rail. */
export interface BeneficiaryInput {
  account_owner_type: 'individual' | 'business';
  account_holder_name: string;
  bank_name?: string | null;
  account_number?: string;
  routing_number?: string;
  account_type?: 'checking' | 'savings';
  iban?: string;
  bic?: string | null;
  sort_code?: string;
  pix_key?: string;
  clabe?: string;
  tax_id?: string | null;
  country?: string | null;
}

/** Normalised raw details (what is encrypted at rest). */
export type BeneficiaryDetails = BeneficiaryInput & { rail: string };

/** The masked projection (never a full account number, IBAN, CLABE or PIX key). */
export interface MaskedBeneficiary {
  beneficiary_owner_type: 'individual' | 'business';
  account_holder_name: string;
  rail: string;
  bank_name: string | null;
  account_number_last4: string | null;
  routing_number: string | null;
  iban: string | null;
  bic: string | null;
  sort_code: string | null;
  clabe: string | null;
  pix_key: string | null;
}

const bad = (param: string, why: string) => invalidRequest('parameter_invalid', `${param} ${why}.`, param);
const need = (v: string | undefined | null, param: string, rail: string): string => {
  if (v === undefined || v === null || v === '') throw invalidRequest('parameter_missing', `${param} is required for ${rail}.`, param);
  return v;
};

/** A Pix key of any kind (CPF, CNPJ, e-mail, +55 phone, random EVP key); see `pixKeyType`. */
export function isValidPixKey(k: string): boolean {
  return pixKeyType(k) !== null;
}

/**
 * Checks the details for `rail` (ach, wire, sepa, faster_payments, pix, spei) and returns them
 * normalised (IBAN electronic format, BIC upper case, only the rail's keys kept).
 * Throws `400 invalid_request` `parameter_missing` / `parameter_invalid` naming the field, or
 * `parameter_unknown` for a key the rail does not take.
 */
export function validateBeneficiary(rail: string, b: BeneficiaryInput): BeneficiaryDetails {
  const base = {
    rail, account_owner_type: b.account_owner_type, account_holder_name: b.account_holder_name.trim(),
    bank_name: b.bank_name ?? null, tax_id: b.tax_id ?? null, country: b.country ?? null,
  };
  const allowed: Record<string, string[]> = {
    ach: ['account_number', 'routing_number', 'account_type'],
    wire: ['account_number', 'routing_number'],
    sepa: ['iban', 'bic'],
    faster_payments: ['account_number', 'sort_code'],
    pix: ['pix_key'],
    spei: ['clabe'],
  };
  const own = allowed[rail];
  if (!own) throw invalidRequest('parameter_invalid', `Rail ${rail} takes no beneficiary.`, 'rail');
  for (const k of ['account_number', 'routing_number', 'account_type', 'iban', 'bic', 'sort_code', 'pix_key', 'clabe'] as const) {
    if (b[k] !== undefined && b[k] !== null && !own.includes(k)) throw invalidRequest('parameter_unknown', `${k} is not used by ${rail}.`, k);
  }
  switch (rail) {
    case 'ach':
    case 'wire': {
      const acct = need(b.account_number, 'account_number', rail);
      if (!/^[0-9]{4,17}$/.test(acct)) throw bad('account_number', 'must be 4 to 17 digits');
      const routing = need(b.routing_number, 'routing_number', rail);
      if (!isValidAbaRouting(routing)) throw bad('routing_number', 'is not a valid ABA routing number');
      return { ...base, account_number: acct, routing_number: routing, ...(rail === 'ach' ? { account_type: b.account_type ?? 'checking' } : {}) };
    }
    case 'sepa': {
      const iban = electronicFormatIBAN(need(b.iban, 'iban', rail)) ?? '';
      if (!isValidIBAN(iban)) throw bad('iban', 'is not a valid IBAN');
      const bic = b.bic ? b.bic.toUpperCase() : null;
      if (bic !== null && !isValidBIC(bic)) throw bad('bic', 'is not a valid BIC');
      return { ...base, iban, bic };
    }
    case 'faster_payments': {
      const acct = need(b.account_number, 'account_number', rail);
      if (!/^[0-9]{8}$/.test(acct)) throw bad('account_number', 'must be 8 digits');
      const sort = need(b.sort_code, 'sort_code', rail).replace(/-/g, '');
      if (!/^[0-9]{6}$/.test(sort)) throw bad('sort_code', 'must be 6 digits');
      return { ...base, account_number: acct, sort_code: sort };
    }
    case 'pix': {
      const key = need(b.pix_key, 'pix_key', rail).trim();
      if (!isValidPixKey(key)) throw bad('pix_key', 'is not a CPF, CNPJ, e-mail, +55 phone or random key');
      return { ...base, pix_key: key };
    }
    default: {
      const clabe = need(b.clabe, 'clabe', rail);
      if (!isValidClabe(clabe)) throw bad('clabe', 'must be 18 digits with a valid check digit');
      return { ...base, clabe };
    }
  }
}

const last4 = (s: string | undefined) => (s ? s.slice(-4) : null);

/** The masked projection of stored details: last four digits only, IBAN as country + check + last four. */
export function maskBeneficiary(d: BeneficiaryDetails): MaskedBeneficiary {
  return {
    beneficiary_owner_type: d.account_owner_type,
    account_holder_name: d.account_holder_name,
    rail: d.rail,
    bank_name: d.bank_name ?? null,
    account_number_last4: last4(d.account_number) ?? last4(d.clabe) ?? null,
    routing_number: d.routing_number ?? null,
    iban: d.iban ? `${d.iban.slice(0, 4)}${'*'.repeat(Math.max(0, d.iban.length - 8))}${d.iban.slice(-4)}` : null,
    bic: d.bic ?? null,
    sort_code: d.sort_code ? `**-**-${d.sort_code.slice(-2)}` : null,
    clabe: d.clabe ? `${'*'.repeat(14)}${d.clabe.slice(-4)}` : null,
    pix_key: d.pix_key ? `${d.pix_key.slice(0, 2)}***${d.pix_key.slice(-2)}` : null,
  };
}
