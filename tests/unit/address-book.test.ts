/**
 * Address-book and credits rules (domain/addresses.ts, domain/credits.ts): chain aliases, address
 * formats and checksums per chain, and the credit ledger steps. Bank details per rail:
 * tests/unit/bank-details.test.ts.
 */
import { bech32, bech32m } from '@scure/base';
import { checkAddress, resolveChain } from '../../domain/addresses';
import {
  applyAdminGrant,
  applyConsume,
  applyPurchase,
  applyRefund,
  FREE_CHECKS_ALLOWANCE,
  isCreditPack,
  PACK_PRICE_MINOR,
} from '../../domain/credits';

const CHECKSUMMED = '0x52908400098527886E0F7030069857D2E4169EE7';

describe('resolveChain', () => {
  it('accepts ids and names case-insensitively (spec 4.8 list)', () => {
    expect(resolveChain('Ethereum')).toBe('ethereum');
    expect(resolveChain('ETH')).toBe('ethereum');
    expect(resolveChain(1)).toBe('ethereum');
    expect(resolveChain('56')).toBe('bsc');
    expect(resolveChain('8453')).toBe('base');
    expect(resolveChain(' Solana ')).toBe('solana');
    expect(resolveChain('tempo')).toBe('tempo');
    expect(resolveChain('dogecoin')).toBeNull();
    expect(resolveChain('')).toBeNull();
    expect(resolveChain(1.5)).toBeNull();
    expect(resolveChain(null)).toBeNull();
  });
});

describe('checkAddress: EVM', () => {
  it('accepts a valid EIP-55 address verbatim and keys it lower-case', () => {
    expect(checkAddress('base', CHECKSUMMED, 'testnet')).toEqual({ ok: true, address: CHECKSUMMED, key: CHECKSUMMED.toLowerCase() });
  });
  it('accepts all-lower and all-upper hex (no checksum carried)', () => {
    expect(checkAddress('ethereum', CHECKSUMMED.toLowerCase(), 'mainnet').ok).toBe(true);
    expect(checkAddress('ethereum', `0x${CHECKSUMMED.slice(2).toUpperCase()}`, 'mainnet').ok).toBe(true);
    expect(checkAddress('ethereum', '0xDE709F2102306220921060314715629080E2FB77', 'mainnet').ok).toBe(true);
    expect(checkAddress('ethereum', '0xde709f2102306220921060314715629080e2fb77', 'mainnet').ok).toBe(true);
    expect(checkAddress('ethereum', '0xde709f2102306220921060314715629080e2fB77', 'mainnet').ok).toBe(false);
  });
  it('refuses a mixed-case address with a wrong checksum, the zero address, bad length or characters', () => {
    const wrong = CHECKSUMMED.replace('E7', 'e7');
    expect(checkAddress('ethereum', wrong, 'mainnet')).toMatchObject({ ok: false, reason: expect.stringContaining('EIP-55') });
    expect(checkAddress('ethereum', `0x${'0'.repeat(40)}`, 'mainnet')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('zero'),
    });
    expect(checkAddress('polygon', '0x1234', 'mainnet').ok).toBe(false);
    expect(checkAddress('polygon', `0x${'g'.repeat(40)}`, 'mainnet').ok).toBe(false);
    expect(checkAddress('polygon', `0x${'a'.repeat(40)} `, 'mainnet').ok).toBe(true); // trimmed
    expect(checkAddress('polygon', `0x${'a'.repeat(20)} ${'a'.repeat(20)}`, 'mainnet').ok).toBe(false);
  });
});

