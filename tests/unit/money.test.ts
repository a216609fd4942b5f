import {
  addMoney,
  ceilDiv,
  compareMoney,
  currencyDecimals,
  floorDiv,
  formatMajor,
  isFiat,
  isKnownCurrency,
  isStablecoin,
  Money,
  money,
  parseMajor,
  rescale,
  subMoney,
  toMinor,
  toMinorNonNegative,
  toMinorPositive,
} from '../../domain/money';
import { caught } from '../helpers/domain';

describe('currency registry', () => {
  it.each([
    ['USD', 2],
    ['EUR', 2],
    ['GBP', 2],
    ['BRL', 2],
    ['MXN', 2],
    ['COP', 2],
    ['CAD', 2],
    ['AUD', 2],
    ['CHF', 2],
    ['JPY', 0],
    ['KRW', 0],
    ['CLP', 0],
    ['VND', 0],
    ['KWD', 3],
    ['BHD', 3],
    ['OMR', 3],
    ['JOD', 3],
    ['TND', 3],
    ['USDC', 6],
    ['USDC.e', 6],
  ])('%s has %i decimals', (c, d) => {
    expect(currencyDecimals(c)).toBe(d);
    expect(isKnownCurrency(c)).toBe(true);
  });

  it('classifies fiat and stablecoins', () => {
    expect(isFiat('USD')).toBe(true);
    expect(isFiat('USDC')).toBe(false);
    expect(isStablecoin('USDC')).toBe(true);
    expect(isStablecoin('USDC.e')).toBe(true);
    expect(isStablecoin('USD')).toBe(false);
  });

  it('is exact and case-sensitive; prototype keys are not currencies', () => {
    for (const c of ['usd', 'Usd', 'USDC.E', 'usdc', 'XYZ', '', 'toString', '__proto__', 'constructor']) {
      expect(isKnownCurrency(c)).toBe(false);
    }
  });

  it('throws currency_invalid param currency for an unknown currency', () => {
    const e = caught(() => currencyDecimals('XYZ'));
    expect([e.type, e.code, e.param, e.status]).toEqual(['invalid_request', 'currency_invalid', 'currency', 400]);
  });
});

describe('money()', () => {
  it('builds wire money with registry decimals', () => {
    expect(money(10000n, 'USD')).toEqual({ amount: '10000', currency: 'USD', decimals: 2 });
    expect(money(-5n, 'USDC')).toEqual({ amount: '-5', currency: 'USDC', decimals: 6 });
    expect(money(0n, 'JPY')).toEqual({ amount: '0', currency: 'JPY', decimals: 0 });
  });
  it('rejects unknown currency and non-bigint amounts', () => {
    expect(caught(() => money(1n, 'ABC')).code).toBe('currency_invalid');
    expect(() => money(1 as unknown as bigint, 'USD')).toThrow(TypeError);
  });
});

