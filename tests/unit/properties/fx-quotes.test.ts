/**
 * Properties of FX and priced conversions: quote offers (spec 4.9: `from_amount` / `to_amount` bare
 * decimals at the asset's scale, final_in and final_out, the informational rate derived before
 * rounding), the wallet conversion (fee floored), the off-ramp (fees rounded up, the bank amount
 * floored), virtual-account credits (floored) and the cross-network gross-up (amount_in = amount_out
 * + bridge_fee, spec 2.1). Every scale the spec names: fiat 0 (JPY), 2, 3 (KWD), USDC 6, ETH 18.
 * Functions: domain/quotes.ts, domain/wallet-deposits.ts, domain/offramp.ts,
 * domain/virtual-accounts.ts, domain/xchain.ts.
 */
import fc from 'fast-check';
import { developerFeeBps, MIN_OFFRAMP_MINOR, OFFRAMP_FEE_BPS, priceOfframp } from '../../../domain/offramp';
import { fiatToUsdcCeil } from '../../../domain/payouts/pricing';
import {
  assetDecimals,
  formatDecimal,
  parseDecimal,
  priceOffer,
  rateOf,
  USD_MICRO_PER_MAJOR,
  type PricedOffer,
  type ProviderPricing,
  type QuoteSide,
  type QuoteTerms,
} from '../../../domain/quotes';
import { usdcForCredit } from '../../../domain/virtual-accounts';
import { CONVERSION_FEE_BPS, conversionPairs, priceConversion } from '../../../domain/wallet-deposits';
import { grossUp } from '../../../domain/xchain';
import { exactCeil, exactFloor, nonNegativeMinor, params, positiveMinor } from './arbitraries';

const FIATS = ['USD', 'EUR', 'GBP', 'BRL', 'MXN', 'JPY', 'KWD'];
const CRYPTOS = ['USDC', 'USDT', 'ETH'];

/** A sandbox-shaped provider trading every priced asset, with random fee, fixed fee, spread and output step. */
const provider: fc.Arbitrary<ProviderPricing> = fc.record({
  id: fc.constant('prop'),
  sides: fc.constant(['buy', 'sell', 'swap'] as QuoteSide[]),
  fiats: fc.constant(FIATS),
  cryptos: fc.constant(CRYPTOS),
  methods: fc.constant(['bank_transfer', 'wallet_balance'] as ProviderPricing['methods']),
  networks: fc.constant(['base'] as ProviderPricing['networks']),
  countries: fc.constant(['US']),
  requiresNetwork: fc.constant(false),
  feeBps: fc.oneof(fc.constantFrom(0n, 50n, 250n), fc.bigInt(0n, 1_000n)),
  fixedFeeUsdMicro: fc.oneof(fc.constantFrom(0n, 990_000n), fc.bigInt(0n, 5_000_000n)),
  spreadBps: fc.oneof(fc.constantFrom(0n, 50n), fc.bigInt(0n, 500n)),
  minUsdMicro: fc.constant(0n),
  maxUsdMicro: fc.constant(10n ** 40n),
  outputDigits: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 6 })),
});

/** A side with its assets: buy fiat -> crypto, sell crypto -> fiat, swap crypto -> crypto. */
const legs = fc.oneof(
  fc.tuple(fc.constant('buy' as QuoteSide), fc.constantFrom(...FIATS), fc.constantFrom(...CRYPTOS)),
  fc.tuple(fc.constant('sell' as QuoteSide), fc.constantFrom(...CRYPTOS), fc.constantFrom(...FIATS)),
  fc.tuple(fc.constant('swap' as QuoteSide), fc.constantFrom(...CRYPTOS), fc.constantFrom(...CRYPTOS)).filter(([, a, b]) => a !== b),
);

const terms = (side: QuoteSide, from: string, to: string, fromAmount: string | null, toAmount: string | null): QuoteTerms => ({
  side,
  fromAsset: from,
  toAsset: to,
  fromAmount,
  toAmount,
  paymentMethod: null,
  country: null,
  network: null,
});

