/**
 * Properties of payroll money (spec 8: caps of 25,000 per run and 10,000 per item in US dollars, 500
 * rows, 422 over a cap; spec 2.7: the crypto funding amount priced in USDC). Laws: a run passes the
 * caps exactly when its exact US-dollar values do (no rounding lets an amount over a cap through),
 * lowering an amount never makes a passing run fail, and the USDC a crypto-funded run is asked for
 * is the sum of what its items pay out. Functions: domain/payroll.ts (usdCentsCeil,
 * checkPayrollCaps, CRYPTO_FUNDING_CURRENCIES), domain/payroll-funding.ts (cryptoFundingPrice),
 * domain/payroll-execution.ts (itemPaymentAmount).
 */
import fc from 'fast-check';
import { currencyDecimals } from '../../../domain/money';
import { REFERENCE_RATES_USDC_PER_MAJOR } from '../../../domain/payouts/pricing';
import { checkPayrollCaps, CRYPTO_FUNDING_CURRENCIES, PAYROLL_CURRENCIES, usdCentsCeil } from '../../../domain/payroll';
import { itemPaymentAmount } from '../../../domain/payroll-execution';
import { cryptoFundingPrice } from '../../../domain/payroll-funding';
import { exactCeil, params, positiveMinor } from './arbitraries';

/** Spec 8 caps, in US dollars, and the row limit (the spec's figures, not the product's constants). */
const PAYROLL_ITEM_CAP_USD = 10_000n;
const PAYROLL_RUN_CAP_USD = 25_000n;
const PAYROLL_MAX_ROWS = 500;

/** Micro-USD of one US dollar (1 USDC = 1 USD at 6 decimals). */
const MICRO = 1_000_000n;

/** Exact US-dollar value of `minor` units of `currency` in micro-dollars, as numerator / denominator. */
function usdValue(minor: bigint, c: string): [bigint, bigint] {
  if (c === 'USD') return [minor * 10_000n, 1n];
  return [minor * REFERENCE_RATES_USDC_PER_MAJOR[c], 10n ** BigInt(currencyDecimals(c))];
}

/** The minor amount of `c` worth `dollars` US dollars, rounded down. */
const minorFor = (dollars: bigint, c: string) =>
  c === 'USD' ? dollars * 100n : (dollars * MICRO * 10n ** BigInt(currencyDecimals(c))) / REFERENCE_RATES_USDC_PER_MAJOR[c];

/** Row amounts around the item cap, each in `c`. */
const rowsNearCaps = (c: string) => {
  const itemCap = minorFor(PAYROLL_ITEM_CAP_USD, c);
  const amount = fc.oneof(fc.bigInt(itemCap - 50n, itemCap + 50n), fc.bigInt(1n, itemCap), fc.bigInt(1n, 2n * itemCap));
  return fc.array(amount, { minLength: 1, maxLength: 6 });
};
const payrollCurrency = fc.constantFrom(...PAYROLL_CURRENCIES);

describe('payroll caps (spec 8)', () => {
  it('usdCentsCeil is the exact US-dollar value rounded up to the cent', () => {
    fc.assert(
      fc.property(payrollCurrency, positiveMinor(10n ** 15n), (c, minor) => {
        const [num, den] = usdValue(minor, c);
        expect(usdCentsCeil(minor, c)).toBe(exactCeil(num, den * 10_000n));
      }),
      params,
    );
  });

  it('a run passes exactly when no item is worth over 10,000 USD and the run not over 25,000 USD', () => {
    fc.assert(
      fc.property(
        payrollCurrency.chain((c) => fc.tuple(fc.constant(c), rowsNearCaps(c))),
        ([c, rows]) => {
          const over = (v: [bigint, bigint], dollars: bigint) => v[0] > dollars * MICRO * v[1];
          const total = rows.reduce((n, a) => n + a, 0n);
          const itemOver = rows.findIndex((a) => over(usdValue(a, c), PAYROLL_ITEM_CAP_USD));
          const runOver = over(usdValue(total, c), PAYROLL_RUN_CAP_USD);
          let err: { code?: string; param?: string; status?: number } | null = null;
          try {
            checkPayrollCaps(rows, c);
          } catch (e) {
            err = e as typeof err;
          }
          if (itemOver >= 0) expect(err).toMatchObject({ code: 'payroll_cap_exceeded', param: `rows[${itemOver}].amount`, status: 422 });
          else if (runOver) expect(err).toMatchObject({ code: 'payroll_cap_exceeded', param: 'rows', status: 422 });
          else expect(err).toBeNull();
        },
      ),
      params,
    );
  });

  it('lowering any amount of a passing run keeps it passing; the 501st row fails', () => {
    fc.assert(
      fc.property(
        payrollCurrency.chain((c) => fc.tuple(fc.constant(c), rowsNearCaps(c))),
        fc.nat(),
        fc.bigInt(1n, 10n ** 6n),
        ([c, rows], at, cut) => {
          let passes = true;
          try {
            checkPayrollCaps(rows, c);
          } catch {
            passes = false;
          }
          fc.pre(passes);
          const i = at % rows.length;
          const lower = rows.map((a, j) => (j === i && a > cut ? a - cut : a));
          expect(() => checkPayrollCaps(lower, c)).not.toThrow();
        },
      ),
      params,
    );
    for (const c of PAYROLL_CURRENCIES) {
      expect(() => checkPayrollCaps(Array<bigint>(PAYROLL_MAX_ROWS).fill(1n), c)).not.toThrow();
      expect(() => checkPayrollCaps(Array<bigint>(PAYROLL_MAX_ROWS + 1).fill(1n), c)).toThrow(/at most 500 rows/);
    }
  });
});

describe('crypto funding of a run (spec 2.7, 4.4)', () => {
  it('the USDC asked of the run is the sum of what its items pay, rounded up, never short of them', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CRYPTO_FUNDING_CURRENCIES),
        fc.array(positiveMinor(10n ** 9n), { minLength: 1, maxLength: 20 }),
        (c, items) => {
          const d = currencyDecimals(c);
          const total = items.reduce((n, a) => n + a, 0n);
          const price = cryptoFundingPrice(total, c)!;
          const paid = items.reduce((n, a) => n + itemPaymentAmount(a, c, d), 0n);
          expect(price).toBe(exactCeil(total * REFERENCE_RATES_USDC_PER_MAJOR[c], 10n ** BigInt(d)));
          expect(paid).toBe(price);
        },
      ),
      params,
    );
  });
});
