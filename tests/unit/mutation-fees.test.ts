/**
 * The payer fee's refusals and edges (domain/fees.ts, spec 4.6, 8): what the mutation run
 * (npm run test:mutation) found unchecked — zero basis points, an unknown rounding, and the exact
 * message and `param` of each error a caller sees.
 */
import { bpsOf, settlementAssetFor, totalDue } from '../../domain/fees';
import { caught } from '../helpers/domain';

describe('bpsOf', () => {
  it('0 bps is a fee of zero, not an error', () => {
    expect(bpsOf(123456789n, 0, 'floor')).toBe(0n);
    expect(bpsOf(123456789n, 0, 'ceil')).toBe(0n);
  });

  it('a negative or fractional bps is a RangeError naming the value', () => {
    expect(() => bpsOf(1n, -1, 'floor')).toThrow('bps must be a non-negative integer, got -1');
    expect(() => bpsOf(1n, 2.5, 'ceil')).toThrow('bps must be a non-negative integer, got 2.5');
  });

  it('a rounding other than floor or ceil is a RangeError, never a silent ceil', () => {
    expect(() => bpsOf(150n, 100, 'round' as 'floor')).toThrow('unknown rounding round');
    expect(() => bpsOf(150n, 100, 'half_even' as 'ceil')).toThrow(RangeError);
  });
});

describe('refusals a payer sees', () => {
  it('a non-USD invoice: 422 native_via_provider_not_enabled with the currency in the message', () => {
    const e = caught(() => settlementAssetFor('EUR'));
    expect(e.message).toBe('Crypto settlement is only available for USD links, not EUR.');
  });

  it('a zero or negative invoice: 400 amount_invalid on param amount', () => {
    for (const amount of ['0', '-100']) {
      const e = caught(() => totalDue({ amount, currency: 'USD', decimals: 2 }));
      expect([e.type, e.code, e.param, e.status, e.message]).toEqual([
        'invalid_request',
        'amount_invalid',
        'amount',
        400,
        'amount must be strictly positive.',
      ]);
    }
  });

  it('a malformed invoice amount is amount_invalid on param amount', () => {
    const e = caught(() => totalDue({ amount: '1.5', currency: 'USD', decimals: 2 }));
    expect([e.code, e.param]).toEqual(['amount_invalid', 'amount']);
    expect(caught(() => totalDue({ amount: '100', currency: 'USD', decimals: 6 })).param).toBe('amount');
  });

  it('an invoice in a fiat other than USD is refused before any fee is computed', () => {
    const e = caught(() => totalDue({ amount: '10000', currency: 'EUR', decimals: 2 }));
    expect([e.code, e.status, e.details]).toEqual(['native_via_provider_not_enabled', 422, { currency: 'EUR' }]);
  });
});

describe('totalDue (spec 2.4, 8)', () => {
  it('0.99 USD: invoice 990000 USDC units, fee 9900 (1% of whole cents is exact at 6 decimals), total 999900', () => {
    expect(totalDue({ amount: '99', currency: 'USD', decimals: 2 })).toEqual({
      invoice: { amount: '990000', currency: 'USDC', decimals: 6 },
      fee: { amount: '9900', currency: 'USDC', decimals: 6 },
      total: { amount: '999900', currency: 'USDC', decimals: 6 },
    });
  });
});
