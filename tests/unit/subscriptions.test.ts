/** The billing calendar and transition tables of subscriptions (domain/subscriptions.ts; spec 4.2, issue 16). */
import {
  addIntervals,
  dueAt,
  inPlan,
  invoiceTransitions,
  nextSubscriptionWake,
  periodAt,
  periodOf,
  subscriptionTransitions,
  type BillingPlan,
} from '../../domain/subscriptions';

const at = (s: string) => Date.parse(s);
const iso = (ms: number) => new Date(ms).toISOString();

test("months keep the anchor's day, clamped to the month's last day, and its time of day", () => {
  const jan31 = at('2027-01-31T09:30:00.000Z');
  expect(iso(addIntervals(jan31, 'month', 1))).toBe('2027-02-28T09:30:00.000Z');
  expect(iso(addIntervals(jan31, 'month', 2))).toBe('2027-03-31T09:30:00.000Z');
  expect(iso(addIntervals(jan31, 'month', 3))).toBe('2027-04-30T09:30:00.000Z');
  expect(iso(addIntervals(at('2028-01-31T00:00:00.000Z'), 'month', 1))).toBe('2028-02-29T00:00:00.000Z');
  expect(iso(addIntervals(at('2028-02-29T12:00:00.000Z'), 'year', 1))).toBe('2029-02-28T12:00:00.000Z');
  expect(iso(addIntervals(at('2027-11-15T00:00:00.000Z'), 'month', 14))).toBe('2029-01-15T00:00:00.000Z');
  expect(iso(addIntervals(at('2027-01-01T00:00:00.000Z'), 'week', 2))).toBe('2027-01-15T00:00:00.000Z');
  expect(iso(addIntervals(at('2027-01-01T00:00:00.000Z'), 'day', 45))).toBe('2027-02-15T00:00:00.000Z');
});

test("periods, the period containing an instant, the plan's cycles and the due date", () => {
  const plan: BillingPlan = { anchorMs: at('2027-01-31T00:00:00.000Z'), interval: 'month', intervalCount: 3, cycles: 4 };
  expect(periodOf(plan, 1)).toEqual({ startMs: at('2027-04-30T00:00:00.000Z'), endMs: at('2027-07-31T00:00:00.000Z') });
  expect(periodAt(plan, at('2027-01-30T00:00:00.000Z'))).toBe(-1);
  expect(periodAt(plan, at('2027-01-31T00:00:00.000Z'))).toBe(0);
  expect(periodAt(plan, at('2027-04-29T23:59:59.999Z'))).toBe(0);
  expect(periodAt(plan, at('2027-04-30T00:00:00.000Z'))).toBe(1);
  expect(periodAt(plan, at('2029-06-01T00:00:00.000Z'))).toBe(9);
  expect(inPlan(plan, 3)).toBe(true);
  expect(inPlan(plan, 4)).toBe(false);
  expect(inPlan({ ...plan, cycles: null }, 10_000)).toBe(true);
  expect(dueAt(plan.anchorMs, 7) - plan.anchorMs).toBe(7 * 86_400_000);
});

test('transition tables', () => {
  expect(subscriptionTransitions.terminal).toEqual(['cancelled', 'completed']);
  expect(subscriptionTransitions.can('paused', 'completed')).toBe(false);
  expect(subscriptionTransitions.can('past_due', 'active')).toBe(true);
  expect(() => subscriptionTransitions.assert('cancelled', 'active')).toThrow();
  expect(invoiceTransitions.can('overdue', 'paid')).toBe(true);
  expect(invoiceTransitions.can('paid', 'void')).toBe(false);
});

describe('nextSubscriptionWake: one label per reason for waking (issue 24)', () => {
  const now = Date.parse('2026-11-26T00:00:00Z');
  const DAY = 86_400_000;
  const base = { nowMs: now, paused: false, pollMs: DAY, idleMs: 400 * DAY };

  test('an unpaid first invoice: the daily poll is named as such, never "the next period"', () => {
    const w = nextSubscriptionWake({
      ...base,
      nextPeriodStartMs: Date.parse('2026-12-26T00:00:00Z'),
      openInvoiceDueMs: now + 7 * DAY,
      unpaid: true,
    });
    expect(w).toMatchObject({ reason: 'unpaid_invoice_poll', atMs: now + DAY });
    expect(w.waitingFor).toBe('payment of the unpaid invoice (checked daily; next check 2026-11-27T00:00:00.000Z)');
  });
  test('the open invoice falls due before the next poll', () => {
    const w = nextSubscriptionWake({ ...base, nextPeriodStartMs: now + 30 * DAY, openInvoiceDueMs: now + 3_600_000, unpaid: true });
    expect(w).toMatchObject({ reason: 'invoice_due', atMs: now + 3_600_000 });
    expect(w.waitingFor).toMatch(/^payment of the open invoice, due 2026-11-26T01:00:00.000Z/);
  });
  test('everything paid: the next period', () => {
    const w = nextSubscriptionWake({ ...base, nextPeriodStartMs: now + 30 * DAY, openInvoiceDueMs: null, unpaid: false });
    expect(w).toMatchObject({ reason: 'next_period', waitingFor: `the next period at ${new Date(now + 30 * DAY).toISOString()}` });
  });
  test('the plan is over with nothing unpaid: a daily look until it completes; paused keeps its own label', () => {
    expect(nextSubscriptionWake({ ...base, nextPeriodStartMs: null, openInvoiceDueMs: null, unpaid: false }).waitingFor).toMatch(
      /^the end of the plan/,
    );
    expect(
      nextSubscriptionWake({ ...base, paused: true, nextPeriodStartMs: now + DAY / 2, openInvoiceDueMs: null, unpaid: false }).waitingFor,
    ).toMatch(/^resume \(paused/);
  });
});
