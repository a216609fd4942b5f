/**
 * Screening credits (spec 2.11 "Credits", 4.10, 8 "Credit packs"): the owner's personal balance
 * `free_remaining` + `paid_balance` (whole checks), the net counter `total_checks` (checks spent,
 * decremented on refund), the ledger row types, the packs and their prices, and the transition
 * tables of a credit checkout and of the provider's hosted checkout session.
 *
 * Every `apply*` function takes a balance and returns the next balance plus the ledger row type;
 * balances never go negative. Prices are bigint minor units of USD.
 *
 * Pure: no I/O.
 */
import { transitionTable } from './transitions';

/** Packs a checkout may sell (spec 8). */
export const CREDIT_PACKS = [5, 10, 20] as const;
export type CreditPack = (typeof CREDIT_PACKS)[number];

/** Price of each pack in USD minor units (cents): 5.00 USD a check, 10% off 10, 20% off 20. */
export const PACK_PRICE_MINOR: Readonly<Record<CreditPack, bigint>> = Object.freeze({ 5: 2500n, 10: 4500n, 20: 8000n });
export const PACK_CURRENCY = 'USD';

/** Free checks every person starts with (granted once, when the balance is first read or used). */
export const FREE_CHECKS_ALLOWANCE = 10;

/** Ledger row types (spec 2.11). */
export const CREDIT_EVENT_TYPES = [
  'consume_free',
  'consume_paid',
  'cache_hit',
  'insufficient',
  'purchase',
  'refund',
  'admin_grant',
] as const;
export type CreditEventType = (typeof CREDIT_EVENT_TYPES)[number];

export interface CreditBalance {
  free_remaining: number;
  paid_balance: number;
  total_checks: number;
}

export interface LedgerStep {
  type: CreditEventType;
  /** Change of the spendable balance (free + paid): +N purchase/grant/refund, -1 consume, 0 otherwise. */
  credits: number;
  next: CreditBalance;
}

function assertCount(n: number, what: string): void {
  if (!Number.isInteger(n) || n <= 0) throw new RangeError(`${what} must be a positive integer`);
}

/** True when `n` is a pack a checkout may sell. */
export function isCreditPack(value: unknown): value is CreditPack {
  return typeof value === 'number' && (CREDIT_PACKS as readonly number[]).includes(value);
}

/** A purchase of `credits` paid checks (the provider confirmed the payment). */
export function applyPurchase(creditBalance: CreditBalance, credits: number): LedgerStep {
  assertCount(credits, 'credits');
  return { type: 'purchase', credits, next: { ...creditBalance, paid_balance: creditBalance.paid_balance + credits } };
}

/** An operator grant of `credits` paid checks. */
export function applyAdminGrant(creditBalance: CreditBalance, credits: number): LedgerStep {
  assertCount(credits, 'credits');
  return { type: 'admin_grant', credits, next: { ...creditBalance, paid_balance: creditBalance.paid_balance + credits } };
}

/**
 * One check: a cached result is free (`cache_hit`); else the free allowance is spent first
 * (`consume_free`), then paid credits (`consume_paid`); with neither, `insufficient` (nothing
 * changes; the caller refuses with `402 quota_exhausted`).
 */
export function applyConsume(creditBalance: CreditBalance, opts: { cached: boolean }): LedgerStep {
  if (opts.cached) return { type: 'cache_hit', credits: 0, next: { ...creditBalance } };
  if (creditBalance.free_remaining > 0)
    return {
      type: 'consume_free',
      credits: -1,
      next: { ...creditBalance, free_remaining: creditBalance.free_remaining - 1, total_checks: creditBalance.total_checks + 1 },
    };
  if (creditBalance.paid_balance > 0)
    return {
      type: 'consume_paid',
      credits: -1,
      next: { ...creditBalance, paid_balance: creditBalance.paid_balance - 1, total_checks: creditBalance.total_checks + 1 },
    };
  return { type: 'insufficient', credits: 0, next: { ...creditBalance } };
}

/** Refund of one consumed check to the pool it came from; `total_checks` is decremented (net counter). */
export function applyRefund(creditBalance: CreditBalance, consumed: 'consume_free' | 'consume_paid'): LedgerStep {
  const next =
    consumed === 'consume_free'
      ? { ...creditBalance, free_remaining: creditBalance.free_remaining + 1 }
      : { ...creditBalance, paid_balance: creditBalance.paid_balance + 1 };
  next.total_checks = Math.max(0, creditBalance.total_checks - 1);
  return { type: 'refund', credits: 1, next };
}

/** Status of a credit checkout (spec 4.10 `POST /credit_checkouts`). */
export const CREDIT_CHECKOUT_STATUSES = Object.freeze(['open', 'completed', 'failed', 'expired'] as const);
export type CreditCheckoutStatus = (typeof CREDIT_CHECKOUT_STATUSES)[number];

/**
 * Transition table of a credit checkout: `open` (the hosted session may be paid) -> `completed`
 * (the provider confirmed the payment: credits granted), `failed` (the session could not open,
 * the payment failed, or the provider captured a wrong amount) or `expired` (abandoned). Money the
 * provider captures is honoured after a failure or expiry: `failed` and `expired` -> `completed`;
 * a wrong amount captured on an expired session: `expired` -> `failed`. `completed` is final.
 * Open set: `open`. A refused move answers `409 checkout_session_closed` (only provider
 * notifications move a checkout; no code of its own).
 */
export const creditCheckoutTransitions = transitionTable<CreditCheckoutStatus>(
  'credit_checkout',
  {
    open: ['completed', 'failed', 'expired'],
    completed: [],
    failed: ['completed'],
    expired: ['completed', 'failed'],
  },
  'checkout_session_closed',
  { open: ['open'] },
);

/** Status of a hosted checkout session at the (sandbox) checkout provider. */
export const CHECKOUT_SESSION_STATUSES = Object.freeze(['open', 'paid', 'failed', 'expired'] as const);
export type CheckoutSessionStatus = (typeof CHECKOUT_SESSION_STATUSES)[number];

/**
 * Transition table of a hosted checkout session (providers/checkout.ts, its own sandbox table):
 * `open` -> `paid` (before `expires_at`), `failed` or `expired`; every other status is final. A
 * refused move answers `409 checkout_session_closed`.
 */
export const checkoutSessionTransitions = transitionTable<CheckoutSessionStatus>(
  'checkout_session',
  {
    open: ['paid', 'failed', 'expired'],
    paid: [],
    failed: [],
    expired: [],
  },
  'checkout_session_closed',
);
