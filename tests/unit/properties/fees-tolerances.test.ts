/**
 * Properties of fees and tolerances, each checked against exact rational arithmetic written here:
 * the payer fee (spec 2.4, 4.6, 8: 1% = 100 bps, payer-borne, floor rounding at 6 decimals; total due
 * = invoice + fee), basis points (domain/fees.ts bpsOf), the payout settled tolerance (spec 2.6, 8:
 * 0.05% of the invoice plus 10 minor units, 25 for MXN) and the provider-settled verdict band (spec 6:
 * outside plus or minus 1% of the link amount).
 */
import fc from 'fast-check';
import { bankBand, bankTolerance } from '../../../domain/bank-collection';
import { bpsOf, PAYER_FEE_BPS, PAYER_FEE_ROUNDING_DECIMALS, totalDue } from '../../../domain/fees';
import { money } from '../../../domain/money';
import { settledTolerance, settlementVerdict } from '../../../domain/payouts/verdicts';
import { bps, exactCeil, exactFloor, params, positiveMinor, signedMinor } from './arbitraries';

describe('basis points (spec 2.1: plain integers; 100 = 1%)', () => {
  it('bpsOf floors toward -inf and ceils toward +inf, one minor unit apart unless exact', () => {
    fc.assert(
      fc.property(signedMinor, fc.oneof(bps, fc.constant(10_000)), (amount, b) => {
        const n = amount * BigInt(b);
        const f = bpsOf(amount, b, 'floor');
        const c = bpsOf(amount, b, 'ceil');
        expect(f).toBe(exactFloor(n, 10_000n));
        expect(c).toBe(exactCeil(n, 10_000n));
        expect(c - f).toBe(n % 10_000n === 0n ? 0n : 1n);
      }),
      params,
    );
  });

  it('a fee is never negative and never above the amount, and grows with the amount', () => {
    fc.assert(
      fc.property(positiveMinor(), positiveMinor(), bps, (a, b, rate) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        for (const mode of ['floor', 'ceil'] as const) {
          const fee = bpsOf(lo, rate, mode);
          expect(fee >= 0n && fee <= lo).toBe(true);
          expect(bpsOf(hi, rate, mode) >= fee).toBe(true);
        }
      }),
      params,
    );
  });
});

describe('payer fee and total due (spec 2.4, 4.6, 8)', () => {
  /** Spec 8: the payer fee is 1% (100 bps); the laws use the spec's figure, not the product's constant. */
  const SPEC_PAYER_FEE_BPS = 100n;

  /** A USD link amount in cents, up to 10^15 dollars. */
  const usdCents = positiveMinor(10n ** 17n);

  it('total = invoice + fee to the minor unit, all USDC at 6 decimals, fee = floor(1% of the invoice)', () => {
    fc.assert(
      fc.property(usdCents, (cents) => {
        const due = totalDue(money(cents, 'USD'));
        const invoice = BigInt(due.invoice.amount);
        const fee = BigInt(due.fee.amount);
        expect([due.invoice.currency, due.fee.currency, due.total.currency]).toEqual(['USDC', 'USDC', 'USDC']);
        expect([due.invoice.decimals, due.fee.decimals, due.total.decimals]).toEqual([6, 6, 6]);
        expect(invoice).toBe(cents * 10_000n);
        expect(BigInt(due.total.amount)).toBe(invoice + fee);
        // floor at 6 decimals: fee * 10000 <= invoice * 100 < (fee + 1) * 10000
        expect(fee * 10_000n <= invoice * SPEC_PAYER_FEE_BPS).toBe(true);
        expect((fee + 1n) * 10_000n > invoice * SPEC_PAYER_FEE_BPS).toBe(true);
        expect(fee >= 0n).toBe(true);
      }),
      params,
    );
  });

  it('the total due grows strictly with the link amount and the fee never decreases', () => {
    fc.assert(
      fc.property(usdCents, usdCents, (a, b) => {
        fc.pre(a !== b);
        const [lo, hi] = a < b ? [a, b] : [b, a];
        const [dl, dh] = [totalDue(money(lo, 'USD')), totalDue(money(hi, 'USD'))];
        expect(BigInt(dh.total.amount) > BigInt(dl.total.amount)).toBe(true);
        expect(BigInt(dh.fee.amount) >= BigInt(dl.fee.amount)).toBe(true);
      }),
      params,
    );
  });

  it('the fee floors at 6 decimals for any USDC-scale amount, including those 1% does not divide', () => {
    // A USD invoice is a whole number of cents, 10^4 micro-USDC each, so 1% of it is always exact and
    // the direction of rounding never shows through totalDue; the rounding itself is checked here on
    // every 6-decimal amount, where floor and ceil disagree on 99 of every 100.
    expect([PAYER_FEE_BPS, PAYER_FEE_ROUNDING_DECIMALS]).toEqual([Number(SPEC_PAYER_FEE_BPS), 6]);
    fc.assert(
      fc.property(positiveMinor(), (micro) => {
        const fee = bpsOf(micro, PAYER_FEE_BPS, 'floor');
        expect(fee).toBe(micro / 100n);
        expect(micro - fee * 100n).toBe(micro % 100n);
      }),
      params,
    );
  });
});

