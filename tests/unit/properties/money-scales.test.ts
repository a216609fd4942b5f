/**
 * Properties of Money and its scales (spec 2.1: minor units as `^-?[0-9]+$`, `decimals` the scale,
 * USDC 6; spec 4.9 and 8: quote amounts of at most 15 integer and 18 fractional digits, the fiat
 * scale on a buy). Functions: domain/money.ts (money, toMinor, formatMajor, parseMajor, rescale,
 * floorDiv, ceilDiv, addMoney, subMoney, compareMoney) and domain/quotes.ts (parseDecimal,
 * formatDecimal, QUOTE_AMOUNT_PATTERN, assertFiatScale).
 */
import fc from 'fast-check';
import {
  addMoney,
  ceilDiv,
  compareMoney,
  currencyDecimals,
  floorDiv,
  formatMajor,
  MAX_STORED_MINOR,
  money,
  parseMajor,
  rescale,
  subMoney,
  toMinor,
} from '../../../domain/money';
import { erc20TransferUri } from '../../../domain/eip681';
import { assertFiatScale, formatDecimal, parseDecimal, QUOTE_AMOUNT_PATTERN } from '../../../domain/quotes';
import { currency, exactCeil, exactFloor, params, positiveMinor, scale, signedMinor } from './arbitraries';

describe('Money on the wire (spec 2.1)', () => {
  it('toMinor(money(x, c)) = x and decimals is the registry scale, for every amount and currency', () => {
    fc.assert(
      fc.property(signedMinor, currency, (x, c) => {
        const m = money(x, c);
        expect(m.amount).toMatch(/^-?[0-9]+$/);
        expect(m.decimals).toBe(currencyDecimals(c));
        expect(toMinor(m)).toBe(x);
      }),
      params,
    );
  });

  it('parseMajor(formatMajor(m)) = amount, with exactly `decimals` fractional digits', () => {
    fc.assert(
      fc.property(signedMinor, currency, (x, c) => {
        const m = money(x, c);
        const text = formatMajor(m);
        const frac = text.split('.')[1] ?? '';
        expect(frac.length).toBe(m.decimals);
        expect(parseMajor(text, m.decimals)).toBe(x);
      }),
      params,
    );
  });

  it('parseMajor accepts trailing zeros beyond the scale and refuses a non-zero digit there', () => {
    fc.assert(
      fc.property(signedMinor, scale, fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 9 }), (x, d, zeros, digit) => {
        const text = formatMajor({ amount: x.toString(), currency: 'X', decimals: d });
        const withPoint = d === 0 ? `${text}.` : text;
        expect(parseMajor(withPoint + '0'.repeat(zeros), d)).toBe(x);
        expect(() => parseMajor(withPoint + '0'.repeat(zeros - 1) + String(digit), d)).toThrow(/fractional digits/);
      }),
      params,
    );
  });

  it('addMoney and subMoney are inverse and compareMoney orders like the amounts (storable amounts)', () => {
    const storable = fc.oneof(fc.bigInt(-MAX_STORED_MINOR, MAX_STORED_MINOR), fc.bigInt(-100_000n, 100_000n));
    fc.assert(
      fc.property(storable, storable, currency, (a, b, c) => {
        const [ma, mb] = [money(a, c), money(b, c)];
        expect(toMinor(subMoney(addMoney(ma, mb), mb))).toBe(a);
        expect(compareMoney(ma, mb)).toBe(a < b ? -1 : a > b ? 1 : 0);
      }),
      params,
    );
  });
});

describe('floor and ceiling division', () => {
  it('floorDiv(n, d) is the greatest q with q*d <= n, ceilDiv the least with q*d >= n (either sign of d)', () => {
    const divisor = fc.oneof(fc.bigInt(1n, 10n ** 20n), fc.bigInt(1n, 10_000n)).chain((d) => fc.constantFrom(d, -d));
    fc.assert(
      fc.property(signedMinor, divisor, (n, d) => {
        const [nn, dd] = d < 0n ? [-n, -d] : [n, d];
        expect(floorDiv(n, d)).toBe(exactFloor(nn, dd));
        expect(ceilDiv(n, d)).toBe(exactCeil(nn, dd));
      }),
      params,
    );
  });
});

describe('rescale', () => {
  it('scaling up is exact and scaling back down returns the amount in every rounding mode', () => {
    fc.assert(
      fc.property(
        signedMinor,
        scale,
        scale,
        fc.constantFrom('floor', 'ceil', 'exact') as fc.Arbitrary<'floor' | 'ceil' | 'exact'>,
        (x, a, b, mode) => {
          const [lo, hi] = a <= b ? [a, b] : [b, a];
          const up = rescale(x, lo, hi, mode);
          expect(up).toBe(x * 10n ** BigInt(hi - lo));
          expect(rescale(up, hi, lo, mode)).toBe(x);
        },
      ),
      params,
    );
  });

  it('scaling down floors toward -inf and ceils toward +inf, one unit apart unless exact', () => {
    fc.assert(
      fc.property(signedMinor, scale, scale, (x, a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        const div = 10n ** BigInt(hi - lo);
        const f = rescale(x, hi, lo, 'floor');
        const c = rescale(x, hi, lo, 'ceil');
        expect(f).toBe(exactFloor(x, div));
        expect(c).toBe(exactCeil(x, div));
        if (x % div === 0n) expect(rescale(x, hi, lo, 'exact')).toBe(f);
        else {
          expect(c - f).toBe(1n);
          expect(() => rescale(x, hi, lo, 'exact')).toThrow(/more precision/);
        }
      }),
      params,
    );
  });
});

