/**
 * Payment link rails (spec 2.3 allowed_rails / payable_rails / expected_payer_type, 4.1
 * create and activate errors, 7 route-dependent error type of
 * `allowed_rails_invalid_for_currency`).
 *
 * Pure: no I/O. Safe to import from Temporal workflows.
 */
import { DomainError, invalidRequest } from './errors';

/** The closed request enum of `allowed_rails`, in canonical order (every rail list is returned in this order). */
export const RAILS_CLOSED = Object.freeze([
  'crypto_native',
  'crypto_xchain',
  'ach',
  'wire',
  'sepa',
  'faster_payments',
  'pix',
  'spei',
] as const);

/** One rail of the closed request enum. */
export type Rail = (typeof RAILS_CLOSED)[number];

/** Crypto pay-in rails (the payer fee applies to them; spec 4.6). */
export const CRYPTO_RAILS: readonly Rail[] = Object.freeze(['crypto_native', 'crypto_xchain'] as const);

/** Bank pay-in rails. */
export const BANK_RAILS: readonly Rail[] = Object.freeze(['ach', 'wire', 'sepa', 'faster_payments', 'pix', 'spei'] as const);

const OFFERABLE: Readonly<Record<string, readonly Rail[]>> = Object.freeze({
  USD: Object.freeze(['crypto_native', 'crypto_xchain', 'ach', 'wire'] as Rail[]),
  EUR: Object.freeze(['sepa'] as Rail[]),
  GBP: Object.freeze(['faster_payments'] as Rail[]),
  BRL: Object.freeze(['pix'] as Rail[]),
  MXN: Object.freeze(['spei'] as Rail[]),
});

/** True when `r` is in RAILS_CLOSED. */
export function isRail(row: unknown): row is Rail {
  return typeof row === 'string' && (RAILS_CLOSED as readonly string[]).includes(row);
}

/** True for crypto_native / crypto_xchain. */
export function isCryptoRail(reason: string): boolean {
  return (CRYPTO_RAILS as readonly string[]).includes(reason);
}

/** True for the bank rails. */
export function isBankRail(reason: string): boolean {
  return (BANK_RAILS as readonly string[]).includes(reason);
}

/**
 * Rails a link in `currency` can offer at all: USD crypto_native, crypto_xchain, ach, wire;
 * EUR sepa; GBP faster_payments; BRL pix; MXN spei; any other currency none. New array.
 */
export function offerableRails(currency: string): string[] {
  return Object.prototype.hasOwnProperty.call(OFFERABLE, currency) ? [...OFFERABLE[currency]] : [];
}

/** The one currency a bank rail is offered for (ach/wire USD, sepa EUR, faster_payments GBP, pix BRL, spei MXN); null for a crypto rail. */
export function offerableCurrencyOf(rail: string): string | null {
  if (!isBankRail(rail)) return null;
  return Object.keys(OFFERABLE).find((c) => OFFERABLE[c].includes(rail as Rail)) ?? null;
}

/** Keep the rails of `set` that are in RAILS_CLOSED, deduplicated, in RAILS_CLOSED order. */
function canonical(set: Iterable<string>): string[] {
  const s = new Set(set);
  return RAILS_CLOSED.filter((r) => s.has(r));
}

/** Input of `computePayableRails` (the stored link plus the account's executable rails now). */
export interface PayableRailsInput {
  status: string;
  currency: string;
  allowedRails: string[] | null;
  cryptoOnly: boolean;
  settlementKind: string | null;
  expectedPayerType: 'crypto' | 'bank' | 'any' | null;
  executableRails: string[];
  /**
   * Kind of the settlement destination frozen at activation: `bank` settles through the
   * fiat provider to a bank account and takes bank rails only; `crypto` settles to a crypto
   * address and takes crypto rails only; null/absent: no narrowing.
   */
  destinationKind?: 'bank' | 'crypto' | null;
}

/**
 * `payable_rails` (spec 2.3, computed on every read): empty unless the link status is
 * active, viewed or processing; otherwise `(allowedRails ?? offerable) ∩ offerable(currency)
 * ∩ executableRails`, without bank rails when `cryptoOnly` or settlementKind is
 * `crypto_only` or the destination is a crypto address, without crypto rails when the destination
 * is a bank account, narrowed to crypto (or bank) rails when `expectedPayerType` is
 * `crypto` (or `bank`). Deduplicated, in RAILS_CLOSED order.
 */
