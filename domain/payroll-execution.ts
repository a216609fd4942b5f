/**
 * Payroll execution rules (spec 2.7, 4.4): the raw destination an item pays (as stored
 * encrypted on the recipient and item), the USDC amount a wallet destination receives for an
 * item amount, and the normalized item `failure_reason`. Pure: no I/O, safe in workflows.
 */
import type { BankDetails } from './bank-details';
import { fiatToUsdcCeil, REFERENCE_RATES_USDC_PER_MAJOR } from './payouts/pricing';

/** Raw destination of a recipient (the plaintext behind `destination_ciphertext`): bank details or a USDC wallet. */
export type PayrollDestination =
  { type: 'bank_account'; bank: BankDetails } | { type: 'wallet'; chain: string; asset: string; address: string };

/** Parses the plaintext of a stored destination; null when it is not one (never throws). */
export function parsePayrollDestination(plain: string): PayrollDestination | null {
  let v: unknown;
  try {
    v = JSON.parse(plain);
  } catch {
    return null;
  }
  if (!v || typeof v !== 'object') return null;
  const d = v as Record<string, unknown>;
  if (d.type === 'wallet' && typeof d.address === 'string' && typeof d.chain === 'string') {
    return { type: 'wallet', chain: d.chain, asset: typeof d.asset === 'string' ? d.asset : 'USDC', address: d.address };
  }
  if (d.type === 'bank_account' && d.bank && typeof d.bank === 'object' && typeof (d.bank as { rail?: unknown }).rail === 'string') {
    return { type: 'bank_account', bank: d.bank as BankDetails };
  }
  return null;
}

/**
 * USDC minor units (6 decimals) a wallet destination receives for an item of `amountMinor` in
 * `currency` (scale `decimals`): the reference rate, rounded up so the recipient is never short by
 * rounding. RangeError for a currency without a rate (never a run currency).
 */
export function itemPaymentAmount(amountMinor: bigint, currency: string, decimals: number): bigint {
  const rate = REFERENCE_RATES_USDC_PER_MAJOR[currency];
  if (rate === undefined) throw new RangeError(`no reference rate for ${currency}`);
  return fiatToUsdcCeil(amountMinor, decimals, rate);
}

/** Normalized item `failure_reason` codes (snake_case; the rail's own text is never surfaced as a reason). */
export const ITEM_FAILURE_REASONS = Object.freeze([
  'destination_missing',
  'no_account',
  'account_closed',
  'invalid_account',
  'rail_rejected',
  'provider_error',
] as const);
export type ItemFailureReason = (typeof ITEM_FAILURE_REASONS)[number];

/** A code of ours as is; anything else becomes `provider_error`. */
export function normalizeItemFailure(raw: string | null | undefined): ItemFailureReason {
  return (ITEM_FAILURE_REASONS as readonly string[]).includes(raw ?? '') ? (raw as ItemFailureReason) : 'provider_error';
}