const priced = (o: ReturnType<typeof priceOffer>): PricedOffer | null => ('finalIn' in o ? o : null);

/** final_out of `netIn` at the reference rates less the spread, exactly, as numerator / denominator. */
function exactOut(p: ProviderPricing, from: string, to: string, netIn: bigint): [bigint, bigint] {
  const [inDec, outDec] = [BigInt(assetDecimals(from)), BigInt(assetDecimals(to))];
  return [netIn * USD_MICRO_PER_MAJOR[from] * 10n ** outDec * (10_000n - p.spreadBps), USD_MICRO_PER_MAJOR[to] * 10n ** inDec * 10_000n];
}

const stepOf = (p: ProviderPricing, to: string) =>
  p.outputDigits !== null && CRYPTOS.includes(to) && p.outputDigits < assetDecimals(to)
    ? 10n ** BigInt(assetDecimals(to) - p.outputDigits)
    : 1n;

describe('quote offers (spec 4.9)', () => {
  it('from_amount: final_in is the amount, fee = ceil(bps) + fixed, final_out the converted net floored to the step', () => {
    fc.assert(
      fc.property(provider, legs, positiveMinor(10n ** 15n), (p, [side, from, to], minor) => {
        const inDec = assetDecimals(from);
        const result = priceOffer(p, terms(side, from, to, formatDecimal(minor, inDec), null));
        const fixedIn = exactCeil(p.fixedFeeUsdMicro * 10n ** BigInt(inDec), USD_MICRO_PER_MAJOR[from]);
        const fee = exactCeil(minor * p.feeBps, 10_000n) + fixedIn;
        const step = stepOf(p, to);
        const [num, den] = exactOut(p, from, to, minor - fee);
        const out = fee < minor ? exactFloor(exactFloor(num, den), step) * step : 0n;
        const offer = priced(result);
        // with no limits, an amount is refused only when the fee takes it all or it buys less than one step
        if (offer === null) {
          expect(result).toEqual({ reason: 'limit_below_min', code: 'LIMIT_BELOW_MIN' });
          expect(out).toBe(0n);
          return;
        }
        expect(offer.finalIn).toBe(minor);
        expect(offer.fee).toBe(fee);
        expect(offer.finalOut % step).toBe(0n);
        expect(offer.finalOut).toBe(out);
        expect(offer.finalOut > 0n).toBe(true);
      }),
      params,
    );
  });

  it('from_amount: a larger amount never yields less', () => {
    fc.assert(
      fc.property(provider, legs, positiveMinor(10n ** 15n), positiveMinor(10n ** 9n), (p, [side, from, to], minor, more) => {
        const inDec = assetDecimals(from);
        const a = priced(priceOffer(p, terms(side, from, to, formatDecimal(minor, inDec), null)));
        const b = priced(priceOffer(p, terms(side, from, to, formatDecimal(minor + more, inDec), null)));
        fc.pre(a !== null);
        expect(b).not.toBeNull();
        expect(b!.finalOut >= a!.finalOut).toBe(true);
      }),
      params,
    );
  });

  it('to_amount round trip: paying the quoted final_in as a from_amount delivers at least the quoted final_out', () => {
    fc.assert(
      fc.property(provider, legs, positiveMinor(10n ** 15n), (p, [side, from, to], minor) => {
        const outDec = assetDecimals(to);
        const back = priced(priceOffer(p, terms(side, from, to, null, formatDecimal(minor, outDec))));
        fc.pre(back !== null);
        const step = stepOf(p, to);
        expect(back!.finalOut).toBe((minor / step) * step);
        expect(back!.finalIn).toBe(back!.fee + (back!.finalIn - back!.fee));
        const forth = priced(priceOffer(p, terms(side, from, to, formatDecimal(back!.finalIn, assetDecimals(from)), null)));
        expect(forth).not.toBeNull();
        expect(forth!.finalOut >= back!.finalOut).toBe(true);
      }),
      params,
    );
  });

  it('the rate is final_out / final_in in major units, floored at 12 fractional digits', () => {
    fc.assert(
      fc.property(
        positiveMinor(),
        fc.constantFrom(0, 2, 3, 6, 18),
        positiveMinor(),
        fc.constantFrom(0, 2, 3, 6, 18),
        (fin, inDec, fout, outDec) => {
          const text = rateOf(fin, inDec, fout, outDec);
          expect(text).toMatch(/^[0-9]+(\.[0-9]{0,11}[1-9])?$/);
          const r = parseDecimal(text, 12, 'floor');
          const num = fout * 10n ** BigInt(inDec) * 10n ** 12n;
          const den = fin * 10n ** BigInt(outDec);
          expect(r).toBe(exactFloor(num, den));
        },
      ),
      params,
    );
  });
});

