/**
 * Properties of payout pricing (spec 2.6 funding instructions, 8): the quote rounded up to the cent,
 * a buffer of at most 0.05%, gross = amount x 10000 / (10000 - bps) with the 100 bps fee on the gross
 * source amount, FX between fiat and USDC rounded against the service, what arrives paying the
 * invoice, the surplus and the USDC held for return never negative. Functions: domain/payouts/
 * pricing.ts and verdicts.ts. USDC in 6-decimal minor units, fiat in its currency's minor units.
 */
import fc from 'fast-check';
import { currencyDecimals } from '../../../domain/money';
import {
  fiatPayable,
  fiatToUsdcCeil,
  fundingQuote,
  grossUp,
  REFERENCE_RATES_USDC_PER_MAJOR,
  usdcToFiatFloor,
  walletSendEstimate,
} from '../../../domain/payouts/pricing';
import { fundingSurplus, heldForReturn, settlementVerdict } from '../../../domain/payouts/verdicts';
import { bps, exactCeil, exactFloor, nonNegativeMinor, params, positiveMinor } from './arbitraries';

const CENT_USDC = 10_000n;
/** Spec 8: payout fee 100 bps on the gross source amount; funding buffer at most 0.05% (5 bps). */
const SPEC_PAYOUT_FEE_BPS = 100;
const SPEC_BUFFER_BPS = 5n;
const rated = fc.constantFrom(...Object.keys(REFERENCE_RATES_USDC_PER_MAJOR));
/** Payout invoices up to 10^13 major units. */
const invoiceOf = (c: string) => positiveMinor(10n ** BigInt(13 + currencyDecimals(c)));
const rateAndInvoice = rated.chain((c) => fc.tuple(fc.constant(c), invoiceOf(c)));

describe('FX between fiat and USDC (rounded against the service)', () => {
  it('fiat -> USDC rounds up and USDC -> fiat rounds down, to the minor unit', () => {
    fc.assert(
      fc.property(rated, nonNegativeMinor(), nonNegativeMinor(), (c, fiat, usdc) => {
        const [d, rate] = [10n ** BigInt(currencyDecimals(c)), REFERENCE_RATES_USDC_PER_MAJOR[c]];
        expect(fiatToUsdcCeil(fiat, currencyDecimals(c), rate)).toBe(exactCeil(fiat * rate, d));
        expect(usdcToFiatFloor(usdc, currencyDecimals(c), rate)).toBe(exactFloor(usdc * d, rate));
      }),
      params,
    );
  });

  it('fiat -> USDC -> fiat returns the fiat amount (every reference rate is finer than the fiat minor unit)', () => {
    fc.assert(
      fc.property(rateAndInvoice, ([c, fiat]) => {
        const [d, rate] = [currencyDecimals(c), REFERENCE_RATES_USDC_PER_MAJOR[c]];
        expect(rate >= 10n ** BigInt(d)).toBe(true);
        expect(usdcToFiatFloor(fiatToUsdcCeil(fiat, d, rate), d, rate)).toBe(fiat);
      }),
      params,
    );
  });
});

describe('gross-up for a fee on the gross (spec 2.6: gross = amount x 10000 / (10000 - bps))', () => {
  it('gross is the least amount whose fee-on-gross leaves the net: gross - ceil(fee) >= amount', () => {
    fc.assert(
      fc.property(nonNegativeMinor(), bps, (amount, b) => {
        const gross = grossUp(amount, b);
        const keep = BigInt(10_000 - b);
        expect(gross).toBe(exactCeil(amount * 10_000n, keep));
        expect(gross * keep >= amount * 10_000n).toBe(true);
        if (gross > 0n) expect((gross - 1n) * keep < amount * 10_000n).toBe(true);
        expect(gross - exactCeil(gross * BigInt(b), 10_000n) >= amount).toBe(true);
      }),
      params,
    );
  });
});

