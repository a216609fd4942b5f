/**
 * Money (spec 2.1): `{ amount, currency, decimals }` on the wire, where `amount` is a
 * decimal string of minor units (`^-?[0-9]+$`) and `decimals` the currency's scale.
 * Internally every amount is a `bigint` of minor units; a JS number never holds an amount.
 * Currency scales come from one registry: which fiat currencies we support is ours
 * (`SUPPORTED_FIAT`), their scale is ISO 4217's minor-unit exponent, read from the ISO 4217 data
 * package `currency-codes` (docs/decisions/0072-libraries-for-csv-iso-and-month-arithmetic.md);
 * USDC and USDC.e are 6.
 *
 * Pure: no I/O. Safe to import from Temporal workflows.
 */
import { code as iso4217 } from 'currency-codes';
import { DomainError, invalidRequest } from './errors';

/** Wire Money (spec 2.1): `amount` minor units as a decimal string, `decimals` the scale. */
export interface Money {
  amount: string;
  currency: string;
  decimals: number;
}

/**
 * The fiat currencies the product supports, in the order the API lists them (OpenAPI enums, quote
 * assets). A product decision: a currency is added here on purpose, never because ISO lists it.
 */
export const SUPPORTED_FIAT = Object.freeze([
  'USD',
  'EUR',
  'GBP',
  'BRL',
  'MXN',
  'COP',
  'CAD',
  'AUD',
  'CHF',
  'NZD',
  'SGD',
  'HKD',
  'INR',
  'NGN',
  'ZAR',
  'SEK',
  'NOK',
  'DKK',
  'PLN',
  'CZK',
  'HUF',
  'TRY',
  'ARS',
  'PEN',
  'PHP',
  'IDR',
  'ILS',
  'AED',
  'SAR',
  'CNY',
  'TWD',
  'THB',
  'MYR',
  'KES',
  'GHS',
  'EGP',
  'RON',
  'BGN',
  'UYU',
  'GTQ',
  'CRC',
  'DOP',
  'BOB',
  'PKR',
  'BDT',
  'MAD',
  'QAR',
  'JPY',
  'KRW',
  'CLP',
  'VND',
  'ISK',
  'PYG',
  'UGX',
  'XAF',
  'XOF',
  'RWF',
  'KWD',
  'BHD',
  'OMR',
  'JOD',
  'TND',
  'IQD',
  'LYD',
] as const);

/** ISO 4217 minor-unit exponent of `c` from the data package; a supported code it lacks fails at load, never silently. */
function iso4217Exponent(c: string): number {
  const digits = iso4217(c)?.digits;
  if (typeof digits !== 'number' || !Number.isInteger(digits) || digits < 0) {
    throw new Error(`currency-codes has no ISO 4217 minor-unit exponent for supported currency ${c}`);
  }
  return digits;
}

/**
 * ISO 4217 minor-unit exponents of the supported fiat currencies (`SUPPORTED_FIAT` order). Codes are
 * upper case, matched exactly. tests/unit/money-iso4217.test.ts pins every scale: a data update
 * that would change one fails there instead of changing money.
 */
export const FIAT_DECIMALS: Readonly<Record<string, number>> = Object.freeze(
  Object.fromEntries(SUPPORTED_FIAT.map((c) => [c, iso4217Exponent(c)])),
);

/** Stablecoin scales (spec 2.1: USDC is 6). Symbols are matched exactly (`USDC.e` keeps its lower-case `e`). */
export const STABLECOIN_DECIMALS: Readonly<Record<string, number>> = Object.freeze({
  USDC: 6,
  'USDC.e': 6,
});

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** True when `c` is a fiat code of the registry (exact, case-sensitive). */
export function isFiat(code: string): boolean {
  return typeof code === 'string' && hasOwn(FIAT_DECIMALS, code);
}

/** True when `c` is a stablecoin symbol of the registry (exact, case-sensitive). */
export function isStablecoin(code: string): boolean {
  return typeof code === 'string' && hasOwn(STABLECOIN_DECIMALS, code);
}

/** True when `c` is in the currency registry (fiat or stablecoin). */
export function isKnownCurrency(code: string): boolean {
  return isFiat(code) || isStablecoin(code);
}

/**
 * Scale (number of minor-unit decimals) of `currency` (spec 2.1).
 * Throws DomainError `invalid_request` code `currency_invalid` param `currency` when unknown.
 */
export function currencyDecimals(currency: string): number {
  if (isFiat(currency)) return FIAT_DECIMALS[currency];
  if (isStablecoin(currency)) return STABLECOIN_DECIMALS[currency];
  throw invalidRequest('currency_invalid', `Unknown currency: ${String(currency)}.`, 'currency');
}

