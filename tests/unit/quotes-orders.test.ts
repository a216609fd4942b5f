/**
 * Pure rules of quotes and orders (domain/quotes.ts, domain/orders.ts; spec 4.9, 2.10): decimals,
 * the fiat scale rule, pricing in both directions, the comparison, the rate, the no-offer reason,
 * the country rule, the order's transition table, provider reports and cancel refusals.
 */
import {
  assertCountries,
  assertFiatScale,
  bestOfferIndex,
  formatDecimal,
  noOfferReason,
  parseDecimal,
  priceOffer,
  rateOf,
  significantFractionDigits,
  type ProviderPricing,
  type QuoteTerms,
} from '../../domain/quotes';
import { cancelRefusal, orderAfterReport, orderTransitions, type ProviderOrderReport } from '../../domain/orders';
import { DomainError } from '../../domain/errors';

const P: ProviderPricing = {
  id: 'p',
  sides: ['buy', 'sell'],
  fiats: ['USD', 'EUR'],
  cryptos: ['USDC'],
  methods: ['card'],
  networks: ['base'],
  countries: ['US'],
  requiresNetwork: false,
  feeBps: 100n,
  fixedFeeUsdMicro: 500_000n,
  spreadBps: 0n,
  minUsdMicro: 10_000_000n,
  maxUsdMicro: 1_000_000_000n,
  outputDigits: null,
};
const T: QuoteTerms = {
  side: 'buy',
  fromAsset: 'USD',
  toAsset: 'USDC',
  fromAmount: '100',
  toAmount: null,
  paymentMethod: null,
  country: null,
  network: 'base',
};
const report = (r: Partial<ProviderOrderReport>): ProviderOrderReport => ({
  state: 'awaiting_payment',
  failureKind: null,
  providerReason: null,
  captured: false,
  deliveryTxHash: null,
  ...r,
});

test('decimals parse and format without floats', () => {
  expect(parseDecimal('1.23456789', 6, 'floor')).toBe(1_234_567n);
  expect(parseDecimal('1.23456789', 6, 'ceil')).toBe(1_234_568n);
  expect(parseDecimal('1.2345600000', 6, 'ceil')).toBe(1_234_560n);
  expect(parseDecimal('999999999999999.999999999999999999', 18, 'floor')).toBe(999_999_999_999_999_999_999_999_999_999_999n);
  expect(formatDecimal(1_234_560n, 6)).toBe('1.234560');
  expect(formatDecimal(5n, 2)).toBe('0.05');
  expect(formatDecimal(7n, 0)).toBe('7');
  expect(significantFractionDigits('10.500')).toBe(1);
});

test('the fiat scale rule applies to a buy from_amount only (422 amount_invalid)', () => {
  const f = (side: 'buy' | 'sell', asset: string, amount: string) => () => assertFiatScale(side, asset, amount);
  expect(f('buy', 'USD', '1.001')).toThrow(DomainError);
  expect(f('buy', 'USD', '1.010')).not.toThrow();
  expect(f('buy', 'JPY', '1.5')).toThrow(/at most 0 fractional digits/);
  for (const c of ['KWD', 'BHD', 'OMR', 'JOD', 'TND']) {
    expect(f('buy', c, '1.123')).not.toThrow();
    expect(f('buy', c, '1.1234')).toThrow();
  }
  expect(f('sell', 'USDC', '1.1234567')).not.toThrow();
  try {
    assertFiatScale('buy', 'USD', '1.001');
  } catch (e) {
    expect(e).toMatchObject({ status: 422, code: 'amount_invalid', param: 'from_amount' });
  }
});

test('from_amount pricing: fee (bps + fixed) off the amount, floor on the output; to_amount: gross-up, ceil on the input', () => {
  const o = priceOffer(P, T);
  if (!('finalOut' in o)) throw new Error('no offer');
  // fee = ceil(10000 * 1%) + 50 cents = 150 cents; out = 98.50 USD -> 98.500000 USDC.
  expect(o).toMatchObject({ finalIn: 10_000n, fee: 150n, finalOut: 98_500_000n, paymentMethod: 'card', network: 'base' });
  const back = priceOffer(P, { ...T, fromAmount: null, toAmount: '98.5' });
  if (!('finalOut' in back)) throw new Error('no offer');
  expect(back.finalOut).toBe(98_500_000n);
  expect(back.finalIn).toBe(10_000n);
  const stepped = priceOffer({ ...P, outputDigits: 2 }, { ...T, fromAmount: '100.01' });
  if (!('finalOut' in stepped)) throw new Error('no offer');
  expect(stepped.finalOut % 10_000n).toBe(0n);
});

test('filters and limits give their reasons', () => {
  expect(priceOffer(P, { ...T, side: 'swap', fromAsset: 'USDC', toAsset: 'USDC' })).toMatchObject({
    reason: 'side_not_supported',
    code: 'PROVIDER_FILTER_MISMATCH',
  });
  expect(priceOffer(P, { ...T, fromAsset: 'GBP' })).toMatchObject({ code: 'LOCAL_CURRENCY_NOT_SUPPORTED' });
  expect(priceOffer(P, { ...T, country: 'FR' })).toMatchObject({ code: 'COUNTRY_NOT_SUPPORTED' });
  expect(priceOffer(P, { ...T, paymentMethod: 'pix' })).toMatchObject({ code: 'PAYMENT_METHOD_NOT_SUPPORTED' });
  expect(priceOffer(P, { ...T, network: 'solana' })).toMatchObject({ reason: 'network_not_supported' });
  expect(priceOffer({ ...P, requiresNetwork: true }, { ...T, network: null })).toMatchObject({ code: 'QUOTE_NETWORK_REQUIRED' });
  expect(priceOffer(P, { ...T, fromAmount: '5' })).toMatchObject({ code: 'LIMIT_BELOW_MIN' });
  expect(priceOffer(P, { ...T, fromAmount: '0.4' })).toMatchObject({ code: 'LIMIT_BELOW_MIN' });
  expect(priceOffer(P, { ...T, fromAmount: '5000' })).toMatchObject({ reason: 'limit_above_max' });
});

