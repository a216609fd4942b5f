/**
 * Payout statuses and their transition tables (spec 2.6, 3, 4.3): the 11 payout statuses, the
 * terminal and pre-funds sets, the `status_group` filter of `GET /payouts`, the payout table
 * (`payoutTransitions`, illegal move `409 conflict` code `payout_state_changed`) and the attempt
 * table (`payoutAttemptTransitions`, `payout_attempt_state_changed`: the payout table without
 * `draft`, plus `creating`), and the source statuses of an SQL status update. Pure.
 */
import { transitionTable, type TransitionMap, type TransitionTable } from '../transitions';

/** Payout statuses (spec 2.6: 11 values). `paid` is not terminal. */
export const PAYOUT_STATUSES = Object.freeze([
  'draft',
  'awaiting_funds',
  'funds_received',
  'processing',
  'paid',
  'paid_with_shortfall',
  'settled',
  'failed',
  'returned',
  'expired',
  'cancelled',
] as const);
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** Terminal statuses: nothing moves after them (spec 2.6: `paid_with_shortfall` never becomes `settled`). */
export const PAYOUT_TERMINAL: readonly PayoutStatus[] = Object.freeze([
  'settled',
  'paid_with_shortfall',
  'failed',
  'returned',
  'expired',
  'cancelled',
] as PayoutStatus[]);

/** Pre-funds statuses: the ones `POST /payouts/{id}/cancel` may leave (spec 3). */
export const PAYOUT_PRE_FUNDS: readonly PayoutStatus[] = Object.freeze(['draft', 'awaiting_funds'] as PayoutStatus[]);

/** True for a terminal payout status. */
export function isPayoutTerminal(text: string): boolean {
  return (PAYOUT_TERMINAL as readonly string[]).includes(text);
}

/** `status_group` filter values of `GET /payouts` (spec 4.3). */
export const PAYOUT_STATUS_GROUPS = Object.freeze({
  /** draft, awaiting_funds, paid_with_shortfall, or any payout with needs_attention true. */
  needs_you: Object.freeze(['draft', 'awaiting_funds', 'paid_with_shortfall'] as PayoutStatus[]),
  in_progress: Object.freeze(['funds_received', 'processing', 'paid'] as PayoutStatus[]),
  done: Object.freeze(['settled', 'failed', 'returned', 'expired', 'cancelled'] as PayoutStatus[]),
});
export type PayoutStatusGroup = keyof typeof PAYOUT_STATUS_GROUPS;

/** Transitions of a payout, as (from -> allowed next) (spec 3; others: decision). */
const NEXT: TransitionMap<PayoutStatus> = {
  draft: ['awaiting_funds', 'cancelled'],
  awaiting_funds: ['funds_received', 'expired', 'cancelled', 'failed'],
  funds_received: ['processing', 'failed', 'returned'],
  processing: ['paid', 'failed', 'returned'],
  paid: ['settled', 'paid_with_shortfall', 'returned'],
  paid_with_shortfall: [],
  settled: [],
  failed: [],
  returned: [],
  expired: [],
  cancelled: [],
};

/**
 * The payout transition table (spec 3): every payout status write goes through
 * `payoutTransitions.assert(from, to)`; an illegal one is `409 conflict` code `payout_state_changed`.
 */
export const payoutTransitions: TransitionTable<PayoutStatus> = transitionTable('payout', NEXT, 'payout_state_changed');

/**
 * Asserts `from -> to` is a payout transition; throws `409 conflict` code `payout_state_changed`
 * (IllegalTransition) otherwise (state moved; re-read).
 */
export function assertPayoutTransition(from: string, to: PayoutStatus): void {
  payoutTransitions.assert(from, to);
}

/** True when `from -> to` is a payout transition. */
export function canTransition(from: string, to: PayoutStatus): boolean {
  return payoutTransitions.can(from, to);
}

/**
 * Payout attempt statuses: `creating` (no provider transfer yet), then the payout statuses the
 * attempt went through while it was the payout's current one.
 */
export const PAYOUT_ATTEMPT_STATUSES = Object.freeze([
  'creating',
  'awaiting_funds',
  'funds_received',
  'processing',
  'paid',
  'paid_with_shortfall',
  'settled',
  'failed',
  'returned',
  'expired',
  'cancelled',
] as const);
export type PayoutAttemptStatus = (typeof PAYOUT_ATTEMPT_STATUSES)[number];

/**
 * Transitions of a payout attempt: it follows its payout (the payout table without `draft`), and
 * `creating` ends when the transfer exists or the payout is cancelled, expires or fails.
 */
const { draft: _draft, ...NEXT_AFTER_DRAFT } = NEXT;
const ATTEMPT_NEXT = {
  creating: ['awaiting_funds', 'cancelled', 'expired', 'failed'],
  ...NEXT_AFTER_DRAFT,
} as TransitionMap<PayoutAttemptStatus>;

/** The payout attempt transition table; an illegal transition is `409 conflict` code `payout_attempt_state_changed`. */
export const payoutAttemptTransitions: TransitionTable<PayoutAttemptStatus> = transitionTable('payout_attempt', ATTEMPT_NEXT);

/** The attempt statuses that may move to `to` (the `WHERE status IN (...)` of an SQL status update). */
export function payoutAttemptSources(to: PayoutAttemptStatus): PayoutAttemptStatus[] {
  return payoutAttemptTransitions.statuses.filter((s) => payoutAttemptTransitions.can(s, to));
}

/** The payout statuses that may move to `to` (the `WHERE status IN (...)` of an SQL status update). */
export function payoutSources(to: PayoutStatus): PayoutStatus[] {
  return payoutTransitions.statuses.filter((s) => payoutTransitions.can(s, to));
}
