/**
 * Payroll funding attempt rules (spec 2.7 "Funding instructions", 4.4): the attempt
 * statuses and their transitions, the bank rail a run currency is funded on, the route type of a
 * funding method, the USDC price of a crypto-funded run, the refusals of the funding POST
 * (`run_has_no_rows`, `funding_method_locked`) and the normalized `failure_reason`.
 *
 * Amounts are bigint minor units: the run total in the run currency, the crypto price in USDC (6
 * decimals). Pure: no I/O, safe in workflows. Not wired to a route yet (next: the funding POST/GET).
 */
import type { BankRail } from './bank-details';
import { conflict } from './errors';
import { currencyDecimals } from './money';
import { fiatToUsdcCeil, REFERENCE_RATES_USDC_PER_MAJOR } from './payouts/pricing';
import type { PayrollCurrency } from './payroll';
import { transitionTable, type TransitionMap, type TransitionTable } from './transitions';

/** Funding attempt statuses (spec 2.7, values named). */
export const FUNDING_ATTEMPT_STATUSES = Object.freeze(['preparing', 'pending', 'verified', 'blocked', 'failed'] as const);
export type FundingAttemptStatus = (typeof FUNDING_ATTEMPT_STATUSES)[number];

/**
 * Attempt transitions (ours): `preparing` (instructions being obtained) -> `pending` (instructions
 * out, waiting for money), `blocked` (a compliance or capability gate stands) or `failed` (could
 * not be obtained or priced); `pending` -> `verified` (money observed and confirmed) or back to
 * `blocked` / `failed`; a refresh (a later POST) takes `blocked` and a retryable `failed` back to
 * `preparing`. `verified` is final for the attempt.
 */
const NEXT: TransitionMap<FundingAttemptStatus> = {
  preparing: ['pending', 'blocked', 'failed'],
  pending: ['verified', 'blocked', 'failed', 'preparing'],
  blocked: ['preparing'],
  failed: ['preparing'],
  verified: [],
};

/** The attempt table; an illegal transition is `409 conflict` code `payroll_funding_attempt_state_changed`. */
export const fundingAttemptTransitions: TransitionTable<FundingAttemptStatus> = transitionTable('payroll_funding_attempt', NEXT);

/** Bank rail each run currency is funded on (the payer sends a transfer on it with the run reference). */
export const FUNDING_BANK_RAIL: Readonly<Record<PayrollCurrency, BankRail>> = Object.freeze({
  USD: 'ach',
  EUR: 'sepa',
  GBP: 'faster_payments',
  BRL: 'pix',
  MXN: 'spei',
});

/** `funding_route_type` of a funding method (spec 2.7). */
export function fundingRouteType(method: 'fiat' | 'crypto'): 'bank' | 'crypto_deposit_to_wallet' {
  return method === 'fiat' ? 'bank' : 'crypto_deposit_to_wallet';
}

/**
 * USDC price (minor units, 6 decimals) of a run total of `totalMinor` in `currency` at the sandbox
 * reference rate, rounded up (the payer never sends short because of rounding); null when the
 * currency has no rate (the crypto object is then null, status `failed`, `failure_reason`
 * `fx_unconverted`).
 */
export function cryptoFundingPrice(totalMinor: bigint, currency: string): bigint | null {
  const rate = REFERENCE_RATES_USDC_PER_MAJOR[currency];
  if (rate === undefined) return null;
  return fiatToUsdcCeil(totalMinor, currencyDecimals(currency), rate);
}

/**
 * Refusals of `POST /payroll_runs/{id}/funding_instructions` (spec 4.4), in this order: a run
 * with no rows `409 conflict run_has_no_rows`; a `funding_method` other than the run's after money
 * was observed `409 conflict funding_method_locked` (`details.funding_method` the locked one).
 */
export function checkFundingRequest(
  input: { itemCount: number; method: 'fiat' | 'crypto'; moneyObserved: boolean },
  requested: 'fiat' | 'crypto' | undefined,
): void {
  if (input.itemCount === 0) throw conflict('run_has_no_rows', 'The run has no rows to fund.');
  if (requested !== undefined && requested !== input.method && input.moneyObserved) {
    throw conflict('funding_method_locked', `Money was already observed for this run; it stays funded by ${input.method}.`, {
      funding_method: input.method,
    });
  }
}

/** Normalized `failure_reason` codes of a funding attempt (spec 2.7: snake_case, never provider text). */
export const FUNDING_FAILURE_REASONS = Object.freeze([
  'fx_unconverted',
  'provider_error',
  'provider_funding_currency_unsupported',
  'verification_required',
  'crypto_funding_not_enabled',
  'account_restricted',
] as const);
export type FundingFailureReason = (typeof FUNDING_FAILURE_REASONS)[number];

/** A code of ours as is; anything else (provider text, unknown codes) becomes `provider_error`. */
export function normalizeFundingFailure(raw: string | null | undefined): FundingFailureReason | null {
  if (raw === null || raw === undefined) return null;
  return (FUNDING_FAILURE_REASONS as readonly string[]).includes(raw) ? (raw as FundingFailureReason) : 'provider_error';
}

/** Whether a failed attempt may be retried by a later POST: provider errors yes, gates and pricing of an unsupported currency no. */
export function isRetryableFailure(reason: FundingFailureReason | null): boolean {
  return reason === 'provider_error' || reason === 'fx_unconverted';
}
