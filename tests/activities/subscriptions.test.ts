/**
 * Activity tier, subscriptions (activities/subscriptions, `subscriptionWorkflowActivities.advanceSubscription`):
 * one billing turn at a chosen object time, in MockActivityEnvironment on real PostgreSQL. Proves
 * the invoice issue step (once per period, with its native pay-in and events, and the pay-in's
 * workflow started), the overdue step, skipping a period that starts while paused, completion,
 * and the decision the workflow sleeps on: the wake time and its `waiting_for` label.
 */
import crypto from 'node:crypto';
import { provisionAccount } from '../../activities/accounts/commands';
import { createEntry } from '../../activities/address-book/commands';
import { createClient } from '../../activities/catalog/commands';
import { subscriptionWorkflowActivities } from '../../activities/subscriptions/activities';
import { createSubscription, pauseSubscription } from '../../activities/subscriptions/commands';
import { INVOICE_COLLECTION_DAYS, periodOf, type BillingPlan } from '../../domain/subscriptions';
import { db } from '../../lib/db';
import { chainAdapter } from '../../providers/chain';
import {
  callsFor,
  count,
  describeWithDb,
  eventTypes,
  rejection,
  row,
  runActivity,
  testRequest,
  useActivityTier,
} from '../helpers/activity-env';
import { systemScope } from '../../activities/scope';

const { advanceSubscription } = subscriptionWorkflowActivities;
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** A monthly subscription of 49 USDC, `cycles` periods, 7 days' grace, anchored an hour from now. */
async function subscription(cycles = 3) {
  const creds = await provisionAccount();
  const ctx = systemScope(creds.account_id, true, testRequest);
  const cli = await createClient(ctx, { display_name: 'Subscriber', email: 'subscriber@example.com' });
  const entry = await createEntry(ctx, {
    kind: 'crypto',
    chain: chainAdapter().chain,
    address: `0x${crypto.randomBytes(20).toString('hex')}`,
  });
  const s = await createSubscription(ctx, {
    client_id: cli.id,
    amount: { amount: '49000000', currency: 'USDC', decimals: 6 },
    interval: 'month',
    cycles,
    grace_period_days: 7,
    billing_cycle_anchor: new Date(Date.now() + 3_600_000).toISOString(),
    settlement_destination_id: entry.id,
  });
  const plan: BillingPlan = { anchorMs: s.billing_cycle_anchor.getTime(), interval: 'month', intervalCount: 1, cycles };
  return { ctx, id: s.id, plan, start: (n: number) => periodOf(plan, n).startMs };
}

/** Event types about the subscription or naming it as related (its invoices' events), oldest first. */
const subscriptionEvents = async (id: string): Promise<string[]> =>
  (await db().query('SELECT type FROM events WHERE object_id = $1 OR $1 = ANY(related_object_ids) ORDER BY seq', [id])).map(
    (r: { type: string }) => r.type,
  );

const invoices = (id: string): Promise<Array<{ number: number; status: string; payment_id: string; due_at: Date }>> =>
  db().query('SELECT number, status, payment_id, due_at FROM subscription_invoices WHERE subscription_id = $1 ORDER BY number', [id]);