/**
 * Spec 4.9 rule 1: 2 fractional digits by default, 0 for zero-decimal currencies, 3 for KWD, BHD,
 * OMR, JOD, TND. IQD and LYD, which the spec does not name, keep their ISO 4217 scale of 3 (the
 * registry's, docs/decisions/0102-properties-of-money.md).
 */
const SPEC_THREE_DECIMALS = ['KWD', 'BHD', 'OMR', 'JOD', 'TND'];
const ISO_THREE_DECIMALS_UNNAMED = ['IQD', 'LYD'];

/** The largest fractional digit count a buy `from_amount` in `fiat` may carry (spec 4.9 rule 1). */
function buyScale(fiat: string): number {
  if (SPEC_THREE_DECIMALS.includes(fiat) || ISO_THREE_DECIMALS_UNNAMED.includes(fiat)) return 3;
  return currencyDecimals(fiat) === 0 ? 0 : 2;
}

describe('quote amounts (spec 4.9, 8)', () => {
  const quoteScale = fc.constantFrom(0, 2, 3, 6, 18);
  /** A strictly positive quote amount: at most 15 integer digits at `d` fractional digits. */
  const quoteMinor = (d: number) => positiveMinor(10n ** BigInt(15 + d) - 1n);

  it('parseDecimal(formatDecimal(x, d), d) = x in both rounding modes, and the text is a valid quote amount', () => {
    fc.assert(
      fc.property(
        quoteScale.chain((d) => fc.tuple(fc.constant(d), quoteMinor(d))),
        fc.constantFrom('floor', 'ceil') as fc.Arbitrary<'floor' | 'ceil'>,
        ([d, x], mode) => {
          const text = formatDecimal(x, d);
          expect(text).toMatch(QUOTE_AMOUNT_PATTERN);
          expect(parseDecimal(text, d, mode)).toBe(x);
        },
      ),
      params,
    );
  });

  it('digits beyond the scale round down with floor and up with ceil, to the minor unit', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(0, 2, 3, 6).chain((d) => fc.tuple(fc.constant(d), fc.integer({ min: 1, max: 18 - d }))),
        fc.bigInt(1n, 10n ** 33n - 1n),
        ([d, extra], raw) => {
          // raw at scale d + extra, written out at that scale: the exact value is raw / 10^(d+extra) major units.
          const text = formatDecimal(raw, d + extra);
          const div = 10n ** BigInt(extra);
          expect(parseDecimal(text, d, 'floor')).toBe(exactFloor(raw, div));
          expect(parseDecimal(text, d, 'ceil')).toBe(exactCeil(raw, div));
        },
      ),
      params,
    );
  });

  it('a buy from_amount is accepted exactly when its significant fractional digits fit the fiat scale', () => {
    fc.assert(
      fc.property(
        currency.filter((c) => c !== 'USDC' && c !== 'USDC.e'),
        fc.integer({ min: 0, max: 5 }),
        fc.bigInt(0n, 10n ** 14n),
        fc.integer({ min: 0, max: 3 }),
        (fiat, digits, x, zeros) => {
          // x at `digits` fractional digits, its last digit made significant, then padded with zeros.
          const v = digits === 0 ? x + 1n : x * 10n + 1n;
          const text = formatDecimal(v, digits) + (zeros > 0 ? (digits === 0 ? '.' : '') + '0'.repeat(zeros) : '');
          const refused = (() => {
            try {
              assertFiatScale('buy', fiat, text);
              return false;
            } catch {
              return true;
            }
          })();
          expect({ fiat, text, refused }).toEqual({ fiat, text, refused: digits > buyScale(fiat) });
        },
      ),
      params,
    );
  });

  it('the scales the rule names: USD 2, JPY 0, KWD BHD OMR JOD TND 3; IQD and LYD 3 by ISO 4217', () => {
    for (const c of ['USD', 'JPY', ...SPEC_THREE_DECIMALS, ...ISO_THREE_DECIMALS_UNNAMED]) expect(currencyDecimals(c)).toBe(buyScale(c));
    expect(() => assertFiatScale('buy', 'IQD', '0.001')).not.toThrow();
    expect(() => assertFiatScale('buy', 'USD', '0.001')).toThrow(/at most 2 fractional digits/);
    expect(() => assertFiatScale('buy', 'KWD', '0.0001')).toThrow(/at most 3 fractional digits/);
  });
});

describe('payer QR amount (EIP-681, spec 2.1 DepositInstructions amount)', () => {
  it('the URI carries the amount in base units as a plain integer that reads back exactly, at 6 and 18 decimals', () => {
    const hex40 = fc.stringMatching(/^0x[0-9a-fA-F]{40}$/);
    fc.assert(
      fc.property(
        hex40,
        hex40,
        fc.integer({ min: 1, max: 2 ** 31 }),
        fc.oneof(positiveMinor(), positiveMinor(10n ** 30n)),
        (token, to, chainId, amount) => {
          const uri = erc20TransferUri({ tokenAddress: token, chainId, recipient: to, amountBaseUnits: amount });
          const match = /^ethereum:(0x[0-9a-fA-F]{40})@([0-9]+)\/transfer\?address=(0x[0-9a-fA-F]{40})&uint256=([0-9]+)$/.exec(uri);
          expect(match).not.toBeNull();
          expect([match![1], Number(match![2]), match![3], BigInt(match![4])]).toEqual([token, chainId, to, amount]);
        },
      ),
      params,
    );
  });
});
