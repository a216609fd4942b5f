import { bpsOf, PAYER_FEE_BPS, PAYER_FEE_CAPABILITY, settlementAssetFor, totalDue } from '../../domain/fees';
import { Money } from '../../domain/money';
import { caught } from '../helpers/domain';

const usd = (amount: string): Money => ({ amount, currency: 'USD', decimals: 2 });
const usdc = (amount: string): Money => ({ amount, currency: 'USDC', decimals: 6 });

describe('constants', () => {
  it('payer fee is 100 bps, floor at 6 decimals, payer-borne on crypto rails (spec 4.6, 8)', () => {
    expect(PAYER_FEE_BPS).toBe(100);
    expect(PAYER_FEE_CAPABILITY).toEqual({
      kind: 'percentage',
      bps: 100,
      applies_to: 'payer',
      rails: ['crypto_native', 'crypto_xchain'],
      rounding: 'floor',
      rounding_decimals: 6,
    });
  });
});

describe('bpsOf', () => {
  it('computes basis points with floor and ceil', () => {
    expect(bpsOf(100000000n, 100, 'floor')).toBe(1000000n);
    expect(bpsOf(123456789n, 100, 'floor')).toBe(1234567n);
    expect(bpsOf(123456789n, 100, 'ceil')).toBe(1234568n);
    expect(bpsOf(99n, 100, 'floor')).toBe(0n);
    expect(bpsOf(99n, 100, 'ceil')).toBe(1n);
    expect(bpsOf(1n, 1, 'floor')).toBe(0n);
    expect(bpsOf(10000n, 5, 'floor')).toBe(5n);
    expect(bpsOf(0n, 100, 'ceil')).toBe(0n);
    expect(bpsOf(5000n, 10000, 'floor')).toBe(5000n);
  });

  it('rounds negatives toward -inf (floor) and +inf (ceil)', () => {
    expect(bpsOf(-150n, 100, 'floor')).toBe(-2n);
    expect(bpsOf(-150n, 100, 'ceil')).toBe(-1n);
  });

  it('is exact on huge amounts', () => {
    expect(bpsOf(10n ** 30n + 99n, 100, 'floor')).toBe(10n ** 28n);
  });

  it('rejects invalid bps', () => {
    expect(() => bpsOf(1n, -1, 'floor')).toThrow(RangeError);
    expect(() => bpsOf(1n, 1.5, 'floor')).toThrow(RangeError);
    expect(() => bpsOf(1n, Number.NaN, 'ceil')).toThrow(RangeError);
  });
});

describe('settlementAssetFor', () => {
  it('USD settles in USDC', () => {
    expect(settlementAssetFor('USD')).toBe('USDC');
  });
  it.each(['EUR', 'GBP', 'USDC', 'usd', 'JPY'])('%s throws native_via_provider_not_enabled', (c) => {
    const e = caught(() => settlementAssetFor(c));
    expect([e.type, e.code, e.status]).toEqual(['invalid_request', 'native_via_provider_not_enabled', 422]);
    expect(e.details).toEqual({ currency: c });
  });
});

describe('totalDue (spec 2.4, 8)', () => {
  it('100.00 USD -> 100 USDC + 1 USDC fee = 101 USDC', () => {
    expect(totalDue(usd('10000'))).toEqual({
      invoice: usdc('100000000'),
      fee: usdc('1000000'),
      total: usdc('101000000'),
    });
  });

  it('0.01 USD (one minor unit)', () => {
    expect(totalDue(usd('1'))).toEqual({ invoice: usdc('10000'), fee: usdc('100'), total: usdc('10100') });
  });

  it('123.45 USD', () => {
    expect(totalDue(usd('12345'))).toEqual({
      invoice: usdc('123450000'),
      fee: usdc('1234500'),
      total: usdc('124684500'),
    });
  });

  it('0.99 USD and a large amount', () => {
    expect(totalDue(usd('99')).fee).toEqual(usdc('9900'));
    expect(totalDue(usd('99999999999')).total).toEqual(usdc(String(999999999990000n + 9999999999900n)));
  });

  it('fee is floor(invoice * 100 / 10000) and total = invoice + fee for many amounts', () => {
    for (let cents = 1n; cents < 5000n; cents += 37n) {
      const r = totalDue(usd(cents.toString()));
      const inv = BigInt(r.invoice.amount);
      expect(inv).toBe(cents * 10000n);
      expect(BigInt(r.fee.amount)).toBe((inv * 100n) / 10000n);
      expect(BigInt(r.total.amount)).toBe(inv + BigInt(r.fee.amount));
    }
  });

  it('rejects zero, negative and malformed amounts', () => {
    expect(caught(() => totalDue(usd('0'))).code).toBe('amount_invalid');
    expect(caught(() => totalDue(usd('-100'))).code).toBe('amount_invalid');
    expect(caught(() => totalDue(usd('1.00'))).code).toBe('amount_invalid');
    expect(caught(() => totalDue({ amount: '100', currency: 'USD', decimals: 6 })).code).toBe('amount_invalid');
  });

  it('rejects non-USD invoices', () => {
    expect(caught(() => totalDue({ amount: '100', currency: 'EUR', decimals: 2 })).code).toBe('native_via_provider_not_enabled');
    expect(caught(() => totalDue({ amount: '100', currency: 'XYZ', decimals: 2 })).code).toBe('currency_invalid');
  });
});
