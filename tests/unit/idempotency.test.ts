import { canonicalJson, IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_TTL_SECONDS, isValidIdempotencyKey } from '../../domain/idempotency';

describe('Idempotency-Key (spec 8)', () => {
  it('24 hours retention', () => {
    expect(IDEMPOTENCY_TTL_SECONDS).toBe(86400);
  });

  it.each([
    ['a'.repeat(16), true],
    ['a'.repeat(128), true],
    ['Abc_def-0123456789', true],
    ['a'.repeat(15), false],
    ['a'.repeat(129), false],
    ['has space 1234567', false],
    ['dots.are.not.allowed', false],
    ['é'.repeat(16), false],
    ['', false],
    ['abcdefghijklmnop\n', false],
  ])('%j -> %s', (k, ok) => {
    expect(isValidIdempotencyKey(k)).toBe(ok);
    expect(IDEMPOTENCY_KEY_PATTERN.test(k)).toBe(ok);
  });

  it('non-strings are invalid', () => {
    for (const k of [undefined, null, 1234567890123456, ['a'.repeat(16)], {}]) expect(isValidIdempotencyKey(k)).toBe(false);
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every depth, keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, 1, 2], c: 'x' } })).toBe('{"a":{"c":"x","d":[3,1,2]},"b":1}');
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
    expect(canonicalJson([{ z: 1, y: 2 }])).toBe('[{"y":2,"z":1}]');
  });

  it('follows JSON.stringify for scalars, undefined, and special numbers', () => {
    expect(canonicalJson(null)).toBe('null');
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson('a"b\n')).toBe('"a\\"b\\n"');
    expect(canonicalJson(1.5)).toBe('1.5');
    expect(canonicalJson(-0)).toBe('0');
    expect(canonicalJson(Number.NaN)).toBe('null');
    expect(canonicalJson(true)).toBe('true');
    expect(canonicalJson({ a: undefined, b: () => 1, c: 1 })).toBe('{"c":1}');
    expect(canonicalJson([undefined, () => 1])).toBe('[null,null]');
    expect(canonicalJson({})).toBe('{}');
    expect(canonicalJson([])).toBe('[]');
  });

  it('honours toJSON', () => {
    expect(canonicalJson({ at: new Date(Date.UTC(2026, 8, 4)) })).toBe('{"at":"2026-09-04T00:00:00.000Z"}');
  });

  it('equals JSON.stringify for key-sorted input', () => {
    const v = { a: [1, 'two', { k: null }], b: { c: true, d: 'é\u2028' }, e: 'x' };
    expect(canonicalJson(v)).toBe(JSON.stringify(v));
    expect(JSON.parse(canonicalJson(v))).toEqual(v);
  });

  it('sorts by code unit order, not locale', () => {
    expect(canonicalJson({ b: 1, B: 2, a: 3, _: 4 })).toBe('{"B":2,"_":4,"a":3,"b":1}');
  });

  it('repeated (non-circular) references are fine; cycles and bigint throw', () => {
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
    const cyc: Record<string, unknown> = {};
    cyc.self = cyc;
    expect(() => canonicalJson(cyc)).toThrow(TypeError);
    expect(() => canonicalJson({ amount: 1n })).toThrow(TypeError);
  });

  it('differs when values differ', () => {
    expect(canonicalJson({ amount: { amount: '100' } })).not.toBe(canonicalJson({ amount: { amount: '101' } }));
    expect(canonicalJson({ a: '1' })).not.toBe(canonicalJson({ a: 1 }));
  });
});
