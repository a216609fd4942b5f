/**
 * Bank beneficiary details: the one set of rules for every place the product takes them (spec
 * 2.6 "Beneficiary", 2.11 "Address book entry": `POST /payouts/{id}/beneficiary` and
 * `POST /address_book/{id}/beneficiary`). Raw bank details cross the boundary once (request names
 * the owner `account_owner_type`), are stored encrypted, then only the masked projection is read
 * back (output names it `beneficiary_owner_type`).
 *
 * `normalizeBeneficiary(input)` checks the details of one rail and returns the normalized raw
 * details (to be encrypted at rest) and their masked projection (safe to store and show);
 * `maskBankDetails(details)` is that projection alone (also for details stored by older versions).
 * Rails and currencies follow the payout corridors (`beneficiaryRailOf`): `ach`/`wire` USD,
 * `sepa` EUR, `faster_payments` GBP, `pix` BRL, `spei` MXN. IBAN and BIC are checked with
 * ibantools (ISO 13616 mod-97, SEPA membership, ISO 9362); ABA routing numbers and CLABEs with
 * their check digits. Errors: `400 invalid_request` `parameter_missing` / `parameter_invalid`
 * naming the field.
 *
 * Masked shape: never more than the last four characters of an account identifier (account
 * number, IBAN, CLABE, Pix key); routing number, sort code and BIC (bank identifiers, not account
 * identifiers) in full; the IBAN's country; the Pix key's kind. Optional `tax_id` and `country`
 * of the holder are kept in the raw details only.
 *
 * Pure: no I/O.
 */
import { electronicFormatIBAN, isSEPACountry, isValidBIC, isValidIBAN } from 'ibantools';
import { invalidRequest } from './errors';

export const BANK_RAILS = ['ach', 'wire', 'sepa', 'faster_payments', 'pix', 'spei'] as const;
export type BankRail = (typeof BANK_RAILS)[number];

/** Currency each rail pays out in (ISO 4217). */
export const RAIL_CURRENCY: Readonly<Record<BankRail, string>> = Object.freeze({
  ach: 'USD',
  wire: 'USD',
  sepa: 'EUR',
  faster_payments: 'GBP',
  pix: 'BRL',
  spei: 'MXN',
});

/**
 * The rail whose bank details a payout corridor's `fiat_rail` (spec 4.3, 4.6) pays to, or null
 * when the product takes no bank details for it (the blocked `co_bank_transfer`, never payable).
 */
export function beneficiaryRailOf(fiatRail: string): BankRail | null {
  return (BANK_RAILS as readonly string[]).includes(fiatRail) ? (fiatRail as BankRail) : null;
}

/** The detail fields whose use depends on the rail (RAIL_FIELDS). */
export const DETAIL_FIELDS = ['account_number', 'routing_number', 'account_type', 'iban', 'bic', 'sort_code', 'clabe', 'pix_key'] as const;
export type DetailField = (typeof DETAIL_FIELDS)[number];

/** Required and optional detail fields per rail; any other detail field is refused (`normalizeBeneficiary`). */
export const RAIL_FIELDS: Readonly<Record<BankRail, { required: DetailField[]; optional: DetailField[] }>> = Object.freeze({
  ach: { required: ['account_number', 'routing_number'], optional: ['account_type'] },
  wire: { required: ['account_number', 'routing_number'], optional: [] },
  sepa: { required: ['iban'], optional: ['bic'] },
  faster_payments: { required: ['account_number', 'sort_code'], optional: [] },
  pix: { required: ['pix_key'], optional: [] },
  spei: { required: ['clabe'], optional: [] },
});

/**
 * Raw details as accepted on the wire (strings already trimmed by joi, `country` an upper-cased
 * ISO 3166-1 alpha-2 code checked by joi); which detail fields are needed depends on `rail`.
 * `tax_id` and `country` (the holder's) apply to every rail.
 */
export interface BeneficiaryInput {
  account_owner_type: 'individual' | 'business';
  account_holder_name: string;
  bank_name?: string | null;
  rail: BankRail;
  account_number?: string | null;
  routing_number?: string | null;
  account_type?: 'checking' | 'savings' | null;
  iban?: string | null;
  bic?: string | null;
  sort_code?: string | null;
  clabe?: string | null;
  pix_key?: string | null;
  tax_id?: string | null;
  country?: string | null;
}

/** The body of `POST /payouts/{id}/beneficiary`: the same details, `rail` optional (the payout's). */
export type PayoutBeneficiaryInput = Omit<BeneficiaryInput, 'rail'> & { rail?: string | null };

type Nullable<T> = { [K in keyof T]-?: Exclude<T[K], undefined> | null };

/** Normalized raw details: only ever stored encrypted (lib/secrets.ts), never sent on the wire. */
export type BankDetails = Nullable<Omit<BeneficiaryInput, 'account_owner_type' | 'account_holder_name' | 'rail'>> &
  Pick<BeneficiaryInput, 'account_owner_type' | 'account_holder_name' | 'rail'> & { currency: string };

