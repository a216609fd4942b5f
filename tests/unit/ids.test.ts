import {
  BASE62_ALPHABET,
  drawUnbiased,
  hasIdShape,
  ID_PREFIXES,
  ID_RANDOM_BYTES,
  isShortCode,
  mintId,
  mintShortCode,
  mintToken,
  normalizeShortCode,
  SHORT_CODE_ALPHABET,
  SHORT_CODE_RANDOM_BYTES,
  tokenRandomBytes,
} from '../../domain/ids';

/** Deterministic byte source for tests (xorshift32). */
function bytes(n: number, seed = 1): Uint8Array {
  let x = seed >>> 0 || 1;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 255;
  }
  return out;
}

describe('ID_PREFIXES (spec part 2)', () => {
  it('has the spec prefixes and ours', () => {
    const values = Object.values(ID_PREFIXES);
    for (const p of [
      'acct_',
      'pl_',
      'cli_',
      'prd_',
      'plk_',
      'pay_',
      'sub_',
      'wlt_',
      'ofr_',
      'ba_',
      'po_',
      'poa_',
      'pr_',
      'cus_',
      'scr_',
      'ord_',
      'whe_',
      'evt_',
      'adr_',
      'req_',
      'usr_',
      'key_',
      'whd_',
      'wha_',
      'dep_',
      'eml_',
      'sess_',
    ]) {
      expect(values).toContain(p);
    }
    expect(new Set(values).size).toBe(values.length);
    expect(ID_PREFIXES.payment_link).toBe('pl_');
    expect(ID_PREFIXES.payout_attempt).toBe('poa_');
  });
});

describe('alphabets', () => {
  it('base62 has 62 distinct characters', () => {
    expect(BASE62_ALPHABET).toHaveLength(62);
    expect(new Set(BASE62_ALPHABET).size).toBe(62);
  });
  it('short code alphabet: digits + lowercase minus a, e, i, l, o, u (30)', () => {
    expect(SHORT_CODE_ALPHABET).toHaveLength(30);
    expect(new Set(SHORT_CODE_ALPHABET).size).toBe(30);
    for (const c of 'aeilou') expect(SHORT_CODE_ALPHABET).not.toContain(c);
    for (const c of '0123456789bcdfghjkmnpqrstvwxyz') expect(SHORT_CODE_ALPHABET).toContain(c);
  });
});

describe('drawUnbiased', () => {
  it('uses only bytes below the largest multiple of the alphabet size', () => {
    // 62 * 4 = 248: bytes 248..255 are rejected
    expect(drawUnbiased(Uint8Array.from([255, 248, 0, 61, 62, 247]), BASE62_ALPHABET, 4)).toBe('0z0' + BASE62_ALPHABET[247 % 62]);
    // 30 * 8 = 240: bytes 240..255 are rejected
    expect(drawUnbiased(Uint8Array.from([240, 239, 30, 0]), SHORT_CODE_ALPHABET, 3)).toBe('z00');
  });

  it('throws when the bytes run out', () => {
    expect(() => drawUnbiased(Uint8Array.from([255, 250, 1]), BASE62_ALPHABET, 2)).toThrow(RangeError);
  });

  it('is uniform over every byte value (each character gets the same number of byte values)', () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    const s = drawUnbiased(all, SHORT_CODE_ALPHABET, 240);
    const counts = new Map<string, number>();
    for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(30);
    for (const v of counts.values()) expect(v).toBe(8);
  });
});

