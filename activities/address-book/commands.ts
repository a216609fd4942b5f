/**
 * Address book (spec 2.11 "Address book entry", 4.10; destinations of payment links, 2.3).
 *
 * Entries are `crypto` (chain + address, validated per chain by domain/addresses.ts, screened by
 * the address screening provider) or `bank` (bank details attached once through
 * `setBeneficiary`, stored encrypted, read back masked). Every function is scoped to (account,
 * livemode): any other id is `404 not_found` (also cross-account and deleted entries).
 * Provider calls happen outside database transactions; each write is one transaction.
 * Errors are DomainErrors with the spec's type/code/param (see each function).
 */
import { QueryFailedError, type EntityManager } from 'typeorm';
import { COUNTRIES } from '../../domain/countries';
import { addressBookEntryView } from '../../views/address-book';
import { checkAddress, CHAIN_NAMES, resolveChain, type ChainName } from '../../domain/addresses';
import { normalizeBeneficiary, type BeneficiaryInput } from '../../domain/bank-details';
import { conflict, DomainError, invalidRequest, notFound, temporarilyUnavailable } from '../../domain/errors';
import { AddressBookEntry, type AddressScreening } from '../../entities';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { logger } from '../../lib/logger';
import { encrypt } from '../../lib/secrets';
import { chainAdapter } from '../../providers/chain';
import { addressScreeningProvider, ScreeningUnavailableError } from '../../providers/screening';
import { emitEvent } from '../../lib/outbox';
import { scoped } from '../../lib/scoped';
import type { AccountScope, Scope } from '../scope';

/** Payment-link statuses in which a link still uses its destination (delete is refused). */
export const LINK_STATUSES_USING_DESTINATION = ['draft', 'active', 'viewed', 'processing'];

/** Counterparty fields shared by create and update (null clears on update). */
export interface CounterpartyInput {
  label?: string | null;
  counterparty_name?: string | null;
  counterparty_country?: string | null;
  counterparty_vasp_name?: string | null;
  counterparty_vasp_jurisdiction?: string | null;
}

export interface CreateEntryInput extends CounterpartyInput {
  kind: 'crypto' | 'bank';
  chain?: string | number | null;
  address?: string | null;
}

const COUNTERPARTY_KEYS = [
  'counterparty_name',
  'counterparty_country',
  'counterparty_vasp_name',
  'counterparty_vasp_jurisdiction',
] as const;
const VASP_KEYS = ['counterparty_vasp_name', 'counterparty_vasp_jurisdiction'] as const;

function entryNotFound(id: string): DomainError {
  return notFound(`No such address book entry: ${id}.`, 'id');
}

/** `XX` alpha-2 upper-cased on write (spec 2.11); not a known country: 400 param = field. */
function alpha2(v: string | null | undefined, param: string): string | null | undefined {
  if (v === undefined || v === null) return v;
  const up = v.trim().toUpperCase();
  if (!COUNTRIES.has(up)) throw invalidRequest('parameter_invalid', `\`${param}\` must be an ISO 3166-1 alpha-2 country code.`, param);
  return up;
}

/** Empty strings become null (optional text fields). */
function textOrNull(v: string | null | undefined): string | null | undefined {
  if (v === undefined) return undefined;
  return v === null || v === '' ? null : v;
}

/**
 * Applies label and counterparty fields present in `input` to `e` (undefined keeps, null
 * clears), then recomputes `travel_rule_required` (a crypto entry whose counterparty is a VASP,
 * i.e. `counterparty_vasp_name` set) and stamps `travel_rule_last_attested_at` when any
 * counterparty field was written (a dashboard person's write is the attestation).
 * VASP fields on a bank entry: 400 `parameter_invalid`.
 */
