import {
  base64UrlDecode,
  base64UrlEncode,
  decodeCursor,
  DEFAULT_LIMIT,
  encodeCursor,
  isBigintDigits,
  MAX_LIMIT,
  parseLimit,
  utf8Decode,
  utf8Encode,
} from '../../domain/pagination';

describe('parseLimit (spec 8)', () => {
  it('defaults and bounds', () => {
    expect(DEFAULT_LIMIT).toBe(25);
    expect(MAX_LIMIT).toBe(100);
  });

  it.each([
    [undefined, 25],
    [null, 25],
    ['', 25],
    ['   ', 25],
    ['10', 10],
    [' 10 ', 10],
    ['010', 10],
    ['1', 1],
    ['100', 100],
    ['101', 100],
    ['5000', 100],
    ['99999999999999999999999', 100],
    ['0', 25],
    ['000', 25],
    ['-1', 25],
    ['-0', 25],
    ['1.5', 25],
    ['10.0', 25],
    ['abc', 25],
    ['1e2', 25],
    ['+5', 25],
    ['0x10', 25],
    ['10abc', 25],
    ['١٠', 25],
    [10, 10],
    [0, 25],
    [-3, 25],
    [2.5, 25],
    [250, 100],
    [Number.NaN, 25],
    [Number.POSITIVE_INFINITY, 25],
    [7n, 7],
    [0n, 25],
    [1000n, 100],
    [['10'], 25],
    [['10', '20'], 25],
    [{}, 25],
    [true, 25],
  ] as Array<[unknown, number]>)('%p -> %i', (raw, n) => {
    expect(parseLimit(raw)).toBe(n);
  });
});

describe('utf8', () => {
  it('round-trips ASCII, BMP and astral characters', () => {
    for (const s of ['', 'abc', 'é', '€', '日本', '\u{1F680}', 'a\u0000b']) {
      expect(utf8Decode(utf8Encode(s))).toBe(s);
    }
    expect(Array.from(utf8Encode('€'))).toEqual([0xe2, 0x82, 0xac]);
    expect(Array.from(utf8Encode('\u{1F680}'))).toEqual([0xf0, 0x9f, 0x9a, 0x80]);
  });
  it('encodes a lone surrogate as U+FFFD', () => {
    expect(Array.from(utf8Encode('\uD800'))).toEqual([0xef, 0xbf, 0xbd]);
  });
  it('rejects malformed sequences', () => {
    for (const b of [[0x80], [0xc0, 0x80], [0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xf5, 0x80, 0x80, 0x80], [0xe2, 0x82], [0xc3]]) {
      expect(utf8Decode(Uint8Array.from(b))).toBeNull();
    }
  });
});

describe('base64url', () => {
  it('matches RFC 4648 test vectors (unpadded, url alphabet)', () => {
    const enc = (s: string) => base64UrlEncode(utf8Encode(s));
    expect(enc('')).toBe('');
    expect(enc('f')).toBe('Zg');
    expect(enc('fo')).toBe('Zm8');
    expect(enc('foo')).toBe('Zm9v');
    expect(enc('foob')).toBe('Zm9vYg');
    expect(enc('fooba')).toBe('Zm9vYmE');
    expect(enc('foobar')).toBe('Zm9vYmFy');
    expect(base64UrlEncode(Uint8Array.from([0xfb, 0xff]))).toBe('-_8');
  });

  it('round-trips every byte value', () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    for (let n = 0; n <= 10; n++) {
      const slice = all.slice(250 - n);
      expect(Array.from(base64UrlDecode(base64UrlEncode(slice)) as Uint8Array)).toEqual(Array.from(slice));
    }
    expect(Array.from(base64UrlDecode(base64UrlEncode(all)) as Uint8Array)).toEqual(Array.from(all));
  });

  it('rejects padding, foreign characters, bad lengths and non-canonical tails', () => {
    expect(base64UrlDecode('Zg==')).toBeNull();
    expect(base64UrlDecode('Zm9v+')).toBeNull();
    expect(base64UrlDecode('Zm/v')).toBeNull();
    expect(base64UrlDecode('Z')).toBeNull();
    expect(base64UrlDecode('Zh')).toBeNull(); // unused bits set
    expect(base64UrlDecode('Zm9')).toBeNull(); // unused bits set
    expect(base64UrlDecode(' Zg')).toBeNull();
  });
});

