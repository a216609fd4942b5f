/**
 * Subscriptions billed in USDC (spec 4.2, part 6 `subscription.*`; fields designed in
 * docs/decisions/0050-subscriptions.md): the billing calendar, the subscription's and the invoice's
 * transition tables. A period `n` (0-based) starts at the anchor plus `n * interval_count`
 * intervals; months and years keep the anchor's day of month, clamped to the month's last day
 * (an anchor on Jan 31 bills Feb 28/29, Mar 31, Apr 30), and its time of day (UTC). The month
 * arithmetic is Luxon's, in its fixed UTC zone
 * (docs/decisions/0072-libraries-for-csv-iso-and-month-arithmetic.md): calendar fields, never the process's local zone.
 *
 * Pure: no I/O. Safe to import from workflows (Luxon in UTC needs neither `Intl` zones nor a
 * subclass of `Date`; tests/workflows/logic/domain-libraries.test.ts runs it in the sandbox).
 */
import { DateTime } from 'luxon';
import { transitionTable } from './transitions';

export const SUBSCRIPTION_INTERVALS = Object.freeze(['day', 'week', 'month', 'year'] as const);
export type SubscriptionInterval = (typeof SUBSCRIPTION_INTERVALS)[number];

/**
 * `active` (billing) -> `past_due` (an invoice went overdue) -> `active` (every overdue invoice
 * paid); `paused` (no invoice for a period that starts while paused) -> `active` (resume; billing
 * continues at the next period boundary, no proration); `cancelled` and `completed` (the last
 * cycle paid or void) are terminal.
 */
export const SUBSCRIPTION_STATUSES = Object.freeze(['active', 'past_due', 'paused', 'cancelled', 'completed'] as const);
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export const subscriptionTransitions = transitionTable<SubscriptionStatus>('subscription', {
  active: ['past_due', 'paused', 'cancelled', 'completed'],
  past_due: ['active', 'paused', 'cancelled', 'completed'],
  paused: ['active', 'past_due', 'cancelled'],
  cancelled: [],
  completed: [],
});

/** Invoice statuses: `open` -> `paid` | `overdue` | `void`; `overdue` -> `paid` | `void`. */
export const INVOICE_STATUSES = Object.freeze(['open', 'overdue', 'paid', 'void'] as const);
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

export const invoiceTransitions = transitionTable<InvoiceStatus>('subscription_invoice', {
  open: ['paid', 'overdue', 'void'],
  overdue: ['paid', 'void'],
  paid: [],
  void: [],
});

/** Days an unpaid invoice's pay-in stays open after its due date before the invoice is void. */
export const INVOICE_COLLECTION_DAYS = 30;

const DAY_MS = 86_400_000;

/**
 * `anchorMs` plus `k` intervals (ms since epoch, UTC). Days and weeks are fixed lengths; months and
 * years are calendar steps in UTC (Luxon `plus`): the anchor's day of month clamped to the target
 * month's last day, its time of day kept. tests/unit/subscriptions-calendar.test.ts pins the cases.
 */
export function addIntervals(anchorMs: number, interval: SubscriptionInterval, count: number): number {
  if (interval === 'day') return anchorMs + count * DAY_MS;
  if (interval === 'week') return anchorMs + count * 7 * DAY_MS;
  const anchor = DateTime.fromMillis(anchorMs, { zone: 'utc' });
  return (interval === 'month' ? anchor.plus({ months: count }) : anchor.plus({ years: count })).toMillis();
}

/** The billing calendar of a subscription. */
export interface BillingPlan {
  anchorMs: number;
  interval: SubscriptionInterval;
  intervalCount: number;
  cycles: number | null;
}

/** Start and end (ms) of period `n` (0-based). */
export function periodOf(billingPlan: BillingPlan, count: number): { startMs: number; endMs: number } {
  return {
    startMs: addIntervals(billingPlan.anchorMs, billingPlan.interval, count * billingPlan.intervalCount),
    endMs: addIntervals(billingPlan.anchorMs, billingPlan.interval, (count + 1) * billingPlan.intervalCount),
  };
}

/** True when period `n` is within the plan (`cycles` null: every period). */
export function inPlan(billingPlan: BillingPlan, count: number): boolean {
  return billingPlan.cycles === null || count < billingPlan.cycles;
}