function applyCounterparty(e: AddressBookEntry, input: CounterpartyInput, now: Date): void {
  if (e.kind === 'bank') {
    for (const k of VASP_KEYS) {
      if (input[k] !== undefined && input[k] !== null)
        throw invalidRequest('parameter_invalid', `\`${k}\` applies to crypto entries only.`, k);
    }
  }
  const label = textOrNull(input.label);
  if (label !== undefined) e.label = label;
  const name = textOrNull(input.counterparty_name);
  if (name !== undefined) e.counterparty_name = name;
  const country = alpha2(textOrNull(input.counterparty_country), 'counterparty_country');
  if (country !== undefined) e.counterparty_country = country;
  const vasp = textOrNull(input.counterparty_vasp_name);
  if (vasp !== undefined) e.counterparty_vasp_name = vasp;
  const jurisdiction = alpha2(textOrNull(input.counterparty_vasp_jurisdiction), 'counterparty_vasp_jurisdiction');
  if (jurisdiction !== undefined) e.counterparty_vasp_jurisdiction = jurisdiction;
  e.travel_rule_required = e.kind === 'crypto' && !!e.counterparty_vasp_name;
  if (COUNTERPARTY_KEYS.some((k) => input[k] !== undefined)) e.travel_rule_last_attested_at = now;
}

/** Screens (chain, address) now; an unavailable provider yields `status: unavailable` (never blocks a create). */
async function screen(chain: ChainName, address: string, addressKey: string): Promise<{ result: AddressScreening; available: boolean }> {
  try {
    const r = await addressScreeningProvider().screenAddress({ chain, address, addressKey });
    return {
      available: true,
      result: {
        status: 'completed',
        risk_score: r.risk_score,
        risk_level: r.risk_level,
        verdict: r.verdict,
        action: r.action,
        flags: r.flags,
        provider_version: r.provider_version,
        screened_at: r.screened_at.toISOString(),
      },
    };
  } catch (err) {
    if (!(err instanceof ScreeningUnavailableError)) logger.error({ err, chain }, 'address screening failed');
    return {
      available: false,
      result: {
        status: 'unavailable',
        risk_score: null,
        risk_level: null,
        verdict: null,
        action: null,
        flags: [],
        provider_version: null,
        screened_at: new Date().toISOString(),
      },
    };
  }
}

function isUniqueViolation(e: unknown, constraint: string): boolean {
  const d = (e as { driverError?: { code?: string; constraint?: string } })?.driverError;
  return e instanceof QueryFailedError && d?.code === '23505' && d.constraint === constraint;
}

async function liveDuplicate(m: EntityManager, scope: AccountScope, chain: string, key: string): Promise<string | null> {
  const own = scoped(scope, m).sql(null, 1);
  const rows: Array<{ id: string }> = await m.query(
    `SELECT id FROM address_book_entries WHERE ${own.where} AND chain = $3 AND address_key = $4 AND deleted_at IS NULL LIMIT 1`,
    [...own.params, chain, key],
  );
  return rows[0]?.id ?? null;
}

function duplicateError(existingId: string): DomainError {
  return conflict('address_book_entry_exists', 'This address is already in the address book on this chain.', {
    address_book_id: existingId,
  });
}

/**
 * Creates an entry (spec 4.10 `POST /address_book`).
 * crypto: `chain` (id or name, case-insensitive; unsupported: 400 `parameter_invalid` param
 * `chain`) and `address` (400 `address_invalid` param `address` with `details.reason` when the
 * format or checksum is wrong for the chain; EVM mixed case needs a valid EIP-55 checksum; the
 * zero address is refused) are required (400 `parameter_missing`); the address is kept verbatim
 * and screened (an unavailable screening provider does not block the create: screening
 * `status: unavailable`, recheck later). The same live address on the same chain: 409 conflict
 * `address_book_entry_exists` with `details.address_book_id`.
 * bank: `chain`/`address` are refused (400 `parameter_invalid`); details follow through
 * `setBeneficiary`.
 */
