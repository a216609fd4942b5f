/**
 * What the subscription workflow calls (contracts/subscription.ts `SubscriptionActivities`): `advanceSubscription`, one turn
 * of billing at the object's time (spec 4.2, part 6 `subscription.*`; domain/object-clock.ts). The
 * worker registers `subscriptionWorkflowActivities`.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { SubscriptionActivities, SubscriptionProgress } from '../../contracts/subscription';
import { objectClock } from '../../domain/object-clock';
import { sqlStatusList } from '../../domain/payments';
import { dueAt, INVOICE_COLLECTION_DAYS, inPlan, invoiceTransitions, nextSubscriptionWake, periodOf } from '../../domain/subscriptions';
import { Payment, Subscription, SubscriptionInvoice } from '../../entities';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { emitPaymentEvents } from '../records/payments';
import { newPaymentRow } from '../payments/new-payment';
import { startPaymentWorkflow } from '../payments/signals';
import {
  completeSubscription,
  emitInvoiceEvent,
  lockedSubscription,
  markInvoiceOverdue,
  markSubscriptionPastDue,
  planFinished,
  planOf,
} from '../records/subscriptions';

/** How often a subscription with unpaid invoices (or a last cycle to close) looks again without a timer of its own. */
const POLL_MS = 24 * 3_600_000;
const DAY_MS = 86_400_000;

/**
 * Issues the invoice of period `n` of `s` at object time `nowMs`, once (unique per subscription and
 * number): its pay-in (native rail, the subscription's amount in the chain's stablecoin, no payer
 * fee, settled to the subscription's wallet, open until the due date plus the collection window),
 * `payment.created`, `payment.awaiting`, `subscription.invoice_issued`. Returns the new payment id,
 * or null when the period was already billed.
 */
async function issueInvoice(subscriptionId: string, n: number, nowMs: number): Promise<string | null> {
  return transaction(async (m) => {
    const s = await lockedSubscription(m, subscriptionId);
    if (s.next_period !== n) return null;
    const period = periodOf(planOf(s), n);
    const due = dueAt(period.startMs, s.grace_period_days);
    const payId = newId('pay_');
    const pay = newPaymentRow(m, {
      id: payId,
      of: { subscription: s },
      rail: { kind: 'crypto_native' },
      due: { invoice: s.amount_minor, fee: '0', total: s.amount_minor },
      settlement: 'wallet',
      settlementAddress: s.settlement_address,
      payerEmail: null,
      payerType: null,
      expiresAt: new Date(due + INVOICE_COLLECTION_DAYS * DAY_MS),
    });
    await m.save(pay);
    const inv = m.create(SubscriptionInvoice, {
      id: newId('sin_'),
      subscription_id: s.id,
      account_id: s.account_id,
      livemode: s.livemode,
      number: n + 1,
      period_start: new Date(period.startMs),
      period_end: new Date(period.endMs),
      amount_minor: s.amount_minor,
      currency: s.currency,
      decimals: s.decimals,
      status: 'open',
      payment_id: payId,
      issued_at: new Date(nowMs),
      due_at: new Date(due),
      overdue_at: null,
      paid_at: null,
      voided_at: null,
    });
    await m.save(inv);
    s.next_period = n + 1;
    await m.save(s);
    await emitPaymentEvents(m, pay, ['payment.created', 'payment.awaiting'], null);
    await emitInvoiceEvent(m, inv, pay, 'subscription.invoice_issued', null);
    return payId;
  });
}

/** Marks the invoices of `subscriptionId` due by `nowMs` overdue (`subscription.invoice_overdue`); an active subscription becomes past_due. */
async function markOverdue(subscriptionId: string, nowMs: number): Promise<void> {
  await transaction(async (m) => {
    const s = await lockedSubscription(m, subscriptionId);
    const due = await m
      .createQueryBuilder(SubscriptionInvoice, 'i')
      .setLock('pessimistic_write')
      .where('i.subscription_id = :id', { id: s.id })
      .andWhere(`i.status = 'open'`)
      .andWhere('i.due_at <= :now', { now: new Date(nowMs) })
      .getMany();
    for (const inv of due) {
      await markInvoiceOverdue(m, inv, { atMs: nowMs, payment: await m.findOneBy(Payment, { id: inv.payment_id }) });
    }
    const anyOverdue = due.length > 0 || (await m.count(SubscriptionInvoice, { where: { subscription_id: s.id, status: 'overdue' } })) > 0;
    if (anyOverdue && s.status === 'active') {
      await markSubscriptionPastDue(m, s);
    }
  });
}