describe('toMinor', () => {
  it('returns bigint minor units', () => {
    expect(toMinor({ amount: '10000', currency: 'USD', decimals: 2 })).toBe(10000n);
    expect(toMinor({ amount: '-1', currency: 'USD', decimals: 2 })).toBe(-1n);
    expect(toMinor({ amount: '0', currency: 'JPY', decimals: 0 })).toBe(0n);
    expect(toMinor({ amount: '123456789012345678901234567890', currency: 'USDC', decimals: 6 })).toBe(123456789012345678901234567890n);
  });

  it.each([['1.5'], ['1e3'], [' 1'], ['+1'], [''], ['-'], ['0x10'], ['1,000'], ['١٢']])(
    'rejects amount %j with amount_invalid and the given param',
    (amount) => {
      const e = caught(() => toMinor({ amount, currency: 'USD', decimals: 2 }, 'invoice_amount'));
      expect([e.type, e.code, e.param, e.status]).toEqual(['invalid_request', 'amount_invalid', 'invoice_amount', 400]);
    },
  );

  it('rejects a non-string amount (a JS number is never an amount)', () => {
    const e = caught(() => toMinor({ amount: 100 as unknown as string, currency: 'USD', decimals: 2 }));
    expect([e.code, e.param]).toEqual(['amount_invalid', 'amount']);
  });

  it('rejects non-objects', () => {
    expect(caught(() => toMinor(null as unknown as Money)).code).toBe('amount_invalid');
    expect(caught(() => toMinor('100' as unknown as Money)).code).toBe('amount_invalid');
  });

  it('rejects amounts over 38 digits', () => {
    expect(toMinor({ amount: '9'.repeat(38), currency: 'USD', decimals: 2 })).toBe(10n ** 38n - 1n);
    expect(caught(() => toMinor({ amount: '9'.repeat(39), currency: 'USD', decimals: 2 })).code).toBe('amount_invalid');
    expect(toMinor({ amount: '-' + '9'.repeat(38), currency: 'USD', decimals: 2 })).toBe(-(10n ** 38n - 1n));
  });

  it('rejects decimals that differ from the registry', () => {
    const e = caught(() => toMinor({ amount: '100', currency: 'USDC', decimals: 2 }));
    expect([e.code, e.param]).toEqual(['amount_invalid', 'amount']);
    expect(e.details).toEqual({ currency: 'USDC', expected_decimals: 6 });
    expect(caught(() => toMinor({ amount: '100', currency: 'USD', decimals: '2' as unknown as number })).code).toBe('amount_invalid');
  });

  it('rejects an unknown currency with currency_invalid and the given param', () => {
    const e = caught(() => toMinor({ amount: '100', currency: 'usd', decimals: 2 }, 'amount'));
    expect([e.code, e.param]).toEqual(['currency_invalid', 'amount']);
  });

  it('positive and non-negative variants', () => {
    expect(toMinorPositive({ amount: '1', currency: 'USD', decimals: 2 })).toBe(1n);
    expect(caught(() => toMinorPositive({ amount: '0', currency: 'USD', decimals: 2 })).code).toBe('amount_invalid');
    expect(caught(() => toMinorPositive({ amount: '-1', currency: 'USD', decimals: 2 }, 'x')).param).toBe('x');
    expect(toMinorNonNegative({ amount: '0', currency: 'USD', decimals: 2 })).toBe(0n);
    expect(caught(() => toMinorNonNegative({ amount: '-1', currency: 'USD', decimals: 2 })).code).toBe('amount_invalid');
  });
});

describe('floorDiv / ceilDiv', () => {
  it('round toward -inf / +inf', () => {
    expect(floorDiv(7n, 2n)).toBe(3n);
    expect(floorDiv(-7n, 2n)).toBe(-4n);
    expect(floorDiv(-8n, 2n)).toBe(-4n);
    expect(ceilDiv(7n, 2n)).toBe(4n);
    expect(ceilDiv(-7n, 2n)).toBe(-3n);
    expect(ceilDiv(8n, 2n)).toBe(4n);
    expect(ceilDiv(0n, 5n)).toBe(0n);
  });
});

describe('rescale', () => {
  it('scales up exactly', () => {
    expect(rescale(10000n, 2, 6, 'exact')).toBe(100000000n);
    expect(rescale(1n, 0, 6, 'floor')).toBe(1000000n);
    expect(rescale(-5n, 2, 6, 'ceil')).toBe(-50000n);
    expect(rescale(123n, 2, 2, 'exact')).toBe(123n);
  });

  it('scales down with floor and ceil (toward -inf / +inf)', () => {
    expect(rescale(1234567n, 6, 2, 'floor')).toBe(123n);
    expect(rescale(1234567n, 6, 2, 'ceil')).toBe(124n);
    expect(rescale(1230000n, 6, 2, 'ceil')).toBe(123n);
    expect(rescale(-1234567n, 6, 2, 'floor')).toBe(-124n);
    expect(rescale(-1234567n, 6, 2, 'ceil')).toBe(-123n);
    expect(rescale(999999n, 6, 0, 'floor')).toBe(0n);
  });

  it("'exact' refuses to lose precision", () => {
    expect(rescale(1230000n, 6, 2, 'exact')).toBe(123n);
    const e = caught(() => rescale(1230001n, 6, 2, 'exact'));
    expect([e.type, e.code]).toEqual(['invalid_request', 'amount_invalid']);
  });

  it('rejects invalid scales', () => {
    expect(() => rescale(1n, -1, 2, 'floor')).toThrow(RangeError);
    expect(() => rescale(1n, 2, 1.5, 'floor')).toThrow(RangeError);
  });
});

