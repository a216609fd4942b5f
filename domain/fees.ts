/**
 * Payer fee and total due on crypto rails (spec 2.4, 4.6, 8): 1% (100 bps), payer-borne,
 * floor rounding at 6 decimals, on the native and cross-network crypto rails. A USD invoice
 * settles in USDC 1:1.
 *
 * Pure: no I/O. Safe to import from Temporal workflows.
 */
import { DomainError, invalidRequest } from './errors';
import { ceilDiv, floorDiv, Money, money, rescale, toMinor } from './money';

/** Payer fee in basis points (spec 8: 1% = 100 bps). */
export const PAYER_FEE_BPS = 100;

/** Decimals the payer fee is rounded at (spec 4.6 `rounding_decimals: 6`). */
export const PAYER_FEE_ROUNDING_DECIMALS = 6;

/** The payer fee as published by `GET /capabilities?product=payment_links` (spec 4.6). */
export const PAYER_FEE_CAPABILITY = Object.freeze({
  kind: 'percentage',
  bps: PAYER_FEE_BPS,
  applies_to: 'payer',
  rails: Object.freeze(['crypto_native', 'crypto_xchain']),
  rounding: 'floor',
  rounding_decimals: PAYER_FEE_ROUNDING_DECIMALS,
} as const);

/**
 * `amount * bps / 10000` rounded as named (`floor` toward -inf, `ceil` toward +inf).
 * `amount` in minor units; `bps` a non-negative integer (RangeError otherwise).
 */
export function bpsOf(amount: bigint, bps: number, rounding: 'floor' | 'ceil'): bigint {
  if (!Number.isSafeInteger(bps) || bps < 0) throw new RangeError(`bps must be a non-negative integer, got ${bps}`);
  const n = amount * BigInt(bps);
  if (rounding === 'floor') return floorDiv(n, 10000n);
  if (rounding === 'ceil') return ceilDiv(n, 10000n);
  throw new RangeError(`unknown rounding ${String(rounding)}`);
}

/**
 * Settlement asset of a crypto pay-in for an invoice currency (spec 2.4, 8): USD -> `USDC`
 * (1:1). Any other currency throws DomainError `invalid_request` (422, spec 4.1 and part 7) code
 * `native_via_provider_not_enabled` with HTTP status 422 (spec 4.1 lists it as a 422) and
 * `details.currency`.
 */
export function settlementAssetFor(invoiceCurrency: string): 'USDC' {
  if (invoiceCurrency === 'USD') return 'USDC';
  throw new DomainError(
    'invalid_request',
    'native_via_provider_not_enabled',
    `Crypto settlement is only available for USD links, not ${String(invoiceCurrency)}.`,
    { details: { currency: invoiceCurrency }, status: 422 },
  );
}

/** Result of `totalDue`: all three are USDC Money with 6 decimals; `total = invoice + fee`. */
export interface TotalDue {
  invoice: Money;
  fee: Money;
  total: Money;
}

/**
 * Total the payer must send for a crypto pay-in (spec 2.4 "total due (invoice plus 1% fee)", 8).
 * `invoice` is the link amount (wire Money, e.g. `{amount:'10000',currency:'USD',decimals:2}`);
 * it is converted 1:1 into USDC at 6 decimals (exact), and
 * `fee = floor(invoiceUsdc * PAYER_FEE_BPS / 10000)` in USDC minor units.
 * Example: 100.00 USD -> invoice 100000000, fee 1000000, total 101000000 (USDC, 6 dec).
 * Throws: `toMinor` errors (`amount_invalid`, `currency_invalid`), `amount_invalid` when the
 * amount is not strictly positive, `native_via_provider_not_enabled` for non-USD.
 */
export function totalDue(invoice: Money): TotalDue {
  const minor = toMinor(invoice, 'amount');
  if (minor <= 0n) throw invalidRequest('amount_invalid', 'amount must be strictly positive.', 'amount');
  const asset = settlementAssetFor(invoice.currency);
  const invoiceUsdc = rescale(minor, invoice.decimals, PAYER_FEE_ROUNDING_DECIMALS, 'exact');
  const fee = bpsOf(invoiceUsdc, PAYER_FEE_BPS, 'floor');
  return {
    invoice: money(invoiceUsdc, asset),
    fee: money(fee, asset),
    total: money(invoiceUsdc + fee, asset),
  };
}