/** Raw details as stored by any version: older payout rows lack `currency` and omit unused fields. */
export type StoredBankDetails = Partial<BankDetails> & Pick<BankDetails, 'account_owner_type' | 'account_holder_name' | 'rail'>;

export const PIX_KEY_TYPES = ['email', 'phone', 'cpf', 'cnpj', 'evp'] as const;
export type PixKeyType = (typeof PIX_KEY_TYPES)[number];

/** The masked projection read back on every response (spec 2.6 "Beneficiary", 2.11). */
export interface MaskedBeneficiary {
  beneficiary_owner_type: 'individual' | 'business';
  account_holder_name: string;
  bank_name: string | null;
  rail: BankRail;
  currency: string;
  account_type: 'checking' | 'savings' | null;
  account_number_last4: string | null;
  routing_number: string | null;
  sort_code: string | null;
  iban_country: string | null;
  iban_last4: string | null;
  bic: string | null;
  clabe_last4: string | null;
  pix_key_type: PixKeyType | null;
  pix_key_last4: string | null;
}

/** ABA routing number: 9 digits, weights 3-7-1 summing to a multiple of 10, not all zeros. */
export function isValidAbaRouting(text: string): boolean {
  if (!/^[0-9]{9}$/.test(text) || /^0+$/.test(text)) return false;
  const d = [...text].map(Number);
  const sum = 3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + (d[2] + d[5] + d[8]);
  return sum % 10 === 0;
}

/** CLABE: 18 digits; the last is the check digit of weights 3-7-1 (each product mod 10). */
export function isValidClabe(text: string): boolean {
  if (!/^[0-9]{18}$/.test(text)) return false;
  const w = [3, 7, 1];
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (Number(text[i]) * w[i % 3]) % 10;
  return (10 - (sum % 10)) % 10 === Number(text[17]);
}

/** Kind of a Pix key (email, +55 phone, CPF 11 digits, CNPJ 14 digits, random EVP UUID), or null. */
export function pixKeyType(text: string): PixKeyType | null {
  if (text.length > 77) return null;
  if (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text)) return 'email';
  if (/^\+55[0-9]{10,11}$/.test(text)) return 'phone';
  if (/^[0-9]{11}$/.test(text)) return 'cpf';
  if (/^[0-9]{14}$/.test(text)) return 'cnpj';
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text)) return 'evp';
  return null;
}

const last4 = (s: string | null): string | null => (s ? s.slice(-4) : null);
const digitsOnly = (s: string): string => s.replace(/[\s-]/g, '');

/**
 * Validates `input` for its rail and returns `{ details, masked }` (account numbers, routing
 * numbers, sort codes and CLABEs without spaces or dashes; IBAN in electronic format; BIC upper
 * case; `account_type` defaults to `checking` on ach; empty optional strings become null).
 * Throws `400 invalid_request`: `parameter_missing` for a field the rail needs,
 * `parameter_invalid` for a field the rail does not take or a value that fails its format or
 * check digits (param = the field).
 */