/** The index of the period containing `atMs` (-1 before the anchor). */
export function periodAt(billingPlan: BillingPlan, atMs: number): number {
  if (atMs < billingPlan.anchorMs) return -1;
  // Estimate, then correct (months vary in length).
  const approx =
    { day: DAY_MS, week: 7 * DAY_MS, month: 28 * DAY_MS, year: 365 * DAY_MS }[billingPlan.interval] * billingPlan.intervalCount;
  let n = Math.max(0, Math.floor((atMs - billingPlan.anchorMs) / approx) - 1);
  while (periodOf(billingPlan, n + 1).startMs <= atMs) n += 1;
  while (n > 0 && periodOf(billingPlan, n).startMs > atMs) n -= 1;
  return n;
}

/** The due date of an invoice issued for a period starting at `startMs`: start + `graceDays` days. */
export function dueAt(startMs: number, graceDays: number): number {
  return startMs + graceDays * DAY_MS;
}

/** Why a subscription's workflow wakes next (each reason has its own `waiting_for` label). */
export type SubscriptionWakeReason = 'next_period' | 'invoice_due' | 'unpaid_invoice_poll' | 'idle';

/** Input of `nextSubscriptionWake`; times in epoch milliseconds of object time. */
export interface SubscriptionWakeInput {
  nowMs: number;
  paused: boolean;
  /** Start of the next period still in the plan; null when every period is billed or skipped. */
  nextPeriodStartMs: number | null;
  /** Due date of the earliest open invoice; null when none is open. */
  openInvoiceDueMs: number | null;
  /** True while an invoice is open or overdue (its payment is polled daily). */
  unpaid: boolean;
  /** Interval of that poll (ms). */
  pollMs: number;
  /** Longest sleep with nothing scheduled (ms). */
  idleMs: number;
}

/**
 * When the subscription's workflow looks again and why (spec 4.2): the earliest of the
 * next period's start, the open invoice's due date (it turns overdue then), the daily poll while an
 * invoice is unpaid (or once the plan is over, until it completes), else an idle look. The label is
 * what `waiting_for` answers: an operator reads the reason, never "the next period" for a poll.
 * Ties go to the more specific reason (period, then due date, then poll).
 */
export function nextSubscriptionWake(subscriptionWakeInput: SubscriptionWakeInput): {
  atMs: number;
  reason: SubscriptionWakeReason;
  waitingFor: string;
} {
  const iso = (ms: number) => new Date(ms).toISOString();
  const options: Array<{ atMs: number; reason: SubscriptionWakeReason }> = [];
  if (subscriptionWakeInput.nextPeriodStartMs !== null)
    options.push({ atMs: subscriptionWakeInput.nextPeriodStartMs, reason: 'next_period' });
  if (subscriptionWakeInput.openInvoiceDueMs !== null)
    options.push({ atMs: subscriptionWakeInput.openInvoiceDueMs, reason: 'invoice_due' });
  if (subscriptionWakeInput.unpaid || subscriptionWakeInput.nextPeriodStartMs === null)
    options.push({ atMs: subscriptionWakeInput.nowMs + subscriptionWakeInput.pollMs, reason: 'unpaid_invoice_poll' });
  options.push({ atMs: subscriptionWakeInput.nowMs + subscriptionWakeInput.idleMs, reason: 'idle' });
  const next = options.reduce((a, b) => (b.atMs < a.atMs ? b : a));
  if (subscriptionWakeInput.paused)
    return { ...next, waitingFor: `resume (paused; the period starting ${iso(next.atMs)} is skipped if still paused)` };
  const waitingFor = {
    next_period: `the next period at ${iso(next.atMs)}`,
    invoice_due: `payment of the open invoice, due ${iso(next.atMs)} (overdue after that)`,
    unpaid_invoice_poll: subscriptionWakeInput.unpaid
      ? `payment of the unpaid invoice (checked daily; next check ${iso(next.atMs)})`
      : `the end of the plan (checked daily; next check ${iso(next.atMs)})`,
    idle: `nothing scheduled (next look ${iso(next.atMs)})`,
  }[next.reason];
  return { ...next, waitingFor };
}