describe('checkAddress: bitcoin', () => {
  it('accepts mainnet P2PKH, P2SH, bech32 v0 and bech32m v1 on mainnet only', () => {
    for (const a of [
      '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa',
      '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
      'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
      'bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297',
    ]) {
      expect(checkAddress('bitcoin', a, 'mainnet')).toMatchObject({ ok: true, address: a });
      expect(checkAddress('bitcoin', a, 'testnet').ok).toBe(false);
    }
  });
  it('accepts testnet bech32 on the test network; an upper-case bech32 keys lower-case', () => {
    const tb = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';
    expect(checkAddress('bitcoin', tb, 'testnet')).toEqual({ ok: true, address: tb, key: tb });
    expect(checkAddress('bitcoin', tb.toUpperCase(), 'testnet')).toEqual({ ok: true, address: tb.toUpperCase(), key: tb });
  });
  it('refuses a broken checksum, mixed-case bech32 and the wrong bech32 variant', () => {
    expect(checkAddress('bitcoin', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb', 'mainnet').ok).toBe(false);
    expect(checkAddress('bitcoin', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdQ', 'mainnet').ok).toBe(false);
    const program = bech32.toWords(new Uint8Array(20).fill(1));
    const v0AsBech32m = bech32m.encode('bc', [0, ...program]);
    expect(checkAddress('bitcoin', v0AsBech32m, 'mainnet').ok).toBe(false);
    expect(checkAddress('bitcoin', bech32.encode('bc', [0, ...program]), 'mainnet').ok).toBe(true);
  });
});

describe('checkAddress: tron, solana, xrp, cosmos', () => {
  it('tron: base58check with version 0x41', () => {
    expect(checkAddress('tron', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', 'mainnet').ok).toBe(true);
    expect(checkAddress('tron', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u', 'mainnet').ok).toBe(false);
    expect(checkAddress('tron', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 'mainnet').ok).toBe(false);
  });
  it('solana: base58 decoding to 32 bytes, case preserved', () => {
    const a = 'So11111111111111111111111111111111111111112';
    expect(checkAddress('solana', a, 'mainnet')).toEqual({ ok: true, address: a, key: a });
    expect(checkAddress('solana', '11111111111111111111111111111111', 'mainnet').ok).toBe(true);
    expect(checkAddress('solana', 'So1111111111111111111111111111111111111111O', 'mainnet').ok).toBe(false); // O is not base58
    expect(checkAddress('solana', 'abc', 'mainnet').ok).toBe(false);
  });
  it('xrp: classic r-address with its checksum', () => {
    expect(checkAddress('xrp', 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh', 'mainnet').ok).toBe(true);
    expect(checkAddress('xrp', 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTj', 'mainnet').ok).toBe(false);
  });
  it('cosmos: bech32 cosmos1 with a 20 or 32 byte payload', () => {
    const a = bech32.encode('cosmos', bech32.toWords(new Uint8Array(20).fill(7)));
    expect(checkAddress('cosmos', a, 'mainnet').ok).toBe(true);
    expect(checkAddress('cosmos', bech32.encode('osmo', bech32.toWords(new Uint8Array(20).fill(7))), 'mainnet').ok).toBe(false);
    expect(checkAddress('cosmos', `${a.slice(0, -1)}q`, 'mainnet').ok).toBe(false);
  });
});

describe('credits ledger steps', () => {
  const fresh = { free_remaining: 1, paid_balance: 0, total_checks: 0 };
  it('packs and prices', () => {
    expect([5, 10, 20].every(isCreditPack)).toBe(true);
    expect(isCreditPack(15)).toBe(false);
    expect(isCreditPack('5')).toBe(false);
    expect(PACK_PRICE_MINOR[10]).toBe(4500n);
    expect(FREE_CHECKS_ALLOWANCE).toBeGreaterThan(0);
  });
  it('consumes free first, then paid, then reports insufficient; cache hits are free', () => {
    const s1 = applyConsume(fresh, { cached: false });
    expect(s1).toEqual({ type: 'consume_free', credits: -1, next: { free_remaining: 0, paid_balance: 0, total_checks: 1 } });
    const bought = applyPurchase(s1.next, 5);
    expect(bought).toEqual({ type: 'purchase', credits: 5, next: { free_remaining: 0, paid_balance: 5, total_checks: 1 } });
    expect(applyConsume(bought.next, { cached: true })).toEqual({ type: 'cache_hit', credits: 0, next: bought.next });
    const s2 = applyConsume(bought.next, { cached: false });
    expect(s2).toEqual({ type: 'consume_paid', credits: -1, next: { free_remaining: 0, paid_balance: 4, total_checks: 2 } });
    expect(applyConsume({ free_remaining: 0, paid_balance: 0, total_checks: 3 }, { cached: false })).toEqual({
      type: 'insufficient',
      credits: 0,
      next: { free_remaining: 0, paid_balance: 0, total_checks: 3 },
    });
  });
  it('refund returns the check to its pool and decrements the net counter; grants add paid credits', () => {
    expect(applyRefund({ free_remaining: 0, paid_balance: 4, total_checks: 2 }, 'consume_paid').next).toEqual({
      free_remaining: 0,
      paid_balance: 5,
      total_checks: 1,
    });
    expect(applyRefund({ free_remaining: 0, paid_balance: 4, total_checks: 2 }, 'consume_free').next).toEqual({
      free_remaining: 1,
      paid_balance: 4,
      total_checks: 1,
    });
    expect(applyAdminGrant(fresh, 3)).toEqual({
      type: 'admin_grant',
      credits: 3,
      next: { free_remaining: 1, paid_balance: 3, total_checks: 0 },
    });
    expect(() => applyPurchase(fresh, 0)).toThrow(RangeError);
  });
});