export function normalizeBeneficiary(input: BeneficiaryInput): { details: BankDetails; masked: MaskedBeneficiary } {
  const spec = RAIL_FIELDS[input.rail];
  const allowed = new Set<DetailField>([...spec.required, ...spec.optional]);
  for (const f of DETAIL_FIELDS) {
    const v = input[f];
    if (v !== undefined && v !== null && v !== '' && !allowed.has(f)) {
      throw invalidRequest('parameter_invalid', `\`${f}\` does not apply to the ${input.rail} rail.`, f, { rail: input.rail });
    }
  }
  for (const f of spec.required) {
    const v = input[f];
    if (v === undefined || v === null || v === '')
      throw invalidRequest('parameter_missing', `The ${input.rail} rail needs \`${f}\`.`, f, { rail: input.rail });
  }
  const bad = (f: DetailField, why: string) => invalidRequest('parameter_invalid', `\`${f}\` is not valid: ${why}.`, f);

  let accountNumber: string | null = null;
  let routing: string | null = null;
  let sortCode: string | null = null;
  let iban: string | null = null;
  let bic: string | null = null;
  let clabe: string | null = null;
  let pix: string | null = null;
  const accountType = input.rail === 'ach' ? (input.account_type ?? 'checking') : null;

  if (input.rail === 'ach' || input.rail === 'wire') {
    accountNumber = digitsOnly(input.account_number!);
    if (!/^[0-9]{4,17}$/.test(accountNumber)) throw bad('account_number', 'a US account number is 4 to 17 digits');
    routing = digitsOnly(input.routing_number!);
    if (!isValidAbaRouting(routing)) throw bad('routing_number', 'an ABA routing number is 9 digits with a valid check digit');
  } else if (input.rail === 'faster_payments') {
    accountNumber = digitsOnly(input.account_number!);
    if (!/^[0-9]{8}$/.test(accountNumber)) throw bad('account_number', 'a UK account number is 8 digits');
    sortCode = digitsOnly(input.sort_code!);
    if (!/^[0-9]{6}$/.test(sortCode)) throw bad('sort_code', 'a sort code is 6 digits');
  } else if (input.rail === 'sepa') {
    iban = electronicFormatIBAN(input.iban!) ?? '';
    if (!isValidIBAN(iban)) throw bad('iban', 'the IBAN fails its format or mod-97 check');
    if (!isSEPACountry(iban.slice(0, 2))) throw bad('iban', `${iban.slice(0, 2)} is not a SEPA country`);
    if (input.bic) {
      bic = input.bic.replace(/\s/g, '').toUpperCase();
      if (!isValidBIC(bic)) throw bad('bic', 'a BIC is 8 or 11 characters (ISO 9362)');
    }
  } else if (input.rail === 'spei') {
    clabe = digitsOnly(input.clabe!);
    if (!isValidClabe(clabe)) throw bad('clabe', 'a CLABE is 18 digits with a valid check digit');
  } else {
    pix = input.pix_key!.trim();
    if (!pixKeyType(pix)) throw bad('pix_key', 'a Pix key is an email, a +55 phone number, a CPF, a CNPJ or a random key');
  }

  const details: BankDetails = {
    account_owner_type: input.account_owner_type,
    account_holder_name: input.account_holder_name,
    bank_name: input.bank_name || null,
    rail: input.rail,
    currency: RAIL_CURRENCY[input.rail],
    account_number: accountNumber,
    routing_number: routing,
    account_type: accountType,
    iban,
    bic,
    sort_code: sortCode,
    clabe,
    pix_key: pix,
    tax_id: input.tax_id || null,
    country: input.country || null,
  };
  return { details, masked: maskBankDetails(details) };
}

/**
 * `normalizeBeneficiary` for a payout whose corridor pays on `fiatRail` (spec 2.6, 4.3): the
 * body's `rail` may be omitted (the payout's rail is used) or must name that rail. Throws `400
 * invalid_request` `parameter_invalid` param `rail` for another rail or a corridor that takes no
 * bank details, then as `normalizeBeneficiary`.
 */
export function normalizePayoutBeneficiary(
  fiatRail: string,
  input: PayoutBeneficiaryInput,
): { details: BankDetails; masked: MaskedBeneficiary } {
  const rail = beneficiaryRailOf(fiatRail);
  if (!rail) throw invalidRequest('parameter_invalid', `The ${fiatRail} rail takes no bank details.`, 'rail', { rail: fiatRail });
  if (input.rail !== undefined && input.rail !== null && input.rail !== rail) {
    throw invalidRequest('parameter_invalid', `This payout pays on the ${rail} rail: \`rail\` must be ${rail} or omitted.`, 'rail', {
      expected: rail,
      received: input.rail,
    });
  }
  return normalizeBeneficiary({ ...input, rail });
}

/**
 * The masked projection of raw details (already normalized by `normalizeBeneficiary`, now or by
 * an older version): last four of the account number, IBAN, CLABE and Pix key, the IBAN's
 * country, the Pix key's kind; routing number, sort code and BIC in full. `currency` defaults to
 * the rail's. `tax_id` and `country` are never shown.
 */
export function maskBankDetails(storedBankDetails: StoredBankDetails): MaskedBeneficiary {
  const iban = storedBankDetails.iban ?? null;
  const pix = storedBankDetails.pix_key ?? null;
  return {
    beneficiary_owner_type: storedBankDetails.account_owner_type,
    account_holder_name: storedBankDetails.account_holder_name,
    bank_name: storedBankDetails.bank_name || null,
    rail: storedBankDetails.rail,
    currency: storedBankDetails.currency ?? RAIL_CURRENCY[storedBankDetails.rail],
    account_type: storedBankDetails.account_type ?? null,
    account_number_last4: last4(storedBankDetails.account_number ?? null),
    routing_number: storedBankDetails.routing_number ?? null,
    sort_code: storedBankDetails.sort_code ?? null,
    iban_country: iban ? iban.slice(0, 2) : null,
    iban_last4: last4(iban),
    bic: storedBankDetails.bic || null,
    clabe_last4: last4(storedBankDetails.clabe ?? null),
    pix_key_type: pix ? pixKeyType(pix) : null,
    pix_key_last4: last4(pix),
  };
}

/** The last four characters of the masked account identifier, whichever the rail uses (for messages). */
export function maskedAccountEnding(maskedBeneficiary: MaskedBeneficiary): string | null {
  return (
    maskedBeneficiary.account_number_last4 ??
    maskedBeneficiary.iban_last4 ??
    maskedBeneficiary.clabe_last4 ??
    maskedBeneficiary.pix_key_last4
  );
}
