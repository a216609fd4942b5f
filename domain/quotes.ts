/**
 * Quotes (spec 4.9, 2.10, 8 "Quote from_amount"): the pure rules of pricing a buy, sell or swap
 * across providers. Quote amounts are the one exception to Money on the wire (spec 1 rule 1):
 * bare decimal strings in major units. Internally every amount is a bigint of the asset's minor
 * units (fiat: the ISO 4217 exponent of domain/money.ts; crypto: the token's decimals).
 *
 * Pure: no I/O.
 */
import { DomainError, invalidRequest } from './errors';
import { FIAT_DECIMALS, isFiat } from './money';
import { SANCTIONED_COUNTRIES } from './eligibility';

export const QUOTE_SIDES = Object.freeze(['buy', 'sell', 'swap'] as const);
export type QuoteSide = (typeof QUOTE_SIDES)[number];

/** Crypto assets a quote can name, with their token decimals. */
export const CRYPTO_ASSET_DECIMALS: Readonly<Record<string, number>> = Object.freeze({ USDC: 6, USDT: 6, ETH: 18 });

/** Every asset a quote request may name (closed request enum): ISO 4217 codes of the registry and the crypto symbols. */
export const QUOTE_ASSETS: readonly string[] = Object.freeze([...Object.keys(FIAT_DECIMALS), ...Object.keys(CRYPTO_ASSET_DECIMALS)]);

/** Networks a quote may deliver to (buy `to_network`) or take from (sell `from_network`). */
export const QUOTE_NETWORKS = Object.freeze(['tempo', 'ethereum', 'base', 'polygon', 'arbitrum', 'optimism', 'solana'] as const);
export type QuoteNetwork = (typeof QUOTE_NETWORKS)[number];

/** Payment methods a quote can pin (`payment_method`): how the buyer pays, or how the seller is paid. */
export const PAYMENT_METHODS = Object.freeze(['bank_transfer', 'card', 'apple_pay', 'pix', 'spei', 'wallet_balance'] as const);
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/** Reason codes of a refused quote (spec 4.9 rule 3), `error.details.reason_code`. */
export const QUOTE_REASON_CODES = Object.freeze([
  'PAYMENT_METHOD_NOT_SUPPORTED',
  'COUNTRY_NOT_SUPPORTED',
  'LOCAL_CURRENCY_NOT_SUPPORTED',
  'PROVIDER_UNAVAILABLE',
  'PROVIDER_ERROR',
  'PROVIDER_FILTER_MISMATCH',
  'LIMIT_BELOW_MIN',
  'QUOTE_NETWORK_REQUIRED',
  'PROVIDER_PAUSED',
] as const);
export type QuoteReasonCode = (typeof QUOTE_REASON_CODES)[number];

/** Reference price of each asset in USD micro-units per major unit (sandbox reference; providers apply their spreads). */
export const USD_MICRO_PER_MAJOR: Readonly<Record<string, bigint>> = Object.freeze({
  USD: 1_000_000n,
  EUR: 1_080_000n,
  GBP: 1_270_000n,
  BRL: 200_000n,
  MXN: 58_000n,
  JPY: 6_700n,
  KWD: 3_250_000n,
  USDC: 1_000_000n,
  USDT: 1_000_000n,
  ETH: 3_000_000_000n,
});

/** Decimals (minor-unit scale) of a quote asset. */
export function assetDecimals(asset: string): number {
  if (isFiat(asset)) return FIAT_DECIMALS[asset];
  const d = CRYPTO_ASSET_DECIMALS[asset];
  if (d === undefined) throw invalidRequest('asset_invalid', `Unknown asset: ${asset}.`, 'from_asset');
  return d;
}

export const isCryptoAsset = (address: string): boolean => Object.prototype.hasOwnProperty.call(CRYPTO_ASSET_DECIMALS, address);

/** Which asset classes each side takes (`buy`: fiat -> crypto, `sell`: crypto -> fiat, `swap`: crypto -> crypto). */
export function assertSideAssets(side: QuoteSide, from: string, to: string): void {
  const want = { buy: ['fiat', 'crypto'], sell: ['crypto', 'fiat'], swap: ['crypto', 'crypto'] }[side];
  const cls = (a: string) => (isCryptoAsset(a) ? 'crypto' : 'fiat');
  if (cls(from) !== want[0])
    throw invalidRequest('asset_invalid_for_side', `A ${side} quote takes a ${want[0]} from_asset; ${from} is ${cls(from)}.`, 'from_asset');
  if (cls(to) !== want[1])
    throw invalidRequest('asset_invalid_for_side', `A ${side} quote takes a ${want[1]} to_asset; ${to} is ${cls(to)}.`, 'to_asset');
  if (from === to) throw invalidRequest('asset_invalid_for_side', 'from_asset and to_asset must differ.', 'to_asset');
}