describe('mintId', () => {
  it('is prefix + 24 base62 characters, deterministic for given bytes', () => {
    const id = mintId('pl_', bytes(ID_RANDOM_BYTES));
    expect(id).toMatch(/^pl_[0-9A-Za-z]{24}$/);
    expect(mintId('pl_', bytes(48))).toBe(id);
    expect(mintId('pl_', bytes(48, 2))).not.toBe(id);
    expect(hasIdShape(id, 'pl_')).toBe(true);
  });

  it('requires at least 48 bytes and a sane prefix', () => {
    expect(() => mintId('pl_', bytes(47))).toThrow(RangeError);
    expect(() => mintId('PL_', bytes(48))).toThrow(RangeError);
    expect(() => mintId('pl', bytes(48))).toThrow(RangeError);
    expect(() => mintId('', bytes(48))).toThrow(RangeError);
    expect(() => mintId('pl_', [1, 2, 3] as unknown as Uint8Array)).toThrow(TypeError);
  });

  it('throws when too many bytes are rejected', () => {
    const b = new Uint8Array(48).fill(255);
    b.fill(0, 0, 23);
    expect(() => mintId('pl_', b)).toThrow(RangeError);
  });

  it('mints distinct ids for many seeds', () => {
    const seen = new Set<string>();
    for (let s = 1; s <= 500; s++) seen.add(mintId('pay_', bytes(48, s)));
    expect(seen.size).toBe(500);
  });
});

describe('mintToken', () => {
  it('defaults to 32 base62 characters after the prefix', () => {
    const t = mintToken('sk_live_', bytes(64));
    expect(t).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
    expect(mintToken('plk_', bytes(64))).toMatch(/^plk_[0-9A-Za-z]{32}$/);
    expect(mintToken('whsec_', bytes(128), 48)).toMatch(/^whsec_[0-9A-Za-z]{48}$/);
    expect(mintToken('dsess_', bytes(64))).toMatch(/^dsess_/);
  });
  it('needs 2 bytes per character (min 32) and a length of 16..256', () => {
    expect(tokenRandomBytes(32)).toBe(64);
    expect(tokenRandomBytes(16)).toBe(32);
    expect(() => mintToken('sk_live_', bytes(63))).toThrow(RangeError);
    expect(() => mintToken('sk_live_', bytes(64), 8)).toThrow(RangeError);
    expect(() => mintToken('Sk_', bytes(64))).toThrow(RangeError);
  });
});

describe('short codes (spec 2.3)', () => {
  it('mints 7 characters of the alphabet', () => {
    for (let s = 1; s <= 200; s++) {
      const c = mintShortCode(bytes(SHORT_CODE_RANDOM_BYTES, s));
      expect(c).toHaveLength(7);
      expect(isShortCode(c)).toBe(true);
      expect(c).not.toMatch(/[aeilouA-Z]/);
    }
  });

  it('requires 32 bytes', () => {
    expect(() => mintShortCode(bytes(31))).toThrow(RangeError);
  });

  it('isShortCode', () => {
    expect(isShortCode('b2c3d4f')).toBe(true);
    expect(isShortCode('0000000')).toBe(true);
    expect(isShortCode('abcdefg')).toBe(false); // a, e
    expect(isShortCode('B2C3D4F')).toBe(false);
    expect(isShortCode('b2c3d4')).toBe(false);
    expect(isShortCode('b2c3d4fg')).toBe(false);
    expect(isShortCode('b2c3d4l')).toBe(false);
    expect(isShortCode(1234567)).toBe(false);
    expect(isShortCode(null)).toBe(false);
  });

  it('normalizeShortCode lower-cases and trims', () => {
    expect(normalizeShortCode(' B2C3D4F ')).toBe('b2c3d4f');
    expect(normalizeShortCode('ABCDEFG')).toBeNull();
    expect(normalizeShortCode(undefined)).toBeNull();
  });
});

describe('hasIdShape', () => {
  it('checks prefix and base62 suffix only', () => {
    expect(hasIdShape('pl_abc123', 'pl_')).toBe(true);
    expect(hasIdShape('pl_', 'pl_')).toBe(false);
    expect(hasIdShape('pl_abc-123', 'pl_')).toBe(false);
    expect(hasIdShape('cli_abc', 'pl_')).toBe(false);
    expect(hasIdShape(42, 'pl_')).toBe(false);
    expect(hasIdShape('pl_' + 'a'.repeat(129), 'pl_')).toBe(false);
  });
});