/** Build wire Money from a bigint of minor units; `decimals` from the registry (throws `currency_invalid`). */
export function money(amount: bigint, currency: string): Money {
  if (typeof amount !== 'bigint') throw new TypeError('money(): amount must be a bigint of minor units');
  return { amount: amount.toString(), currency, decimals: currencyDecimals(currency) };
}

/** Amount strings longer than this many digits are refused (beyond NUMERIC(38) and any real amount). */
export const MAX_AMOUNT_DIGITS = 38;

const AMOUNT_PATTERN = /^-?[0-9]+$/;

/**
 * Validate a wire Money and return its amount as bigint minor units (spec 2.1).
 * Throws DomainError `invalid_request` (400) with `param`:
 * - code `amount_invalid` when `m` is not an object, `amount` is not a string matching
 *   `^-?[0-9]+$` (or has more than MAX_AMOUNT_DIGITS digits), or `decimals` differs from the registry's;
 * - code `currency_invalid` when `currency` is unknown.
 * Sign is not checked here: see `toMinorPositive` / `toMinorNonNegative`.
 */
export function toMinor(money: Money, param = 'amount'): bigint {
  if (typeof money !== 'object' || money === null) {
    throw invalidRequest('amount_invalid', 'Expected a Money object {amount, currency, decimals}.', param);
  }
  const { amount, currency, decimals } = money as Partial<Money>;
  if (typeof amount !== 'string' || !AMOUNT_PATTERN.test(amount)) {
    throw invalidRequest('amount_invalid', 'amount must be a string of minor units matching ^-?[0-9]+$.', param);
  }
  if (amount.replace('-', '').length > MAX_AMOUNT_DIGITS) {
    throw invalidRequest('amount_invalid', `amount has more than ${MAX_AMOUNT_DIGITS} digits.`, param);
  }
  if (typeof currency !== 'string' || !isKnownCurrency(currency)) {
    throw invalidRequest('currency_invalid', `Unknown currency: ${String(currency)}.`, param);
  }
  const expected = currencyDecimals(currency);
  if (decimals !== expected) {
    throw invalidRequest('amount_invalid', `decimals for ${currency} must be ${expected}.`, param, {
      currency,
      expected_decimals: expected,
    });
  }
  return BigInt(amount);
}

/** Largest amount (minor units) a stored amount column (PostgreSQL `bigint`) holds. */
export const MAX_STORED_MINOR = 9223372036854775807n;

/**
 * Returns `v` when it fits the stored amount columns (|v| <= MAX_STORED_MINOR), else throws
 * `400 invalid_request` code `amount_invalid` with `param` (spec 2.1, 7): a request amount that
 * cannot be stored is the caller's error, never a 500.
 */
export function assertStorableMinor(amount: bigint, param = 'amount'): bigint {
  if (amount > MAX_STORED_MINOR || amount < -MAX_STORED_MINOR) {
    throw invalidRequest('amount_invalid', `amount exceeds the largest storable amount (${MAX_STORED_MINOR} minor units).`, param);
  }
  return amount;
}

/** `toMinor` for MoneyPositive request fields (spec 2.1): also throws `amount_invalid` when amount <= 0. */
export function toMinorPositive(money: Money, param = 'amount'): bigint {
  const v = toMinor(money, param);
  if (v <= 0n) throw invalidRequest('amount_invalid', 'amount must be strictly positive.', param);
  return v;
}

/** `toMinor` for MoneyNonNegative fields (spec 2.1): also throws `amount_invalid` when amount < 0. */
export function toMinorNonNegative(money: Money, param = 'amount'): bigint {
  const v = toMinor(money, param);
  if (v < 0n) throw invalidRequest('amount_invalid', 'amount must not be negative.', param);
  return v;
}

function assertScale(d: number, name: string): void {
  if (!Number.isInteger(d) || d < 0 || d > 36) throw new RangeError(`${name} must be an integer 0..36, got ${d}`);
}

/** Floor division for bigint (rounds toward negative infinity). `d` > 0. */
export function floorDiv(left: bigint, right: bigint): bigint {
  const q = left / right;
  return left % right !== 0n && left < 0n !== right < 0n ? q - 1n : q;
}

/** Ceiling division for bigint (rounds toward positive infinity). `d` > 0. */
export function ceilDiv(left: bigint, right: bigint): bigint {
  const q = left / right;
  return left % right !== 0n && left < 0n === right < 0n ? q + 1n : q;
}

/**
 * Change the scale of a minor-unit amount, e.g. USD cents (2) -> USDC units (6).
 * Scaling up is always exact. Scaling down rounds as named: `floor` (toward -inf), `ceil`
 * (toward +inf), or `exact`, which throws DomainError `invalid_request` code `amount_invalid`
 * when a non-zero digit would be lost. Throws RangeError on a scale outside 0..36.
 */