describeWithDb('subscription activities', () => {
  useActivityTier();

  test('before the first period: no invoice; the workflow sleeps until the period starts ("the next period at ...")', async () => {
    const s = await subscription();
    const now = s.start(0) - 3_600_000;
    expect(await runActivity(advanceSubscription, s.id, now)).toEqual({
      done: false,
      status: 'active',
      wakeAtMs: s.start(0),
      waitingFor: `the next period at ${iso(s.start(0))}`,
    });
    expect(await invoices(s.id)).toEqual([]);
  });

  test('the invoice issue step: at the period start invoice 1 and its pay-in (open until due + collection window) are written once with their events, the pay-in workflow starts; the next wake is the daily check for the payment', async () => {
    const s = await subscription();
    const at = s.start(0);
    const p = await runActivity(advanceSubscription, s.id, at);
    const due = at + 7 * DAY;
    expect(p).toEqual({
      done: false,
      status: 'active',
      wakeAtMs: at + DAY,
      waitingFor: `payment of the unpaid invoice (checked daily; next check ${iso(at + DAY)})`,
    });
    const [inv] = await invoices(s.id);
    expect(inv).toMatchObject({ number: 1, status: 'open', due_at: new Date(due) });
    const pay = await row('payments', inv.payment_id);
    expect(pay).toMatchObject({
      status: 'awaiting',
      subscription_id: s.id,
      amount_expected_minor: '49000000',
      fee_minor: '0',
      settlement: 'wallet',
    });
    expect(pay.expires_at.getTime()).toBe(due + INVOICE_COLLECTION_DAYS * DAY);
    expect(await eventTypes(inv.payment_id)).toEqual(['payment.created', 'payment.awaiting']);
    expect(callsFor(inv.payment_id)).toEqual(['start:-']);

    // A retried turn (same arguments) bills nothing more, and neither does a later look in the same period.
    expect(await runActivity(advanceSubscription, s.id, at)).toEqual(p);
    expect((await runActivity(advanceSubscription, s.id, at + 60_000)).wakeAtMs).toBe(at + 60_000 + DAY);
    expect(await count('subscription_invoices', 'subscription_id = $1', [s.id])).toBe(1);
    expect((await row('subscriptions', s.id)).next_period).toBe(1);
    expect((await subscriptionEvents(s.id)).filter((t) => t === 'subscription.invoice_issued')).toHaveLength(1);
  });

  test('within a day of the due date the wake is the due date; past it unpaid: invoice overdue (subscription.invoice_overdue), subscription past_due, polled daily', async () => {
    const s = await subscription();
    await runActivity(advanceSubscription, s.id, s.start(0));
    const due = s.start(0) + 7 * DAY;
    expect(await runActivity(advanceSubscription, s.id, due - 3_600_000)).toEqual({
      done: false,
      status: 'active',
      wakeAtMs: due,
      waitingFor: `payment of the open invoice, due ${iso(due)} (overdue after that)`,
    });
    const p = await runActivity(advanceSubscription, s.id, due);
    expect(p).toEqual({
      done: false,
      status: 'past_due',
      wakeAtMs: due + DAY,
      waitingFor: `payment of the unpaid invoice (checked daily; next check ${iso(due + DAY)})`,
    });
    const [inv] = await invoices(s.id);
    expect(inv.status).toBe('overdue');
    expect((await subscriptionEvents(s.id)).filter((t) => t === 'subscription.invoice_overdue')).toHaveLength(1);
  });

  test('a period that starts while paused is skipped (no invoice), and the workflow waits for the resume', async () => {
    const s = await subscription();
    await pauseSubscription(s.ctx, { id: s.id });
    const p = await runActivity(advanceSubscription, s.id, s.start(0) + 60_000);
    expect(p.status).toBe('paused');
    expect(p.waitingFor).toMatch(/^resume \(paused;/);
    expect(await invoices(s.id)).toEqual([]);
    expect(await row('subscriptions', s.id)).toMatchObject({ next_period: 1, skipped_periods: 1 });
  });

  test('every cycle billed and paid: completed, done', async () => {
    const s = await subscription(1);
    await runActivity(advanceSubscription, s.id, s.start(0));
    const [inv] = await invoices(s.id);
    await db().query(`UPDATE subscription_invoices SET status = 'paid', paid_at = now() WHERE subscription_id = $1`, [s.id]);
    expect(inv.number).toBe(1);
    expect(await runActivity(advanceSubscription, s.id, s.start(0) + DAY)).toEqual({
      done: true,
      status: 'completed',
      wakeAtMs: s.start(0) + DAY,
      waitingFor: 'nothing (completed)',
    });
    expect(await rejection(runActivity(advanceSubscription, 'sub_missing', 0))).toMatchObject({ type: 'NotFound', nonRetryable: true });
  });
});