export function computePayableRails(input: PayableRailsInput): string[] {
  if (!['active', 'viewed', 'processing'].includes(input.status)) return [];
  const offerable = new Set(offerableRails(input.currency));
  const executable = new Set(input.executableRails);
  const cryptoOnly = input.cryptoOnly || input.settlementKind === 'crypto_only';
  return canonical(input.allowedRails ?? offerable).filter(
    (r) =>
      offerable.has(r) &&
      executable.has(r) &&
      !(cryptoOnly && isBankRail(r)) &&
      !(input.destinationKind === 'crypto' && isBankRail(r)) &&
      !(input.destinationKind === 'bank' && isCryptoRail(r)) &&
      !(input.expectedPayerType === 'crypto' && !isCryptoRail(r)) &&
      !(input.expectedPayerType === 'bank' && !isBankRail(r)),
  );
}

/**
 * `expected_payer_type` (spec 2.3): `crypto` when every payable rail is a crypto rail,
 * `bank` when every one is a bank rail, `any` when mixed (or only unknown rails), null when
 * nothing is payable.
 */
export function expectedPayerTypeOf(payable: string[]): 'crypto' | 'bank' | 'any' | null {
  if (payable.length === 0) return null;
  const crypto = payable.some(isCryptoRail);
  const bank = payable.some(isBankRail);
  if (crypto && !bank) return 'crypto';
  if (bank && !crypto) return 'bank';
  return 'any';
}

/** Options of `validateAllowedRails`. */
export interface ValidateAllowedRailsOptions {
  /** Activate: report the currency error as `409 conflict` instead of `400 invalid_request` (spec 7). */
  asConflict?: boolean;
}

/**
 * Validate `allowed_rails` of a link (spec 2.3, 4.1, 7) and return it deduplicated in
 * RAILS_CLOSED order (null stays null: no restriction). Throws DomainError, param `allowed_rails`:
 * - `400 invalid_request` code `invalid_request` when it is not an array of RAILS_CLOSED values, or is empty;
 * - code `allowed_rails_invalid_for_currency` when a rail is not offerable for `currency`:
 *   `400 invalid_request`, or `409 conflict` with `asConflict`; details
 *   `{ offerable_rails, currency, allowed_rails }`;
 * - `400 invalid_request` code `allowed_rails_invalid_for_settlement` when `cryptoOnly` and a
 *   bank rail is named; details `{ allowed_rails, bank_rails }` (the offending bank rails).
 */
export function validateAllowedRails(
  currency: string,
  allowed: string[] | null,
  cryptoOnly: boolean,
  opts: ValidateAllowedRailsOptions = {},
): string[] | null {
  if (allowed === null || allowed === undefined) return null;
  if (!Array.isArray(allowed) || !allowed.every(isRail)) {
    throw invalidRequest('invalid_request', `allowed_rails must be an array of: ${RAILS_CLOSED.join(', ')}.`, 'allowed_rails');
  }
  if (allowed.length === 0) {
    throw invalidRequest('invalid_request', 'allowed_rails must name at least one rail; send null for no restriction.', 'allowed_rails');
  }
  const rails = canonical(allowed);
  const offerable = offerableRails(currency);
  if (rails.some((r) => !offerable.includes(r))) {
    const details = { offerable_rails: offerable, currency, allowed_rails: rails };
    const message = `allowed_rails names a rail not offerable for ${currency}; offerable: ${offerable.join(', ') || 'none'}.`;
    if (opts.asConflict) {
      throw new DomainError('conflict', 'allowed_rails_invalid_for_currency', message, { details, param: 'allowed_rails' });
    }
    throw invalidRequest('allowed_rails_invalid_for_currency', message, 'allowed_rails', details);
  }
  const bank = rails.filter(isBankRail);
  if (cryptoOnly && bank.length > 0) {
    throw invalidRequest('allowed_rails_invalid_for_settlement', 'A crypto-only link cannot allow bank rails.', 'allowed_rails', {
      allowed_rails: rails,
      bank_rails: bank,
    });
  }
  return rails;
}