test('comparison, rate and the closest reason', () => {
  expect(
    bestOfferIndex(
      [
        { finalIn: 100n, finalOut: 90n },
        { finalIn: 100n, finalOut: 95n },
        { finalIn: 99n, finalOut: 95n },
      ],
      null,
    ),
  ).toBe(2);
  expect(
    bestOfferIndex(
      [
        { finalIn: 105n, finalOut: 100n },
        { finalIn: 101n, finalOut: 99n },
        { finalIn: 103n, finalOut: 100n },
      ],
      100n,
    ),
  ).toBe(2);
  expect(bestOfferIndex([{ finalIn: 1n, finalOut: 99n }], 100n)).toBe(-1);
  expect(rateOf(10_000n, 2, 98_500_000n, 6)).toBe('0.985');
  expect(rateOf(3n, 0, 1_000_000n, 6)).toBe('0.333333333333');
  expect(
    noOfferReason([
      { code: 'PROVIDER_FILTER_MISMATCH', reason: 'side_not_supported' },
      { code: 'PAYMENT_METHOD_NOT_SUPPORTED', reason: 'payment_method_not_supported' },
    ]),
  ).toBe('PAYMENT_METHOD_NOT_SUPPORTED');
  expect(
    noOfferReason([
      { code: 'PROVIDER_PAUSED', reason: 'provider_paused' },
      { code: 'LIMIT_BELOW_MIN', reason: 'limit_below_min' },
    ]),
  ).toBe('LIMIT_BELOW_MIN');
  expect(noOfferReason([])).toBe('PROVIDER_UNAVAILABLE');
});

test('countries: each source on its own; sanctioned, unsupported and Tor refused; unknown values skipped', () => {
  const ok = new Set(['US', 'DE']);
  expect(() =>
    assertCountries(
      [
        { source: 'country', value: 'US' },
        { source: 'cf-ipcountry', value: 'XX' },
        { source: 'x-country-code', value: 'zz-bad' },
      ],
      ok,
    ),
  ).not.toThrow();
  expect(() =>
    assertCountries(
      [
        { source: 'country', value: 'US' },
        { source: 'cf-ipcountry', value: 'CU' },
      ],
      ok,
    ),
  ).toThrow(/CU/);
  expect(() => assertCountries([{ source: 'cf-ipcountry', value: 'T1' }], ok)).toThrow();
  expect(() => assertCountries([{ source: 'country', value: 'FR' }], ok)).toThrow(/from country/);
});

test('orders: the transition table, provider reports and cancel refusals', () => {
  expect(orderTransitions.terminal).toEqual(['cancelled', 'refunded']);
  expect(orderTransitions.can('awaiting_payment', 'completed')).toBe(false);
  expect(orderTransitions.can('failed', 'refunded')).toBe(true);
  const open = { status: 'awaiting_payment' as const, moneyState: 'never_authorized' as const };
  expect(orderAfterReport(open, report({ state: 'authorized' }))).toEqual({
    status: 'awaiting_payment',
    moneyState: 'hold_placed',
    failureKind: null,
  });
  expect(orderAfterReport({ ...open, moneyState: 'hold_placed' }, report({ state: 'failed', failureKind: 'payment_declined' }))).toEqual({
    status: 'failed',
    moneyState: 'released',
    failureKind: 'payment_declined',
  });
  expect(orderAfterReport(open, report({ state: 'expired' }))).toMatchObject({ status: 'failed', failureKind: 'payment_expired' });
  expect(orderAfterReport({ status: 'processing', moneyState: 'captured' }, report({ state: 'failed', captured: true }))).toEqual({
    status: 'failed',
    moneyState: 'captured',
    failureKind: 'provider_unavailable',
  });
  expect(orderAfterReport({ status: 'completed', moneyState: 'captured' }, report({ state: 'refunded', captured: true }))).toMatchObject({
    status: 'refunded',
    moneyState: 'refunded',
  });
  expect(cancelRefusal({ status: 'awaiting_payment', moneyState: 'never_authorized', purpose: 'direct' })).toBeNull();
  expect(cancelRefusal({ status: 'awaiting_payment', moneyState: 'hold_placed', purpose: 'direct' })).toMatchObject({
    code: 'order_not_cancellable',
  });
  expect(cancelRefusal({ status: 'processing', moneyState: 'captured', purpose: 'direct' })).toMatchObject({
    code: 'order_not_cancellable',
  });
  expect(cancelRefusal({ status: 'awaiting_payment', moneyState: 'never_authorized', purpose: 'payment_link_pay_in' })).toMatchObject({
    code: 'payment_link_pay_in',
  });
  expect(cancelRefusal({ status: 'awaiting_payment', moneyState: 'never_authorized', purpose: 'payout_funding' })).toMatchObject({
    code: 'cancel_unavailable',
  });
});
