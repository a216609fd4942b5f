/** Payroll funding attempt rules (spec 2.7, 4.4; issue 13): transitions, rails, route types, USDC price, refusals, failure reasons. */
import {
  checkFundingRequest,
  cryptoFundingPrice,
  fundingAttemptTransitions,
  FUNDING_BANK_RAIL,
  fundingRouteType,
  isRetryableFailure,
  normalizeFundingFailure,
} from '../../domain/payroll-funding';
import { PAYROLL_CURRENCIES } from '../../domain/payroll';
import { caught } from '../helpers/domain';

describe('funding attempts', () => {
  it('moves preparing -> pending -> verified; a refresh takes blocked or failed back to preparing', () => {
    expect(fundingAttemptTransitions.can('preparing', 'pending')).toBe(true);
    expect(fundingAttemptTransitions.can('pending', 'verified')).toBe(true);
    expect(fundingAttemptTransitions.can('blocked', 'preparing')).toBe(true);
    expect(fundingAttemptTransitions.can('failed', 'preparing')).toBe(true);
    expect(fundingAttemptTransitions.terminal).toEqual(['verified']);
    expect(caught(() => fundingAttemptTransitions.assert('verified', 'pending')).code).toBe('payroll_funding_attempt_state_changed');
  });

  it('has a bank rail for every run currency and names the route type', () => {
    for (const c of PAYROLL_CURRENCIES) expect(FUNDING_BANK_RAIL[c]).toBeDefined();
    expect(FUNDING_BANK_RAIL.GBP).toBe('faster_payments');
    expect(fundingRouteType('fiat')).toBe('bank');
    expect(fundingRouteType('crypto')).toBe('crypto_deposit_to_wallet');
  });

  it('prices a run in USDC, rounded up; null without a rate', () => {
    expect(cryptoFundingPrice(370050n, 'USD')).toBe(3_700_500_000n);
    expect(cryptoFundingPrice(1n, 'EUR')).toBe(10_800n);
    expect(cryptoFundingPrice(1n, 'MXN')).toBe(580n);
    expect(cryptoFundingPrice(100n, 'JPY')).toBeNull();
  });

  it('refuses zero rows first, then a method switch after money', () => {
    expect(caught(() => checkFundingRequest({ itemCount: 0, method: 'fiat', moneyObserved: true }, 'crypto'))).toMatchObject({
      status: 409,
      code: 'run_has_no_rows',
    });
    expect(caught(() => checkFundingRequest({ itemCount: 2, method: 'fiat', moneyObserved: true }, 'crypto'))).toMatchObject({
      status: 409,
      code: 'funding_method_locked',
      details: { funding_method: 'fiat' },
    });
    expect(() => checkFundingRequest({ itemCount: 2, method: 'fiat', moneyObserved: true }, 'fiat')).not.toThrow();
    expect(() => checkFundingRequest({ itemCount: 2, method: 'fiat', moneyObserved: false }, 'crypto')).not.toThrow();
  });

  it('never lets provider text through as a failure reason', () => {
    expect(normalizeFundingFailure('fx_unconverted')).toBe('fx_unconverted');
    expect(normalizeFundingFailure('Upstream 502: Bad Gateway')).toBe('provider_error');
    expect(normalizeFundingFailure(null)).toBeNull();
    expect(isRetryableFailure('provider_error')).toBe(true);
    expect(isRetryableFailure('verification_required')).toBe(false);
  });
});