describe('cursor', () => {
  const c = { t: '2026-09-04T10:11:12.345Z', id: 'pl_AbC123xyz' };

  it('round-trips and is URL safe', () => {
    const s = encodeCursor(c);
    expect(s).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(s)).toEqual(c);
  });

  it('accepts Postgres-style timestamps with microseconds and offsets', () => {
    for (const t of [
      '2026-09-04T10:11:12Z',
      '2026-09-04T10:11:12.123456Z',
      '2026-09-04 10:11:12.123456+00',
      '2026-09-04T10:11:12+02:00',
      '2026-09-04T10:11:12.1-0530',
    ]) {
      expect(decodeCursor(encodeCursor({ t, id: 'evt_1' }))).toEqual({ t, id: 'evt_1' });
    }
  });

  it('encodeCursor refuses values it could not decode', () => {
    expect(() => encodeCursor({ t: 'yesterday', id: 'pl_1' })).toThrow(RangeError);
    expect(() => encodeCursor({ t: '2026-13-01T00:00:00Z', id: 'pl_1' })).toThrow(RangeError);
    expect(() => encodeCursor({ t: c.t, id: '' })).toThrow(RangeError);
    expect(() => encodeCursor({ t: c.t, id: 'pl 1' })).toThrow(RangeError);
  });

  it('decodeCursor returns null on garbage and never throws', () => {
    const enc = (v: unknown) => base64UrlEncode(utf8Encode(typeof v === 'string' ? v : JSON.stringify(v)));
    const bad: unknown[] = [
      '',
      'x',
      '!!!!',
      'Zg==',
      'not a cursor',
      'a'.repeat(2000),
      enc('{'),
      enc('null'),
      enc('[]'),
      enc('"s"'),
      enc(42),
      enc({ t: c.t }),
      enc({ id: 'pl_1' }),
      enc({ t: 5, id: 'pl_1' }),
      enc({ t: c.t, id: 5 }),
      enc({ t: 'garbage', id: 'pl_1' }),
      enc({ t: c.t, id: 'pl_1', x: 1 }),
      enc({ t: c.t, id: "pl_1'; drop" }),
      base64UrlEncode(Uint8Array.from([0xff, 0xfe, 0xfd])),
      undefined,
      null,
      42,
      {},
      ['a'],
    ];
    for (const b of bad) {
      expect(() => decodeCursor(b as string)).not.toThrow();
      expect(decodeCursor(b as string)).toBeNull();
    }
  });
});

describe('cursor values PostgreSQL can read (contract fuzzing regressions)', () => {
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  it.each(['2026-02-31T00:00:00Z', '2025-02-29T00:00:00Z', '0000-01-01T00:00:00Z', '2026-04-31T00:00:00Z', '2026-01-01T00:00:00+16:00'])(
    'refuses the impossible time %s',
    (t) => {
      expect(decodeCursor(enc({ t, id: 'a' }))).toBeNull();
    },
  );
  it.each(['2024-02-29T00:00:00Z', '2000-02-29T23:59:60Z', '0001-01-01T00:00:00Z', '2026-01-01T00:00:00-15:59'])('accepts %s', (t) => {
    expect(decodeCursor(enc({ t, id: 'a' }))).toEqual({ t, id: 'a' });
  });
  it('isBigintDigits bounds sequence numbers to PostgreSQL bigint', () => {
    expect(isBigintDigits('9223372036854775807')).toBe(true);
    expect(isBigintDigits('9223372036854775808')).toBe(false);
    expect(isBigintDigits('9'.repeat(20))).toBe(false);
    expect(isBigintDigits('')).toBe(false);
    expect(isBigintDigits('-1')).toBe(false);
  });
});