/** Payout invoice currencies (spec 2.6 corridors): MXN has the 25-unit tolerance, the others 10. */
const payoutCurrency = fc.constantFrom('USD', 'EUR', 'GBP', 'BRL', 'MXN', 'COP');

describe('payout settled tolerance (spec 2.6, 8)', () => {
  it('settled exactly when 0 <= received - invoice <= 0.05% of invoice + 10 (25 for MXN), short below, attention above', () => {
    // received aimed at the edges: the invoice itself, the last settled amount, or anywhere
    const offset = fc.oneof(
      fc.record({ edge: fc.constantFrom('invoice', 'tolerance'), by: fc.bigInt(-2n, 2n) }),
      fc.record({ edge: fc.constant('none'), by: fc.bigInt(-(10n ** 12n), 10n ** 12n) }),
    );
    fc.assert(
      fc.property(positiveMinor(10n ** 15n), offset, payoutCurrency, (invoice, { edge, by }, c) => {
        const fixed = c === 'MXN' ? 25n : 10n;
        const lastSettled = exactFloor(invoice * 5n + fixed * 10_000n, 10_000n);
        const received = invoice + (edge === 'tolerance' ? lastSettled : 0n) + by;
        fc.pre(received >= 0n);
        const v = settlementVerdict(invoice, received, c);
        const over = received - invoice;
        // exact: over * 10000 <= invoice * 5 + fixed * 10000
        const within = over >= 0n && over * 10_000n <= invoice * 5n + fixed * 10_000n;
        if (over < 0n) expect(v).toEqual({ status: 'paid_with_shortfall', shortfall: -over, needsAttention: false });
        else if (within) expect(v).toEqual({ status: 'settled', shortfall: null, needsAttention: false });
        else expect(v).toEqual({ status: 'paid', shortfall: null, needsAttention: true });
      }),
      params,
    );
  });

  it('the tolerance never decreases with the invoice and is at least the fixed part', () => {
    fc.assert(
      fc.property(positiveMinor(), positiveMinor(), payoutCurrency, (a, b, c) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(settledTolerance(lo, c) >= (c === 'MXN' ? 25n : 10n)).toBe(true);
        expect(settledTolerance(hi, c) >= settledTolerance(lo, c)).toBe(true);
      }),
      params,
    );
  });
});

describe('provider-settled verdict band (spec 6: outside plus or minus 1% of the link amount)', () => {
  it('short below expected - 1%, over above expected + 1%, within otherwise, at any amount', () => {
    fc.assert(
      fc.property(positiveMinor(10n ** 15n), fc.bigInt(-5n, 5n), fc.boolean(), (expected, bump, above) => {
        // aim at the band's edges: expected +- floor(1%) + bump
        const edge = (expected * 100n) / 10_000n + bump;
        const received = above ? expected + edge : expected - edge;
        fc.pre(received >= 0n);
        const diff = received - expected;
        const want = diff * 10_000n < -(expected * 100n) ? 'short' : diff * 10_000n > expected * 100n ? 'over' : 'within';
        expect(bankBand(received, expected)).toBe(want);
        expect(bankTolerance(expected)).toBe(exactFloor(expected * 100n, 10_000n));
      }),
      params,
    );
  });
});
