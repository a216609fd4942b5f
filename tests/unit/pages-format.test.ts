/**
 * Pure parts of the pages (issue 22): the EIP-681 URI of the payer page's QR code, and the locale's
 * formatting of Money from bigint minor units (exact, never through a float) and of dates.
 */
import { erc20TransferUri } from '../../domain/eip681';
import { localeFor } from '../../api/pages/i18n';

const TOKEN = '0xDf4a5F3B28ccc33c36179e71175Dc398559Df4c2';
const TO = '0x384D156e4990ff052cf77fce1fA2fcb44B4B3c21';

test('EIP-681: token contract, chain id, recipient and base units; malformed input refused', () => {
  expect(erc20TransferUri({ tokenAddress: TOKEN, chainId: 42429, recipient: TO, amountBaseUnits: 101000000n }))
    .toBe(`ethereum:${TOKEN}@42429/transfer?address=${TO}&uint256=101000000`);
  expect(() => erc20TransferUri({ tokenAddress: 'nope', chainId: 1, recipient: TO, amountBaseUnits: 1n })).toThrow(RangeError);
  expect(() => erc20TransferUri({ tokenAddress: TOKEN, chainId: 0, recipient: TO, amountBaseUnits: 1n })).toThrow(RangeError);
  expect(() => erc20TransferUri({ tokenAddress: TOKEN, chainId: 1, recipient: TO, amountBaseUnits: 0n })).toThrow(RangeError);
});

test('money: ISO currencies in the locale\'s style, stablecoins with their symbol, exact beyond float precision', () => {
  expect(localeFor('en-US').money({ amount: '10000', currency: 'USD', decimals: 2 })).toBe('$100.00');
  expect(localeFor('de-DE').money({ amount: '123456', currency: 'USD', decimals: 2 })).toBe('1.234,56\u00a0$');
  expect(localeFor('fr-FR').money({ amount: '25000', currency: 'EUR', decimals: 2 })).toBe('250,00\u00a0€');
  expect(localeFor('ja-JP').money({ amount: '500', currency: 'JPY', decimals: 0 })).toBe('￥500');
  expect(localeFor('en-US').money({ amount: '101000000', currency: 'USDC', decimals: 6 })).toBe('101.00 USDC');
  expect(localeFor('en-US').money({ amount: '41000001', currency: 'USDC', decimals: 6 })).toBe('41.000001 USDC');
  // 2^53 + 1 cents: a float would round it.
  expect(localeFor('en-US').money({ amount: '9007199254740993', currency: 'USD', decimals: 2 })).toBe('$90,071,992,547,409.93');
});

test('dates are in UTC with the zone named; unknown languages fall back to English copy', () => {
  expect(localeFor('en-US').dateTime('2026-11-27T05:54:00.000Z')).toBe('Nov 27, 2026, 05:54 AM UTC');
  expect(localeFor('en-GB').date('2026-11-01')).toBe('1 Nov 2026');
  expect(localeFor('pt-BR').copy.lang).toBe('en');
});