export async function createEntry(scope: Scope, input: CreateEntryInput): Promise<AddressBookEntry> {
  const now = new Date();
  const e = db()
    .getRepository(AddressBookEntry)
    .create({
      id: newId('adr_'),
      account_id: scope.accountId,
      livemode: scope.livemode,
      kind: input.kind,
      label: null,
      chain: null,
      address: null,
      address_key: null,
      bank_details_ciphertext: null,
      counterparty_name: null,
      counterparty_country: null,
      counterparty_vasp_name: null,
      counterparty_vasp_jurisdiction: null,
      travel_rule_required: false,
      travel_rule_last_attested_at: null,
      proof_method: null,
      proof_verified_at: null,
      proof_artifact_url: null,
      deleted_at: null,
      screening: null,
      bank_rail: null,
      bank_currency: null,
      beneficiary_masked: null,
      beneficiary_set_at: null,
    });
  if (input.kind === 'crypto') {
    if (input.chain === undefined || input.chain === null || input.chain === '')
      throw invalidRequest('parameter_missing', 'A crypto entry needs `chain`.', 'chain');
    const chain = resolveChain(input.chain);
    if (!chain)
      throw invalidRequest('parameter_invalid', `Unsupported chain. Supported: ${CHAIN_NAMES.join(', ')}.`, 'chain', {
        supported_chains: [...CHAIN_NAMES],
      });
    if (!input.address) throw invalidRequest('parameter_missing', 'A crypto entry needs `address`.', 'address');
    const checked = checkAddress(chain, input.address, chainAdapter().network);
    if (!checked.ok)
      throw invalidRequest('address_invalid', `This is not a valid ${chain} address: ${checked.reason}.`, 'address', {
        chain,
        reason: checked.reason,
      });
    e.chain = chain;
    e.address = checked.address;
    e.address_key = checked.key;
  } else {
    if (input.chain !== undefined && input.chain !== null)
      throw invalidRequest(
        'parameter_invalid',
        'A bank entry has no `chain`; add bank details with POST /address_book/{id}/beneficiary.',
        'chain',
      );
    if (input.address !== undefined && input.address !== null)
      throw invalidRequest(
        'parameter_invalid',
        'A bank entry has no `address`; add bank details with POST /address_book/{id}/beneficiary.',
        'address',
      );
  }
  applyCounterparty(e, input, now);

  if (e.kind === 'crypto') {
    const dup = await liveDuplicate(db().manager, scope, e.chain!, e.address_key!);
    if (dup) throw duplicateError(dup);
    e.screening = (await screen(e.chain as ChainName, e.address!, e.address_key!)).result;
  }
  try {
    return await transaction(async (m) => {
      await m.save(e);
      return m.findOneByOrFail(AddressBookEntry, { id: e.id });
    });
  } catch (err) {
    if (isUniqueViolation(err, 'address_book_live_address_uq')) {
      const dup = await liveDuplicate(db().manager, scope, e.chain!, e.address_key!);
      throw duplicateError(dup ?? 'unknown');
    }
    throw err;
  }
}

/** Loads a live entry of the scope's (account, livemode) through `m`, optionally row-locked; 404 param `id` otherwise (deleted included). */
export async function loadEntry(manager: EntityManager, scope: AccountScope, id: string, lock = false): Promise<AddressBookEntry> {
  const s = scoped(scope, manager);
  const e = lock ? await s.lock(AddressBookEntry, { id }, () => entryNotFound(id)) : await s.findOne(AddressBookEntry, { id });
  if (!e || e.deleted_at) throw entryNotFound(id);
  return e;
}

/**
 * Updates `label` and counterparty fields (spec 4.10 PATCH; null clears; `chain`, `address` and
 * `kind` are not writable: a different destination is a new entry). Errors: 404; 400 as in create.
 */
export async function updateEntry(scope: Scope, input: CounterpartyInput & { id: string }): Promise<AddressBookEntry> {
  const { id } = input;
  return transaction(async (m) => {
    const e = await loadEntry(m, scope, id, true);
    applyCounterparty(e, input, new Date());
    await m.save(e);
    return m.findOneByOrFail(AddressBookEntry, { id });
  });
}

/**
 * Deletes an entry (spec 4.10 DELETE). Refused while a payment link that can still be paid or
 * settled uses it as `settlement_destination` (status draft, active, viewed or processing):
 * `409 conflict` `address_book_entry_in_use` with `details.payment_link_ids` (up to 20). Links
 * that ended keep their reference. The entry is soft-deleted (404 afterwards; the address may be
 * added again). The row lock serializes with link writes, which lock the entry in share mode.
 */