/** The bare decimal of a quote amount (spec 4.9): at most 15 integer and 18 fractional digits, strictly positive. */
export const QUOTE_AMOUNT_PATTERN = /^(?=.*[1-9])[0-9]{1,15}(\.[0-9]{1,18})?$/;

/** Fractional digits of `s` that are significant (trailing zeros are fine, spec 4.9 rule 1). */
export function significantFractionDigits(text: string): number {
  const frac = text.split('.')[1] ?? '';
  return frac.replace(/0+$/, '').length;
}

/**
 * Spec 4.9 rule 1: on a buy, `from_amount` may carry no more significant fractional digits than
 * the fiat's scale (2 by default, 0 for zero-decimal currencies, 3 for KWD, BHD, OMR, JOD, TND).
 * Throws `422 amount_invalid` param `from_amount`.
 */
export function assertFiatScale(side: QuoteSide, fromAsset: string, fromAmount: string | undefined): void {
  if (side !== 'buy' || fromAmount === undefined || !isFiat(fromAsset)) return;
  const scale = FIAT_DECIMALS[fromAsset];
  if (significantFractionDigits(fromAmount) > scale) {
    throw new DomainError(
      'invalid_request',
      'amount_invalid',
      `${fromAsset} amounts take at most ${scale} fractional digit${scale === 1 ? '' : 's'}; got ${fromAmount}.`,
      { param: 'from_amount', status: 422 },
    );
  }
}

/** Parses a bare decimal into minor units at `decimals`, rounding the excess digits down or up. */
export function parseDecimal(text: string, decimals: number, rounding: 'floor' | 'ceil'): bigint {
  const [int, frac = ''] = text.split('.');
  const kept = (frac + '0'.repeat(decimals)).slice(0, decimals);
  let v = BigInt(int) * 10n ** BigInt(decimals) + BigInt(kept || '0');
  if (rounding === 'ceil' && /[1-9]/.test(frac.slice(decimals))) v += 1n;
  return v;
}

/** Formats minor units at `decimals` as a bare decimal in major units (always `decimals` fractional digits). */
export function formatDecimal(minor: bigint, decimals: number): string {
  const neg = minor < 0n;
  const a = neg ? -minor : minor;
  if (decimals === 0) return `${neg ? '-' : ''}${a}`;
  const s = a.toString().padStart(decimals + 1, '0');
  return `${neg ? '-' : ''}${s.slice(0, -decimals)}.${s.slice(-decimals)}`;
}

/**
 * Countries a quote is judged against (spec 4.9 rule 2): the explicit `country` and each forwarded
 * country header, each on its own. Unsupported (outside `supported`) or sanctioned: `409
 * capability_unavailable` `COUNTRY_NOT_SUPPORTED`, naming the source. Values that are not two
 * capital letters, and Cloudflare's `XX` (unknown), are not a country and are skipped; `T1` (Tor)
 * is refused.
 */
export function assertCountries(sources: Array<{ source: string; value: string }>, supported: ReadonlySet<string>): void {
  for (const { source, value } of sources) {
    if (value === 'XX' || !/^[A-Z][A-Z0-9]$/.test(value)) continue;
    if (value === 'T1' || SANCTIONED_COUNTRIES.has(value) || !supported.has(value)) {
      throw new DomainError('capability_unavailable', 'capability_unavailable', `Quotes are not offered in ${value} (from ${source}).`, {
        param: source === 'country' ? 'country' : undefined,
        details: { reason_code: 'COUNTRY_NOT_SUPPORTED', country: value, source },
      });
    }
  }
}

/** What a provider prices, in the request's terms. */
export interface QuoteTerms {
  side: QuoteSide;
  fromAsset: string;
  toAsset: string;
  /** Exactly one is set: the bare decimal the caller gave. */
  fromAmount: string | null;
  toAmount: string | null;
  paymentMethod: PaymentMethod | null;
  country: string | null;
  network: QuoteNetwork | null;
}

/** A provider's static pricing and filters (sandbox configuration of providers/quote-providers.ts). */
export interface ProviderPricing {
  id: string;
  sides: readonly QuoteSide[];
  fiats: readonly string[];
  cryptos: readonly string[];
  methods: readonly PaymentMethod[];
  networks: readonly QuoteNetwork[];
  countries: readonly string[];
  /** True when the provider cannot quote without `to_network` / `from_network`. */
  requiresNetwork: boolean;
  /** Fee on the amount paid in, basis points. */
  feeBps: bigint;
  /** Fixed fee in USD micro-units, charged in the paid-in asset. */
  fixedFeeUsdMicro: bigint;
  /** Spread on the reference rate, basis points. */
  spreadBps: bigint;
  /** Limits on the USD value of the amount paid in (micro-units). */
  minUsdMicro: bigint;
  maxUsdMicro: bigint;
  /** Crypto delivered in steps of this many fractional digits (e.g. 2: 0.01 USDC); null = the token's decimals. */
  outputDigits: number | null;
}