/**
 * One turn at object time (`workflowNowMs`/`originMs`, domain/object-clock.ts): marks due invoices
 * overdue; for each period that has started, issues its invoice (active or past_due) or skips it
 * (paused: no invoice for a period that starts while paused); completes the subscription once every
 * cycle is billed or skipped and nothing is left unpaid. Answers when to look again (the next
 * period, the next due date, or the daily poll while an invoice is unpaid: domain nextSubscriptionWake, each with its own label).
 */
export async function advanceSubscription(subscriptionId: string, workflowNowMs: number, originMs?: number): Promise<SubscriptionProgress> {
  let s = await db().getRepository(Subscription).findOneBy({ id: subscriptionId });
  if (!s) throw ApplicationFailure.nonRetryable(`subscription ${subscriptionId} not found`, 'NotFound');
  if (s.status === 'cancelled' || s.status === 'completed')
    return { done: true, status: s.status, wakeAtMs: workflowNowMs, waitingFor: `nothing (${s.status})` };
  const clock = objectClock({ workflowNowMs, originMs, createdAtMs: s.created_at.getTime(), wallNowMs: Date.now() });
  const now = clock.now;
  await markOverdue(subscriptionId, now);
  const plan = planOf(s);
  for (;;) {
    s = await db().getRepository(Subscription).findOneByOrFail({ id: subscriptionId });
    if (!inPlan(plan, s.next_period) || periodOf(plan, s.next_period).startMs > now) break;
    if (s.status === 'paused') {
      const n = s.next_period;
      await db().query(
        'UPDATE subscriptions SET next_period = next_period + 1, skipped_periods = skipped_periods + 1, updated_at = now() WHERE id = $1 AND next_period = $2',
        [subscriptionId, n],
      );
      continue;
    }
    const payId = await issueInvoice(subscriptionId, s.next_period, now);
    if (payId) await startPaymentWorkflow(payId, s.account_id, 'crypto_native');
  }
  const finished = await transaction(async (m) => {
    const locked = await lockedSubscription(m, subscriptionId);
    if (locked.status === 'paused' || !(await planFinished(m, locked))) return locked;
    return completeSubscription(m, locked, { atMs: now });
  });
  if (finished.status === 'completed')
    return { done: true, status: 'completed', wakeAtMs: workflowNowMs, waitingFor: 'nothing (completed)' };
  const open: Array<{ due_at: Date }> = await db().query(
    `SELECT due_at FROM subscription_invoices WHERE subscription_id = $1 AND status = 'open' ORDER BY due_at LIMIT 1`,
    [subscriptionId],
  );
  const unpaid =
    (
      await db().query(
        `SELECT 1 FROM subscription_invoices WHERE subscription_id = $1 AND status IN (${sqlStatusList(invoiceTransitions.open)}) LIMIT 1`,
        [subscriptionId],
      )
    ).length > 0;
  const wake = nextSubscriptionWake({
    nowMs: now,
    paused: finished.status === 'paused',
    unpaid,
    pollMs: POLL_MS,
    idleMs: 400 * DAY_MS,
    nextPeriodStartMs: inPlan(plan, finished.next_period) ? periodOf(plan, finished.next_period).startMs : null,
    openInvoiceDueMs: open[0] ? open[0].due_at.getTime() : null,
  });
  return { done: false, status: finished.status, wakeAtMs: clock.toWorkflowMs(wake.atMs), waitingFor: wake.waitingFor };
}

export const subscriptionWorkflowActivities = { advanceSubscription } satisfies SubscriptionActivities;