export async function deleteEntry(scope: Scope, input: { id: string }): Promise<void> {
  await transaction(async (m) => {
    const e = await loadEntry(m, scope, input.id, true);
    const links: Array<{ id: string }> = await m.query(
      `SELECT id FROM payment_links WHERE settlement_destination_id = $1 AND status = ANY($2) ORDER BY created_at DESC LIMIT 20`,
      [e.id, LINK_STATUSES_USING_DESTINATION],
    );
    if (links.length) {
      throw conflict(
        'address_book_entry_in_use',
        'Payment links that can still be paid settle to this entry; cancel them or choose another destination first.',
        { payment_link_ids: links.map((l) => l.id) },
      );
    }
    e.deleted_at = new Date();
    await m.save(e);
  });
}

/**
 * Re-screens a crypto entry now (spec 4.10 `recheck`, 6 `address_book.entry_rechecked`). The
 * result is a signal, never a block: a high risk does not disable the entry. Errors: 404; a bank
 * entry 400 `address_book_entry_kind_mismatch`; provider unavailable 503 temporarily_unavailable
 * `screening_unavailable` (Retry-After 30; the previous result is kept).
 * Stores the result and emits `address_book.entry_rechecked` in one transaction.
 */
export async function recheckEntry(scope: Scope, input: { id: string }): Promise<AddressBookEntry> {
  const { id } = input;
  const before = await loadEntry(db().manager, scope, id);
  if (before.kind !== 'crypto') {
    throw invalidRequest('address_book_entry_kind_mismatch', 'Only crypto entries are screened; this is a bank entry.', undefined, {
      kind: before.kind,
    });
  }
  const key = before.address_key ?? before.address!.toLowerCase();
  const { result, available } = await screen(before.chain as ChainName, before.address!, key);
  if (!available)
    throw temporarilyUnavailable(
      'screening_unavailable',
      'The screening provider is unavailable; the previous result is kept. Retry later.',
      { retry_after_seconds: 30 },
    );
  return transaction(async (m) => {
    const e = await loadEntry(m, scope, id, true);
    const previous = e.screening;
    e.screening = result;
    await m.save(e);
    const saved = await m.findOneByOrFail(AddressBookEntry, { id });
    await emitEvent(m, {
      accountId: scope.accountId,
      livemode: scope.livemode,
      type: 'address_book.entry_rechecked',
      objectType: 'address_book_entry',
      objectId: id,
      object: { ...addressBookEntryView(saved), previous_screening: previous ?? null },
      request: scope.request,
    });
    return saved;
  });
}

/**
 * Attaches bank details to a bank entry, once (spec 4.10 `beneficiary`, 2.6 "Beneficiary"): the
 * raw details are validated for their rail (domain/bank-details.ts; 400 `parameter_missing` /
 * `parameter_invalid` naming the field), encrypted with the application key and never read back;
 * the masked projection is stored beside them. Errors: 404; a crypto entry 400
 * `address_book_entry_kind_mismatch`; details already set 409 conflict `beneficiary_already_set`
 * (bank details of an entry never change: add a new entry). `input.beneficiary`: the raw details.
 */
export async function setBeneficiary(scope: Scope, input: { id: string; beneficiary: BeneficiaryInput }): Promise<AddressBookEntry> {
  const { id } = input;
  return transaction(async (m) => {
    const e = await loadEntry(m, scope, id, true);
    if (e.kind !== 'bank')
      throw invalidRequest(
        'address_book_entry_kind_mismatch',
        'Bank details apply to bank entries only; this is a crypto entry.',
        undefined,
        { kind: e.kind },
      );
    if (e.beneficiary_set_at)
      throw conflict('beneficiary_already_set', 'Bank details of an entry are set once; add a new entry for other details.');
    const { details, masked } = normalizeBeneficiary(input.beneficiary);
    e.bank_details_ciphertext = encrypt(JSON.stringify(details));
    e.beneficiary_masked = masked;
    e.bank_rail = masked.rail;
    e.bank_currency = masked.currency;
    e.beneficiary_set_at = new Date();
    await m.save(e);
    return m.findOneByOrFail(AddressBookEntry, { id });
  });
}
