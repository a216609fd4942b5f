/**
 * Pins the fiat registry of domain/money.ts (issue 26 item 7): which fiat currencies the product
 * supports (ours), in this order (the OpenAPI enum and the quote assets list them so), and the
 * minor-unit exponent of each (ISO 4217's). Written against the hand-kept table before the scales
 * came from the ISO 4217 data package: a scale that changes here changes money, so this list only
 * changes on purpose.
 */
import { currencyDecimals, FIAT_DECIMALS, isFiat, isKnownCurrency, STABLECOIN_DECIMALS } from '../../domain/money';

const PINNED: ReadonlyArray<[string, number]> = [
  ['USD', 2],
  ['EUR', 2],
  ['GBP', 2],
  ['BRL', 2],
  ['MXN', 2],
  ['COP', 2],
  ['CAD', 2],
  ['AUD', 2],
  ['CHF', 2],
  ['NZD', 2],
  ['SGD', 2],
  ['HKD', 2],
  ['INR', 2],
  ['NGN', 2],
  ['ZAR', 2],
  ['SEK', 2],
  ['NOK', 2],
  ['DKK', 2],
  ['PLN', 2],
  ['CZK', 2],
  ['HUF', 2],
  ['TRY', 2],
  ['ARS', 2],
  ['PEN', 2],
  ['PHP', 2],
  ['IDR', 2],
  ['ILS', 2],
  ['AED', 2],
  ['SAR', 2],
  ['CNY', 2],
  ['TWD', 2],
  ['THB', 2],
  ['MYR', 2],
  ['KES', 2],
  ['GHS', 2],
  ['EGP', 2],
  ['RON', 2],
  ['BGN', 2],
  ['UYU', 2],
  ['GTQ', 2],
  ['CRC', 2],
  ['DOP', 2],
  ['BOB', 2],
  ['PKR', 2],
  ['BDT', 2],
  ['MAD', 2],
  ['QAR', 2],
  ['JPY', 0],
  ['KRW', 0],
  ['CLP', 0],
  ['VND', 0],
  ['ISK', 0],
  ['PYG', 0],
  ['UGX', 0],
  ['XAF', 0],
  ['XOF', 0],
  ['RWF', 0],
  ['KWD', 3],
  ['BHD', 3],
  ['OMR', 3],
  ['JOD', 3],
  ['TND', 3],
  ['IQD', 3],
  ['LYD', 3],
];

test('the supported fiat currencies, in order, each with its pinned ISO 4217 exponent', () => {
  expect(Object.entries(FIAT_DECIMALS)).toEqual(PINNED);
  for (const [code, decimals] of PINNED) {
    expect(isFiat(code)).toBe(true);
    expect(currencyDecimals(code)).toBe(decimals);
  }
  expect(Object.isFrozen(FIAT_DECIMALS)).toBe(true);
});

test('codes outside the list are not fiat, whatever ISO 4217 says of them; matching is exact', () => {
  for (const c of ['XAU', 'XDR', 'XXX', 'CLF', 'UYW', 'HRK', 'usd', 'Usd', ' USD', 'USD ', '', 'toString', '__proto__', 'constructor']) {
    expect(isFiat(c)).toBe(false);
  }
  expect(() => currencyDecimals('XAU')).toThrow(expect.objectContaining({ code: 'currency_invalid' }));
});

test('stablecoins keep their own scales', () => {
  expect(Object.entries(STABLECOIN_DECIMALS)).toEqual([
    ['USDC', 6],
    ['USDC.e', 6],
  ]);
  expect(isKnownCurrency('USDC.e')).toBe(true);
  expect(isKnownCurrency('USDC.E')).toBe(false);
});