describe('formatMajor', () => {
  it.each([
    [{ amount: '101000000', currency: 'USDC', decimals: 6 }, '101.000000'],
    [{ amount: '10000', currency: 'USD', decimals: 2 }, '100.00'],
    [{ amount: '-5', currency: 'USD', decimals: 2 }, '-0.05'],
    [{ amount: '5', currency: 'USD', decimals: 2 }, '0.05'],
    [{ amount: '0', currency: 'USD', decimals: 2 }, '0.00'],
    [{ amount: '-0', currency: 'USD', decimals: 2 }, '0.00'],
    [{ amount: '500', currency: 'JPY', decimals: 0 }, '500'],
    [{ amount: '-500', currency: 'JPY', decimals: 0 }, '-500'],
    [{ amount: '1', currency: 'KWD', decimals: 3 }, '0.001'],
    [{ amount: '1', currency: 'USDC', decimals: 6 }, '0.000001'],
  ])('%j -> %s', (m, s) => {
    expect(formatMajor(m)).toBe(s);
  });

  it('rejects malformed amounts', () => {
    expect(caught(() => formatMajor({ amount: '1.0', currency: 'USD', decimals: 2 })).code).toBe('amount_invalid');
  });
});

describe('parseMajor', () => {
  it.each([
    ['1', 2, 100n],
    ['1.5', 2, 150n],
    ['1.50', 2, 150n],
    ['0.01', 2, 1n],
    ['-0.05', 2, -5n],
    ['-0', 2, 0n],
    ['101', 6, 101000000n],
    ['0.000001', 6, 1n],
    ['500', 0, 500n],
    ['1.500', 2, 150n],
    ['7.000', 0, 7n],
    ['007.10', 2, 710n],
    ['123456789012345.123456789012345678', 18, 123456789012345123456789012345678n],
  ])('%s at %i decimals -> %s', (s, d, v) => {
    expect(parseMajor(s, d)).toBe(v);
  });

  it.each([
    ['1.001', 2],
    ['0.5', 0],
    ['0.0000001', 6],
  ])('rejects %s at %i decimals (non-zero digit beyond the scale)', (s, d) => {
    const e = caught(() => parseMajor(s, d));
    expect(e.code).toBe('amount_invalid');
    expect(e.details).toEqual({ decimals: d });
  });

  it.each([[''], ['.5'], ['5.'], ['+1'], [' 1'], ['1 '], ['1e2'], ['1,5'], ['1.2.3'], ['--1'], ['abc'], ['١']])(
    'rejects malformed %j',
    (s) => {
      expect(caught(() => parseMajor(s, 2)).code).toBe('amount_invalid');
    },
  );

  it('round-trips with formatMajor', () => {
    for (const amount of ['0', '1', '-1', '99', '100', '123456', '-987654321']) {
      for (const [currency, decimals] of [
        ['USD', 2],
        ['USDC', 6],
        ['JPY', 0],
        ['KWD', 3],
      ] as const) {
        const m = { amount, currency, decimals };
        expect(parseMajor(formatMajor(m), decimals).toString()).toBe(amount);
      }
    }
  });
});

describe('addMoney / subMoney / compareMoney', () => {
  const usd = (a: string): Money => ({ amount: a, currency: 'USD', decimals: 2 });
  it('adds, subtracts and compares', () => {
    expect(addMoney(usd('150'), usd('-50'))).toEqual(usd('100'));
    expect(subMoney(usd('100'), usd('250'))).toEqual(usd('-150'));
    expect(compareMoney(usd('1'), usd('2'))).toBe(-1);
    expect(compareMoney(usd('2'), usd('2'))).toBe(0);
    expect(compareMoney(usd('10'), usd('9'))).toBe(1);
  });
  it('works on big amounts without precision loss', () => {
    const big = usd('9007199254740993');
    expect(addMoney(big, usd('1')).amount).toBe('9007199254740994');
  });
  it('throws currency_mismatch across currencies', () => {
    const e = caught(() => addMoney(usd('1'), { amount: '1', currency: 'USDC', decimals: 6 }));
    expect([e.type, e.code]).toEqual(['invalid_request', 'currency_mismatch']);
    expect(caught(() => subMoney(usd('1'), { amount: '1', currency: 'EUR', decimals: 2 })).code).toBe('currency_mismatch');
    expect(caught(() => compareMoney(usd('1'), { amount: '1', currency: 'EUR', decimals: 2 })).code).toBe('currency_mismatch');
  });
  it('validates both operands', () => {
    expect(caught(() => addMoney(usd('1.0'), usd('1'))).code).toBe('amount_invalid');
  });
});
