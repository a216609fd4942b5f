/**
 * Address rules of the networks screening added (domain/addresses.ts; spec 4.8; issue 15): TON in
 * both user-friendly spellings and the raw form with one key, a broken CRC refused; Cardano
 * bech32 per network, a broken checksum refused; chain ids and names resolve, the service's own
 * chain is not screened.
 */
import { bech32 } from '@scure/base';
import { checkAddress, resolveChain } from '../../domain/addresses';
import { screeningChain } from '../../domain/screening';
import { caught } from '../helpers/domain';

const TON_BOUNCEABLE = 'EQDtFpEwcFAEcRe5mLVh2N6C0x-_hJEM7W61_JLnSF74p4q2';

test('TON: user-friendly (url-safe or standard base64) and raw forms share one key; a bad CRC is refused', () => {
  const a = checkAddress('ton', TON_BOUNCEABLE, 'mainnet');
  const b = checkAddress('ton', TON_BOUNCEABLE.replace(/-/g, '+').replace(/_/g, '/'), 'mainnet');
  expect(a.ok && b.ok && a.key === b.key).toBe(true);
  if (!a.ok) throw new Error('unreachable');
  expect(a.key).toMatch(/^0:[0-9a-f]{64}$/);
  expect(checkAddress('ton', a.key, 'mainnet')).toMatchObject({ ok: true, key: a.key });
  expect(checkAddress('ton', `${TON_BOUNCEABLE.slice(0, -1)}3`, 'mainnet').ok).toBe(false);
  expect(checkAddress('ton', 'not-a-ton-address', 'mainnet').ok).toBe(false);
});

test('Cardano: bech32 with the network prefix; a broken checksum or the other network is refused', () => {
  const words = bech32.toWords(new Uint8Array(57).fill(7));
  const test = bech32.encode('addr_test', words, false);
  const main = bech32.encode('addr', words, false);
  expect(checkAddress('cardano', test, 'testnet').ok).toBe(true);
  expect(checkAddress('cardano', main, 'mainnet').ok).toBe(true);
  expect(checkAddress('cardano', main, 'testnet').ok).toBe(false);
  expect(checkAddress('cardano', `${test.slice(0, -1)}${test.endsWith('q') ? 'p' : 'q'}`, 'testnet').ok).toBe(false);
  expect(checkAddress('cardano', test.toUpperCase(), 'testnet').ok).toBe(false);
});

test('screening networks by id or name; the sandbox chain and unknown ones are 409 network_not_supported', () => {
  expect(resolveChain(56)).toBe('bsc');
  expect(screeningChain('BNB Chain')).toBe('bsc');
  expect(screeningChain('43114')).toBe('avalanche');
  expect(screeningChain('ADA')).toBe('cardano');
  expect(caught(() => screeningChain('tempo'))).toMatchObject({ type: 'conflict', code: 'network_not_supported', param: 'chain' });
  expect(caught(() => screeningChain('dogecoin'))).toMatchObject({ code: 'network_not_supported' });
});