/** A priced offer, in minor units of its assets. */
export interface PricedOffer {
  paymentMethod: PaymentMethod;
  network: QuoteNetwork | null;
  finalIn: bigint;
  finalOut: bigint;
  fee: bigint;
}

/** Why a provider gave no offer (`providers[].reason` in lower case; the reason code upper case). */
export type NoOffer = { reason: string; code: QuoteReasonCode };

const usdOf = (minor: bigint, asset: string) => (minor * USD_MICRO_PER_MAJOR[asset]) / 10n ** BigInt(assetDecimals(asset));

/** The method a provider uses for these terms: the pinned one, or its first for the side. */
function methodFor(p: ProviderPricing, t: QuoteTerms): PaymentMethod | NoOffer {
  if (t.paymentMethod)
    return p.methods.includes(t.paymentMethod)
      ? t.paymentMethod
      : { reason: 'payment_method_not_supported', code: 'PAYMENT_METHOD_NOT_SUPPORTED' };
  if (t.side === 'swap')
    return p.methods.includes('wallet_balance')
      ? 'wallet_balance'
      : { reason: 'payment_method_not_supported', code: 'PAYMENT_METHOD_NOT_SUPPORTED' };
  const m = p.methods.find((x) => x !== 'wallet_balance');
  return m ?? { reason: 'payment_method_not_supported', code: 'PAYMENT_METHOD_NOT_SUPPORTED' };
}

/**
 * Prices `t` at provider `p` (spec 4.9 rule 5). `from_amount`: final_in is the amount (rounded up
 * to the asset's scale), the fee (bps + fixed) comes off it, the rest converts at the reference
 * rate less the spread, and final_out is rounded down (to the provider's output step). `to_amount`:
 * final_out is the requested amount rounded down to the step (it may then differ from the
 * request: such an offer is listed but not compared), and final_in the gross amount rounded up.
 * Returns a NoOffer with its reason when a filter or limit refuses.
 */
export function priceOffer(providerPricing: ProviderPricing, quoteTerms: QuoteTerms): PricedOffer | NoOffer {
  if (!providerPricing.sides.includes(quoteTerms.side)) return { reason: 'side_not_supported', code: 'PROVIDER_FILTER_MISMATCH' };
  const fiat = quoteTerms.side === 'buy' ? quoteTerms.fromAsset : quoteTerms.side === 'sell' ? quoteTerms.toAsset : null;
  if (fiat && !providerPricing.fiats.includes(fiat))
    return { reason: 'local_currency_not_supported', code: 'LOCAL_CURRENCY_NOT_SUPPORTED' };
  if (quoteTerms.country && !providerPricing.countries.includes(quoteTerms.country))
    return { reason: 'country_not_supported', code: 'COUNTRY_NOT_SUPPORTED' };
  const cryptos =
    quoteTerms.side === 'buy'
      ? [quoteTerms.toAsset]
      : quoteTerms.side === 'sell'
        ? [quoteTerms.fromAsset]
        : [quoteTerms.fromAsset, quoteTerms.toAsset];
  if (cryptos.some((c) => !providerPricing.cryptos.includes(c))) return { reason: 'asset_not_supported', code: 'PROVIDER_FILTER_MISMATCH' };
  const method = methodFor(providerPricing, quoteTerms);
  if (typeof method !== 'string') return method;
  if (quoteTerms.network && !providerPricing.networks.includes(quoteTerms.network))
    return { reason: 'network_not_supported', code: 'PROVIDER_FILTER_MISMATCH' };
  if (!quoteTerms.network && providerPricing.requiresNetwork) return { reason: 'quote_network_required', code: 'QUOTE_NETWORK_REQUIRED' };
  const network =
    quoteTerms.network ??
    (quoteTerms.side === 'buy' || quoteTerms.side === 'sell' || quoteTerms.side === 'swap' ? (providerPricing.networks[0] ?? null) : null);

  const inDec = assetDecimals(quoteTerms.fromAsset);
  const outDec = assetDecimals(quoteTerms.toAsset);
  const inPrice = USD_MICRO_PER_MAJOR[quoteTerms.fromAsset];
  const outPrice = USD_MICRO_PER_MAJOR[quoteTerms.toAsset];
  const step =
    providerPricing.outputDigits !== null && isCryptoAsset(quoteTerms.toAsset) && providerPricing.outputDigits < outDec
      ? 10n ** BigInt(outDec - providerPricing.outputDigits)
      : 1n;
  const fixedIn = (providerPricing.fixedFeeUsdMicro * 10n ** BigInt(inDec) + inPrice - 1n) / inPrice;
  // out = net_in * inPrice / outPrice * (10000 - spread) / 10000, each at its own scale.
  const outOf = (netIn: bigint) =>
    (netIn * inPrice * 10n ** BigInt(outDec) * (10_000n - providerPricing.spreadBps)) / (outPrice * 10n ** BigInt(inDec) * 10_000n);
  let finalIn: bigint;
  let finalOut: bigint;
  let fee: bigint;
  if (quoteTerms.fromAmount !== null) {
    finalIn = parseDecimal(quoteTerms.fromAmount, inDec, 'ceil');
    fee = (finalIn * providerPricing.feeBps + 9_999n) / 10_000n + fixedIn;
    if (fee >= finalIn) return { reason: 'limit_below_min', code: 'LIMIT_BELOW_MIN' };
    finalOut = (outOf(finalIn - fee) / step) * step;
  } else {
    finalOut = (parseDecimal(quoteTerms.toAmount!, outDec, 'floor') / step) * step;
    // net_in = ceil(out * outPrice * 10^inDec * 10000 / (inPrice * 10^outDec * (10000 - spread)))
    const num = finalOut * outPrice * 10n ** BigInt(inDec) * 10_000n;
    const den = inPrice * 10n ** BigInt(outDec) * (10_000n - providerPricing.spreadBps);
    const netIn = (num + den - 1n) / den;
    // gross = ceil((net + fixed) * 10000 / (10000 - feeBps))
    finalIn = ((netIn + fixedIn) * 10_000n + (10_000n - providerPricing.feeBps) - 1n) / (10_000n - providerPricing.feeBps);
    fee = finalIn - netIn;
  }
  if (finalOut <= 0n) return { reason: 'limit_below_min', code: 'LIMIT_BELOW_MIN' };
  const usd = usdOf(finalIn, quoteTerms.fromAsset);
  if (usd < providerPricing.minUsdMicro) return { reason: 'limit_below_min', code: 'LIMIT_BELOW_MIN' };
  if (usd > providerPricing.maxUsdMicro) return { reason: 'limit_above_max', code: 'PROVIDER_FILTER_MISMATCH' };
  return { paymentMethod: method, network, finalIn, finalOut, fee };
}

