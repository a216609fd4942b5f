/**
 * Payout fee and FX arithmetic (spec 2.6 funding instructions, 8), in bigint minor units: USDC at
 * 6 decimals, fiat at its currency's scale; fees in basis points. The sandbox reference rates, fiat
 * <-> USDC conversion (rounded against the service: up to USDC, down to fiat), the gross-up for a
 * fee on the gross, the funding quote (rounded up to the cent, buffer of at most 0.05%, 100 bps
 * fee), the fiat payable for what arrived, and the cross-network estimate of a service-wallet send.
 * Errors: RangeError for bps outside 0..9999 or a currency without a reference rate. Pure.
 */
import { bpsOf } from '../fees';
import { ceilDiv, floorDiv } from '../money';

/** Fee on the gross source amount, in basis points (spec 2.6 `fee_bps`, 8: 100 bps). */
export const PAYOUT_FEE_BPS = 100;
/** Funding buffer in basis points (spec 8: at most 0.05%). */
export const PAYOUT_BUFFER_BPS = 5;

/**
 * Sandbox reference rates: USDC minor units (6 decimals) per one major unit of fiat. A live
 * deployment reads these from its quote provider; figures derived from them are estimates.
 */
export const REFERENCE_RATES_USDC_PER_MAJOR: Readonly<Record<string, bigint>> = Object.freeze({
  USD: 1_000_000n,
  EUR: 1_080_000n,
  GBP: 1_270_000n,
  BRL: 200_000n,
  MXN: 58_000n,
  COP: 250n,
});

/**
 * Converts a fiat amount (minor units at `decimals`) to USDC minor units at `ratePerMajor`
 * (USDC minor per fiat major), rounded up (never under-quote).
 */
export function fiatToUsdcCeil(fiatMinor: bigint, decimals: number, ratePerMajor: bigint): bigint {
  return ceilDiv(fiatMinor * ratePerMajor, 10n ** BigInt(decimals));
}

/** Converts USDC minor units to fiat minor units at `ratePerMajor`, rounded down (never over-promise). */
export function usdcToFiatFloor(usdcMinor: bigint, decimals: number, ratePerMajor: bigint): bigint {
  return floorDiv(usdcMinor * 10n ** BigInt(decimals), ratePerMajor);
}

/** USDC minor units in one cent. */
const CENT_USDC = 10_000n;

/**
 * Gross source amount for a net `amount` with a fee of `bps` on the gross (spec 2.6):
 * gross = amount x 10000 / (10000 - bps), rounded up to the USDC minor unit. RangeError for bps outside 0..9999.
 */
export function grossUp(amount: bigint, bps: number): bigint {
  if (!Number.isSafeInteger(bps) || bps < 0 || bps >= 10000) throw new RangeError(`bps must be 0..9999, got ${bps}`);
  return ceilDiv(amount * 10000n, BigInt(10000 - bps));
}

/** Funding estimate of spec 2.6, all in USDC minor units (6 decimals). */
export interface FundingQuote {
  /** The invoice converted at the reference rate, before rounding. */
  quote: bigint;
  /** `quote` rounded up to the cent (a multiple of 10000). */
  rounded: bigint;
  /** floor(rounded x 0.05%) floored to the cent: at most 0.05% (spec 8). */
  buffer: bigint;
  /** rounded + buffer: what must arrive net of the fee. */
  amount: bigint;
  /** gross - amount. */
  fee: bigint;
  /** amount x 10000 / (10000 - fee_bps), rounded up: what the payer sends. */
  gross: bigint;
}

/**
 * Funding quote of an invoice (spec 2.6 funding instructions, 8): quote rounded up to the cent,
 * plus a buffer of at most 0.05% (floored to the cent, so never above the cap), then grossed up
 * for `feeBps` on the gross source amount. Throws RangeError for an unknown currency rate.
 */
export function fundingQuote(invoiceMinor: bigint, currency: string, decimals: number, feeBps = PAYOUT_FEE_BPS): FundingQuote {
  const rate = REFERENCE_RATES_USDC_PER_MAJOR[currency];
  if (rate === undefined) throw new RangeError(`no reference rate for ${currency}`);
  const quote = fiatToUsdcCeil(invoiceMinor, decimals, rate);
  const rounded = ceilDiv(quote, CENT_USDC) * CENT_USDC;
  const buffer = floorDiv(bpsOf(rounded, PAYOUT_BUFFER_BPS, 'floor'), CENT_USDC) * CENT_USDC;
  const amount = rounded + buffer;
  const gross = grossUp(amount, feeBps);
  return { quote, rounded, buffer, amount, fee: gross - amount, gross };
}

/**
 * Fiat the provider pays for `receivedUsdc` that arrived (spec 2.6, 8): the fee of `feeBps` on the
 * gross received amount (rounded up) is taken, the rest converted at the reference rate (floored),
 * capped at the invoice: the recipient is paid the invoice, never more.
 */
export function fiatPayable(
  receivedUsdc: bigint,
  invoiceMinor: bigint,
  currency: string,
  decimals: number,
  feeBps = PAYOUT_FEE_BPS,
): { fee: bigint; net: bigint; fiat: bigint } {
  const rate = REFERENCE_RATES_USDC_PER_MAJOR[currency];
  if (rate === undefined) throw new RangeError(`no reference rate for ${currency}`);
  const fee = bpsOf(receivedUsdc, feeBps, 'ceil');
  const net = receivedUsdc - fee;
  const fiat = usdcToFiatFloor(net, decimals, rate);
  return { fee, net, fiat: fiat > invoiceMinor ? invoiceMinor : fiat };
}

/** Cross-network cost of a service-wallet send in bps of the delivery (sandbox router), minimum one cent. */
export const CROSS_NETWORK_COST_BPS = 10;

/** Wallet send estimate for delivering `required` USDC on another chain: required + max(ceil(10 bps), 1 cent). */
export function walletSendEstimate(required: bigint, sameChain: boolean): bigint {
  if (sameChain) return required;
  const cost = bpsOf(required, CROSS_NETWORK_COST_BPS, 'ceil');
  return required + (cost < CENT_USDC ? CENT_USDC : cost);
}
