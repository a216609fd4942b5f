/**
 * Pure rules of wallet deposits and conversions (domain/wallet-deposits.ts; spec 2.5, 4.5, 6;
 * issue 14): the transition tables and their events, pricing, and the body Money checks.
 */
import {
  assetAmount,
  CONVERSION_EVENTS,
  conversionPairs,
  conversionTransitions,
  DEPOSIT_INTENT_EVENTS,
  depositIntentTransitions,
  priceConversion,
} from '../../domain/wallet-deposits';
import { UNSHIPPED_EVENT_TYPES } from '../../domain/event-types';

test('tables: terminal states, illegal moves are 409 <object>_state_changed; every event name is catalogued', () => {
  expect([...depositIntentTransitions.terminal].sort()).toEqual(['expired', 'failed', 'manual_recovery_required', 'settled']);
  expect([...conversionTransitions.terminal].sort()).toEqual(['failed', 'settled']);
  expect(() => depositIntentTransitions.assert('settled', 'failed')).toThrow(
    expect.objectContaining({ status: 409, code: 'deposit_intent_state_changed' }),
  );
  expect(() => conversionTransitions.assert('built', 'settled')).toThrow(expect.objectContaining({ code: 'conversion_state_changed' }));
  for (const t of [...Object.values(DEPOSIT_INTENT_EVENTS), ...Object.values(CONVERSION_EVENTS)])
    expect(UNSHIPPED_EVENT_TYPES).toContain(t);
  expect(new Set(Object.values(DEPOSIT_INTENT_EVENTS)).size).toBe(8);
});

test('pricing: 1:1 less 5 bps floored; pairs both ways', () => {
  const [pair, back] = conversionPairs('USDC');
  expect([pair.from, pair.to, back.from, back.to]).toEqual(['USDC', 'USDT0', 'USDT0', 'USDC']);
  expect(priceConversion(pair, 20_000_000n)).toEqual({ amountIn: 20_000_000n, fee: 10_000n, amountOut: 19_990_000n });
  expect(priceConversion(pair, 1_999n)).toEqual({ amountIn: 1_999n, fee: 0n, amountOut: 1_999n });
  expect(() => priceConversion(pair, 0n)).toThrow(RangeError);
});

test('assetAmount: currency and scale of the asset, positive', () => {
  expect(assetAmount({ amount: '15', currency: 'USDC', decimals: 6 }, ['USDC'])).toBe(15n);
  expect(() => assetAmount({ amount: '15', currency: 'EUR', decimals: 6 }, ['USDC'])).toThrow(
    expect.objectContaining({ code: 'currency_invalid', param: 'amount.currency' }),
  );
  expect(() => assetAmount({ amount: '15', currency: 'USDC', decimals: 2 }, ['USDC'])).toThrow(
    expect.objectContaining({ code: 'amount_invalid', param: 'amount.decimals' }),
  );
  expect(() => assetAmount({ amount: '0', currency: 'USDC', decimals: 6 }, ['USDC'])).toThrow(
    expect.objectContaining({ code: 'amount_invalid' }),
  );
});
