/**
 * Money at its edges (domain/money.ts, spec 2.1): the boundaries and branches the mutation run
 * (npm run test:mutation) found unchecked — the largest storable amount on both signs, the scale
 * range 0..36 at both ends, division with a negative divisor, the registries' exact-case lookups
 * and the formatting of a scale-0 currency.
 */
import {
  assertStorableMinor,
  ceilDiv,
  compareMoney,
  currencyDecimals,
  floorDiv,
  formatMajor,
  isFiat,
  isKnownCurrency,
  isStablecoin,
  MAX_STORED_MINOR,
  parseMajor,
  rescale,
  type Money,
} from '../../domain/money';
import { caught } from '../helpers/domain';

describe('assertStorableMinor (PostgreSQL bigint, spec 2.1)', () => {
  it('keeps every amount up to 2^63 - 1 on either sign', () => {
    expect(MAX_STORED_MINOR).toBe(2n ** 63n - 1n);
    expect(assertStorableMinor(MAX_STORED_MINOR)).toBe(MAX_STORED_MINOR);
    expect(assertStorableMinor(-MAX_STORED_MINOR)).toBe(-MAX_STORED_MINOR);
    expect(assertStorableMinor(0n)).toBe(0n);
  });

  it('refuses one minor unit beyond, with 400 amount_invalid and the given param', () => {
    for (const v of [MAX_STORED_MINOR + 1n, -MAX_STORED_MINOR - 1n]) {
      const e = caught(() => assertStorableMinor(v, 'unit_price'));
      expect([e.type, e.code, e.param, e.status]).toEqual(['invalid_request', 'amount_invalid', 'unit_price', 400]);
    }
    expect(caught(() => assertStorableMinor(MAX_STORED_MINOR + 1n)).param).toBe('amount');
  });
});

describe('scales 0..36', () => {
  it('accepts 0 and 36 at both ends of rescale and formatMajor', () => {
    expect(rescale(1n, 0, 36, 'exact')).toBe(10n ** 36n);
    expect(rescale(10n ** 36n, 36, 0, 'exact')).toBe(1n);
    expect(formatMajor({ amount: '1', currency: 'X', decimals: 36 })).toBe(`0.${'0'.repeat(35)}1`);
    expect(parseMajor('1', 36)).toBe(10n ** 36n);
    expect(parseMajor('7', 0)).toBe(7n);
  });

  it('refuses 37 and -1 with a RangeError naming the argument', () => {
    expect(() => rescale(1n, 37, 0, 'floor')).toThrow('fromDecimals must be an integer 0..36, got 37');
    expect(() => rescale(1n, 0, 37, 'floor')).toThrow('toDecimals must be an integer 0..36, got 37');
    expect(() => formatMajor({ amount: '1', currency: 'X', decimals: -1 })).toThrow('decimals must be an integer 0..36, got -1');
    expect(() => parseMajor('1', 37)).toThrow(RangeError);
  });

  it('refuses an unknown rounding when scaling down', () => {
    expect(() => rescale(100n, 2, 0, 'half' as 'floor')).toThrow('unknown rounding half');
  });
});

describe('floorDiv / ceilDiv with a negative divisor', () => {
  it('rounds toward -inf and +inf whatever the signs', () => {
    expect(floorDiv(7n, -2n)).toBe(-4n);
    expect(floorDiv(-7n, -2n)).toBe(3n);
    expect(floorDiv(-8n, -2n)).toBe(4n);
    expect(floorDiv(8n, -2n)).toBe(-4n);
    expect(ceilDiv(7n, -2n)).toBe(-3n);
    expect(ceilDiv(-7n, -2n)).toBe(4n);
    expect(ceilDiv(-8n, -2n)).toBe(4n);
    expect(ceilDiv(-1n, 3n)).toBe(0n);
    expect(floorDiv(1n, 3n)).toBe(0n);
    expect(floorDiv(-1n, 3n)).toBe(-1n);
  });
});

describe('registries (exact case)', () => {
  it('tells fiat from stablecoin', () => {
    expect([isFiat('USD'), isFiat('USDC'), isStablecoin('USDC'), isStablecoin('USD')]).toEqual([true, false, true, false]);
    expect([isStablecoin('USDC.e'), isStablecoin('usdc.e'), isFiat('usd')]).toEqual([true, false, false]);
    expect([isKnownCurrency('USDC.e'), isKnownCurrency('JPY'), isKnownCurrency('XYZ')]).toEqual([true, true, false]);
    expect(isFiat(undefined as unknown as string)).toBe(false);
    expect(isStablecoin(null as unknown as string)).toBe(false);
  });

  it('an inherited property is no currency', () => {
    for (const c of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      expect([isFiat(c), isStablecoin(c)]).toEqual([false, false]);
      expect(caught(() => currencyDecimals(c)).code).toBe('currency_invalid');
    }
  });

  it('scales: USD 2, JPY 0, KWD 3, USDC and USDC.e 6; an unknown code is currency_invalid on param currency', () => {
    expect(['USD', 'JPY', 'KWD', 'USDC', 'USDC.e'].map(currencyDecimals)).toEqual([2, 0, 3, 6, 6]);
    const e = caught(() => currencyDecimals('usdc'));
    expect([e.type, e.code, e.param, e.message]).toEqual(['invalid_request', 'currency_invalid', 'currency', 'Unknown currency: usdc.']);
  });
});

describe('compareMoney', () => {
  const usd = (amount: string): Money => ({ amount, currency: 'USD', decimals: 2 });
  it('orders by minor units, not by string', () => {
    expect(compareMoney(usd('9'), usd('10'))).toBe(-1);
    expect(compareMoney(usd('10'), usd('9'))).toBe(1);
    expect(compareMoney(usd('-1'), usd('-1'))).toBe(0);
    expect(compareMoney(usd('-2'), usd('-1'))).toBe(-1);
  });
});

describe('formatMajor', () => {
  it('a scale-0 currency has no decimal point, a negative keeps its sign', () => {
    expect(formatMajor({ amount: '0', currency: 'JPY', decimals: 0 })).toBe('0');
    expect(formatMajor({ amount: '-7', currency: 'JPY', decimals: 0 })).toBe('-7');
    expect(formatMajor({ amount: '-123456', currency: 'KWD', decimals: 3 })).toBe('-123.456');
    expect(formatMajor({ amount: '1000', currency: 'KWD', decimals: 3 })).toBe('1.000');
  });
});