describe('wallet conversion, off-ramp, virtual-account credit, cross-network gross-up', () => {
  it('conversion: amount_in = fee + amount_out, fee = floor(5 bps), nothing negative', () => {
    fc.assert(
      fc.property(positiveMinor(), fc.constantFrom(...conversionPairs('USDC')), (amountIn, pair) => {
        const c = priceConversion(pair, amountIn);
        expect(c.fee + c.amountOut).toBe(amountIn);
        expect(c.fee).toBe(exactFloor(amountIn * CONVERSION_FEE_BPS, 10_000n));
        expect(c.fee >= 0n && c.amountOut > 0n).toBe(true);
      }),
      params,
    );
  });

  it('off-ramp: amount = service fee + developer fee + net, fees rounded up, the bank amount floored, nothing negative', () => {
    const devBps = fc.oneof(fc.constantFrom(0n, 1n, 125n, 500n), fc.bigInt(0n, 500n));
    const rate = fc.oneof(fc.constantFrom(1_000_000n, 1_080_000n, 58_000n, 250n), fc.bigInt(1n, 10n ** 9n));
    fc.assert(
      fc.property(positiveMinor(10n ** 15n), devBps, fc.constantFrom(0, 2, 3), rate, (extra, dev, d, r) => {
        const amount = MIN_OFFRAMP_MINOR + extra - 1n;
        const p = priceOfframp(amount, dev, d, r);
        expect(p.serviceFee + p.developerFee + p.net).toBe(amount);
        expect(p.serviceFee).toBe(exactCeil(amount * OFFRAMP_FEE_BPS, 10_000n));
        expect(p.developerFee).toBe(exactCeil(amount * dev, 10_000n));
        expect(p.net > 0n).toBe(true);
        expect(p.destinationAmount).toBe(exactFloor(p.net * 10n ** BigInt(d), r));
      }),
      params,
    );
  });

  it('developer_fee_percent "p" with at most 2 decimals is p x 100 basis points, 0 to 5%', () => {
    fc.assert(
      fc.property(fc.bigInt(0n, 500n), fc.constantFrom(0, 1, 2), (b, shown) => {
        fc.pre(shown === 2 || b % 10n ** BigInt(2 - shown) === 0n);
        const text = formatDecimal(b / 10n ** BigInt(2 - shown), shown);
        expect(developerFeeBps(text)).toBe(b);
      }),
      params,
    );
  });

  it('a virtual-account credit floors to USDC and never exceeds the rounded-up quote of the same fiat', () => {
    fc.assert(
      fc.property(nonNegativeMinor(), fc.constantFrom(0, 2, 3), fc.bigInt(1n, 10n ** 9n), (fiat, d, r) => {
        const usdc = usdcForCredit(fiat, d, r);
        expect(usdc).toBe(exactFloor(fiat * r, 10n ** BigInt(d)));
        expect(usdc <= fiatToUsdcCeil(fiat, d, r)).toBe(true);
      }),
      params,
    );
  });

  it('cross-network gross-up: amount_in = amount_out + bridge_fee (spec 2.1)', () => {
    fc.assert(
      fc.property(positiveMinor(), nonNegativeMinor(), (out, fee) => {
        expect(grossUp(out, fee)).toEqual({ amountIn: out + fee, amountOut: out, fee });
      }),
      params,
    );
  });
});