export function rescale(amount: bigint, fromDecimals: number, toDecimals: number, rounding: 'floor' | 'ceil' | 'exact'): bigint {
  assertScale(fromDecimals, 'fromDecimals');
  assertScale(toDecimals, 'toDecimals');
  if (toDecimals >= fromDecimals) return amount * 10n ** BigInt(toDecimals - fromDecimals);
  const div = 10n ** BigInt(fromDecimals - toDecimals);
  switch (rounding) {
    case 'floor':
      return floorDiv(amount, div);
    case 'ceil':
      return ceilDiv(amount, div);
    case 'exact':
      if (amount % div !== 0n) {
        throw invalidRequest('amount_invalid', `Amount has more precision than ${toDecimals} decimals.`, undefined, {
          decimals: toDecimals,
        });
      }
      return amount / div;
    default:
      throw new RangeError(`unknown rounding ${String(rounding)}`);
  }
}

/**
 * Major-unit decimal string of a Money using its own `decimals`: `{10100000,USDC,6}` ->
 * "10.100000", `{10000,USD,2}` -> "100.00", `{-5,USD,2}` -> "-0.05", `{500,JPY,0}` -> "500".
 * Throws DomainError `amount_invalid` on a malformed amount, RangeError on a bad scale.
 */
export function formatMajor(money: Money): string {
  if (typeof money.amount !== 'string' || !AMOUNT_PATTERN.test(money.amount)) {
    throw invalidRequest('amount_invalid', 'amount must match ^-?[0-9]+$.', 'amount');
  }
  assertScale(money.decimals, 'decimals');
  const v = BigInt(money.amount);
  const neg = v < 0n;
  const digits = (neg ? -v : v).toString();
  if (money.decimals === 0) return (neg ? '-' : '') + digits;
  const padded = digits.padStart(money.decimals + 1, '0');
  const int = padded.slice(0, padded.length - money.decimals);
  const frac = padded.slice(padded.length - money.decimals);
  return `${neg ? '-' : ''}${int}.${frac}`;
}

const MAJOR_PATTERN = /^(-?)([0-9]+)(?:\.([0-9]+))?$/;

/**
 * Parse a strict major-unit decimal string (`-?digits(.digits)?`; no sign `+`, exponent,
 * spaces, separators, or bare `.5` / `5.`) into bigint minor units at `decimals` scale:
 * `parseMajor("1.5", 2)` -> 150n. Fractional digits beyond `decimals` are accepted only when
 * they are all zeros ("1.500" at 2 -> 150n; spec 4.9 rule 1: trailing zeros are fine).
 * Throws DomainError `invalid_request` code `amount_invalid` (400) on a malformed string or a
 * non-zero digit beyond the scale; RangeError on a bad scale.
 */
export function parseMajor(text: string, decimals: number): bigint {
  assertScale(decimals, 'decimals');
  const match = typeof text === 'string' ? MAJOR_PATTERN.exec(text) : null;
  if (!match) throw invalidRequest('amount_invalid', 'Expected a decimal string such as "12.34".', 'amount');
  const [, sign, int, fracRaw = ''] = match;
  let frac = fracRaw;
  if (frac.length > decimals) {
    if (/[1-9]/.test(frac.slice(decimals))) {
      throw invalidRequest('amount_invalid', `At most ${decimals} fractional digits are allowed.`, 'amount', { decimals });
    }
    frac = frac.slice(0, decimals);
  }
  const v = BigInt(int + frac.padEnd(decimals, '0'));
  return sign === '-' ? -v : v;
}

function assertSameCurrency(a: Money, b: Money): void {
  if (a.currency !== b.currency || a.decimals !== b.decimals) {
    throw new DomainError(
      'invalid_request',
      'currency_mismatch',
      `Cannot combine ${a.currency}/${a.decimals} with ${b.currency}/${b.decimals}.`,
      { details: { currencies: [a.currency, b.currency] } },
    );
  }
}

/** a + b for same-currency Money. Throws DomainError `invalid_request` code `currency_mismatch` otherwise (or `toMinor` errors). */
export function addMoney(left: Money, right: Money): Money {
  assertSameCurrency(left, right);
  return { amount: (toMinor(left) + toMinor(right)).toString(), currency: left.currency, decimals: left.decimals };
}

/** a - b for same-currency Money (may be negative). Throws `currency_mismatch` like addMoney. */
export function subMoney(left: Money, right: Money): Money {
  assertSameCurrency(left, right);
  return { amount: (toMinor(left) - toMinor(right)).toString(), currency: left.currency, decimals: left.decimals };
}

/** -1 / 0 / 1 comparing same-currency Money. Throws `currency_mismatch` like addMoney. */
export function compareMoney(left: Money, right: Money): -1 | 0 | 1 {
  assertSameCurrency(left, right);
  const x = toMinor(left);
  const y = toMinor(right);
  return x < y ? -1 : x > y ? 1 : 0;
}