describe('funding quote (spec 2.6, 8)', () => {
  it('amount = quote rounded up to the cent + a buffer of at most 0.05%, gross = amount + fee', () => {
    fc.assert(
      fc.property(rateAndInvoice, ([c, invoice]) => {
        const d = currencyDecimals(c);
        const q = fundingQuote(invoice, c, d);
        expect(q.quote).toBe(exactCeil(invoice * REFERENCE_RATES_USDC_PER_MAJOR[c], 10n ** BigInt(d)));
        expect(q.rounded % CENT_USDC).toBe(0n);
        expect(q.rounded >= q.quote && q.rounded - q.quote < CENT_USDC).toBe(true);
        expect(q.buffer >= 0n && q.buffer % CENT_USDC === 0n).toBe(true);
        expect(q.buffer * 10_000n <= q.rounded * SPEC_BUFFER_BPS).toBe(true);
        expect(q.amount).toBe(q.rounded + q.buffer);
        expect(q.gross).toBe(q.amount + q.fee);
        expect(q.gross).toBe(grossUp(q.amount, SPEC_PAYOUT_FEE_BPS));
        expect(q.fee >= 0n).toBe(true);
      }),
      params,
    );
  });

  it('the buffer is the largest whole-cent amount within 0.05% of the rounded quote', () => {
    fc.assert(
      fc.property(rateAndInvoice, ([c, invoice]) => {
        const q = fundingQuote(invoice, c, currencyDecimals(c));
        expect((q.buffer + CENT_USDC) * 10_000n > q.rounded * SPEC_BUFFER_BPS).toBe(true);
      }),
      params,
    );
  });

  it('sending the quoted gross pays the invoice exactly and settles the payout', () => {
    fc.assert(
      fc.property(rateAndInvoice, ([c, invoice]) => {
        const d = currencyDecimals(c);
        const q = fundingQuote(invoice, c, d);
        const paid = fiatPayable(q.gross, invoice, c, d);
        expect(paid.fee).toBe(exactCeil(q.gross * BigInt(SPEC_PAYOUT_FEE_BPS), 10_000n));
        expect(paid.fee + paid.net).toBe(q.gross);
        expect(paid.fiat).toBe(invoice);
        expect(settlementVerdict(invoice, paid.fiat, c).status).toBe('settled');
      }),
      params,
    );
  });

  it('the quote never decreases with the invoice', () => {
    fc.assert(
      fc.property(rateAndInvoice, positiveMinor(10n ** 6n), ([c, invoice], more) => {
        const d = currencyDecimals(c);
        const [a, b] = [fundingQuote(invoice, c, d), fundingQuote(invoice + more, c, d)];
        for (const k of ['quote', 'rounded', 'buffer', 'amount', 'fee', 'gross'] as const) expect(b[k] >= a[k]).toBe(true);
      }),
      params,
    );
  });
});

describe('what arrives (spec 2.6, 8)', () => {
  it('fee + net = received, the fee is ceil(bps of the gross), fiat never above the invoice nor the rate', () => {
    fc.assert(
      fc.property(rateAndInvoice, nonNegativeMinor(), bps, ([c, invoice], received, b) => {
        const d = currencyDecimals(c);
        const rate = REFERENCE_RATES_USDC_PER_MAJOR[c];
        const r = fiatPayable(received, invoice, c, d, b);
        expect(r.fee + r.net).toBe(received);
        expect(r.fee).toBe(exactCeil(received * BigInt(b), 10_000n));
        expect(r.net >= 0n && r.fiat >= 0n).toBe(true);
        expect(r.fiat <= invoice).toBe(true);
        expect(r.fiat * rate <= r.net * 10n ** BigInt(d)).toBe(true);
      }),
      params,
    );
  });

  it('surplus above the gross and USDC held for return are never negative', () => {
    fc.assert(
      fc.property(nonNegativeMinor(), nonNegativeMinor(), nonNegativeMinor(), (observed, consumedSeed, returnedSeed) => {
        expect(fundingSurplus(observed, consumedSeed)).toBe(observed > consumedSeed ? observed - consumedSeed : 0n);
        const consumed = consumedSeed % (observed + 1n);
        const returned = returnedSeed % (observed - consumed + 1n);
        const held = heldForReturn(observed, consumed, returned);
        expect(held === null ? 0n : held).toBe(observed - consumed - returned);
        if (held !== null) expect(held > 0n).toBe(true);
      }),
      params,
    );
  });

  it('a cross-network wallet send adds max(ceil(0.1%), 1 cent) and a same-chain send adds nothing', () => {
    fc.assert(
      fc.property(nonNegativeMinor(), (required) => {
        expect(walletSendEstimate(required, true)).toBe(required);
        const cost = walletSendEstimate(required, false) - required;
        const tenBps = exactCeil(required * 10n, 10_000n);
        expect(cost).toBe(tenBps > CENT_USDC ? tenBps : CENT_USDC);
      }),
      params,
    );
  });
});
