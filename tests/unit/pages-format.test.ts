/**
 * Pure parts of the pages (issues 22, 38): the EIP-681 URI of the payer page's QR code, the locale's
 * formatting of Money from bigint minor units (exact, never through a float; no breakable space) and
 * of dates, and the groups a long identifier is drawn in on a phone.
 */
import { erc20TransferUri } from '../../domain/eip681';
import { localeFor } from '../../api/pages/i18n';
import { identGroups } from '../../api/pages/layout';

const TOKEN = '0xDf4a5F3B28ccc33c36179e71175Dc398559Df4c2';
const TO = '0x384D156e4990ff052cf77fce1fA2fcb44B4B3c21';

test('EIP-681: token contract, chain id, recipient and base units; malformed input refused', () => {
  expect(erc20TransferUri({ tokenAddress: TOKEN, chainId: 42429, recipient: TO, amountBaseUnits: 101000000n })).toBe(
    `ethereum:${TOKEN}@42429/transfer?address=${TO}&uint256=101000000`,
  );
  expect(() => erc20TransferUri({ tokenAddress: 'nope', chainId: 1, recipient: TO, amountBaseUnits: 1n })).toThrow(RangeError);
  expect(() => erc20TransferUri({ tokenAddress: TOKEN, chainId: 0, recipient: TO, amountBaseUnits: 1n })).toThrow(RangeError);
  expect(() => erc20TransferUri({ tokenAddress: TOKEN, chainId: 1, recipient: TO, amountBaseUnits: 0n })).toThrow(RangeError);
});

test("money: ISO currencies in the locale's style, stablecoins with their symbol, exact beyond float precision", () => {
  expect(localeFor('en-US').money({ amount: '10000', currency: 'USD', decimals: 2 })).toBe('$100.00');
  expect(localeFor('de-DE').money({ amount: '123456', currency: 'USD', decimals: 2 })).toBe('1.234,56\u00a0$');
  expect(localeFor('fr-FR').money({ amount: '25000', currency: 'EUR', decimals: 2 })).toBe('250,00\u00a0€');
  expect(localeFor('ja-JP').money({ amount: '500', currency: 'JPY', decimals: 0 })).toBe('￥500');
  // A no-break space between the number and the stablecoin: an amount never wraps away from its currency.
  expect(localeFor('en-US').money({ amount: '101000000', currency: 'USDC', decimals: 6 })).toBe('101.00\u00a0USDC');
  expect(localeFor('en-US').money({ amount: '41000001', currency: 'USDC', decimals: 6 })).toBe('41.000001\u00a0USDC');
  for (const tag of ['en-US', 'de-DE', 'fr-FR', 'pt-BR', 'ja-JP'])
    expect(localeFor(tag).money({ amount: '123456789', currency: 'EUR', decimals: 2 })).not.toMatch(/ /);
  // 2^53 + 1 cents: a float would round it.
  expect(localeFor('en-US').money({ amount: '9007199254740993', currency: 'USD', decimals: 2 })).toBe('$90,071,992,547,409.93');
});

test('dates are in UTC with the zone named; unknown languages fall back to English copy', () => {
  expect(localeFor('en-US').dateTime('2026-11-27T05:54:00.000Z')).toBe('Nov 27, 2026, 05:54 AM UTC');
  expect(localeFor('en-GB').date('2026-11-01')).toBe('1 Nov 2026');
  expect(localeFor('pt-BR').copy.lang).toBe('en');
});

test('identifiers: addresses, hashes and IBANs in spaced groups of four, URIs and emails after their separators, short values whole', () => {
  expect(identGroups('0x52908400098527886E0F7030069857D2E4169EE7')).toEqual({
    groups: ['0x5290', '8400', '0985', '2788', '6E0F', '7030', '0698', '57D2', 'E416', '9EE7'],
    spaced: true,
  });
  expect(identGroups(`0x${'ab'.repeat(32)}`).groups).toHaveLength(16);
  expect(identGroups('DE89370400440532013000')).toEqual({ groups: ['DE89', '3704', '0044', '0532', '0130', '00'], spaced: true });
  expect(identGroups(`ethereum:${TOKEN}@42429/transfer?address=${TO}&uint256=101000000`)).toEqual({
    groups: [
      'ethereum:',
      '0xDf4a',
      '5F3B',
      '28cc',
      'c33c',
      '3617',
      '9e71',
      '175D',
      'c398',
      '559D',
      'f4c2@',
      '42429/',
      'transfer?',
      'address=',
      '0x384D',
      '156e',
      '4990',
      'ff05',
      '2cf7',
      '7fce',
      '1fA2',
      'fcb4',
      '4B4B',
      '3c21&',
      'uint256=',
      '101000000',
    ],
    spaced: false,
  });
  expect(identGroups('someone.long@example.com')).toEqual({ groups: ['someone.', 'long@', 'example.', 'com'], spaced: false });
  // Whole: a reference of 12 characters, a short number, a value with its own spaces.
  for (const v of ['PL5HU6UBECAA', '000123456789', '12-34-56', 'Sandboxstrasse 1, 60311 Frankfurt am Main, DE'])
    expect(identGroups(v)).toEqual({ groups: [v], spaced: false });
  // The groups are the value: nothing added, nothing lost.
  for (const v of [TOKEN, 'DE89370400440532013000', `ethereum:${TOKEN}@1/transfer?address=${TO}&uint256=5`])
    expect(identGroups(v).groups.join('')).toBe(v);
});