/**
 * The informational rate (spec 4.9 rule 5, 9.8): final_out / final_in in major units, derived
 * from the final amounts before any rounding of the rate itself, then cut (floor) to 12
 * fractional digits with trailing zeros trimmed.
 */
export function rateOf(finalIn: bigint, inDecimals: number, finalOut: bigint, outDecimals: number): string {
  const scale = 12;
  const q = (finalOut * 10n ** BigInt(inDecimals) * 10n ** BigInt(scale)) / (finalIn * 10n ** BigInt(outDecimals));
  const s = formatDecimal(q, scale).replace(/0+$/, '').replace(/\.$/, '');
  return s;
}

/**
 * The winning offer index (spec 4.9 rule 5): for `from_amount`, the highest final_out (ties: the
 * lower final_in, then the earlier offer); for `to_amount`, among offers whose final_out equals the
 * requested amount, the lowest final_in. -1 when none compares.
 */
export function bestOfferIndex(offers: ReadonlyArray<{ finalIn: bigint; finalOut: bigint }>, requestedOut: bigint | null): number {
  let best = -1;
  offers.forEach((o, i) => {
    if (requestedOut !== null && o.finalOut !== requestedOut) return;
    if (best === -1) {
      best = i;
      return;
    }
    const b = offers[best];
    const better =
      requestedOut === null ? o.finalOut > b.finalOut || (o.finalOut === b.finalOut && o.finalIn < b.finalIn) : o.finalIn < b.finalIn;
    if (better) best = i;
  });
  return best;
}

/**
 * The reason code of a quote with no executable offer (spec 4.9 rule 3): the one of the provider
 * that came closest to an offer, judged by its reason: a limit, a missing network, a provider
 * failure or timeout, a network or limit mismatch (or an amount it cannot deliver exactly), the
 * method, the currency, the country, an asset or side it does not trade, paused.
 */
export function noOfferReason(results: ReadonlyArray<{ code: QuoteReasonCode; reason: string }>): QuoteReasonCode {
  const closeness = [
    'limit_below_min',
    'quote_network_required',
    'provider_error',
    'timeout',
    'limit_above_max',
    'network_not_supported',
    'amount_not_exact',
    'payment_method_not_supported',
    'local_currency_not_supported',
    'country_not_supported',
    'asset_not_supported',
    'side_not_supported',
    'provider_paused',
  ];
  const rank = (r: string) => {
    const i = closeness.indexOf(r);
    return i === -1 ? closeness.length : i;
  };
  const best = [...results].sort((a, b) => rank(a.reason) - rank(b.reason))[0];
  return best?.code ?? 'PROVIDER_UNAVAILABLE';
}
