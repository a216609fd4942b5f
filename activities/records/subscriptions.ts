/**
 * Subscription and invoice records (spec 4.2, part 6 `subscription.*`), inside the caller's
 * transaction: the locked reads, the views events carry, one named function per transition of the
 * tables of domain/subscriptions.ts (each moves the status with the fields and the event that move
 * with it), and the invoice's follow-up of its pay-in
 * (`moveInvoiceAfterPayment`, called by the payment activities in the transaction that moves the
 * payment). Shared records (activities/records/): the subscriptions area and the payments area
 * both write them; voiding an ended subscription's invoices with their live pay-ins is the
 * subscriptions area's (activities/subscriptions/commands.ts).
 */
import type { EntityManager } from 'typeorm';
import { DomainError } from '../../domain/errors';
import {
  inPlan,
  invoiceTransitions,
  periodAt,
  periodOf,
  subscriptionTransitions,
  type BillingPlan,
  type SubscriptionStatus,
} from '../../domain/subscriptions';
import { Payment, Subscription, SubscriptionInvoice } from '../../entities';
import { emitEvent, type RequestRef } from '../../lib/outbox';
import { scoped } from '../../lib/scoped';
import { chainAdapter } from '../../providers/chain';
import { invoiceView, subscriptionView } from '../../views/subscription';

/** The billing plan of `s`. */
export function planOf(subscription: Subscription): BillingPlan {
  return {
    anchorMs: subscription.billing_cycle_anchor.getTime(),
    interval: subscription.interval,
    intervalCount: subscription.interval_count,
    cycles: subscription.cycles,
  };
}

/** The subscription's wire view at `nowMs` (next invoice while billing; the period containing now). */
export function subscriptionWire(subscription: Subscription, nowMs = Date.now()): Record<string, unknown> {
  const plan = planOf(subscription);
  const billing = subscription.status === 'active' || subscription.status === 'past_due';
  const next = billing && inPlan(plan, subscription.next_period) ? periodOf(plan, subscription.next_period).startMs : null;
  const n = periodAt(plan, nowMs);
  const current =
    n >= 0 && inPlan(plan, n) && subscription.status !== 'cancelled' && subscription.status !== 'completed' ? periodOf(plan, n) : null;
  return subscriptionView(subscription, next, current);
}

/** Subscription `id` of the scope (or any, without a scope: a workflow's own), locked; 404 param `id` otherwise. */
export async function lockedSubscription(
  manager: EntityManager,
  id: string,
  scope?: { accountId: string; livemode: boolean },
): Promise<Subscription> {
  const missing = () => new DomainError('not_found', 'not_found', `No such subscription: ${id}.`, { param: 'id' });
  if (scope) return scoped(scope, manager).lock(Subscription, { id }, missing);
  const s = await manager.findOne(Subscription, { where: { id }, lock: { mode: 'pessimistic_write' } });
  if (!s) throw missing();
  return s;
}

/** Writes `subscription.<verb>` about `s`. */
export async function emitSubscriptionEvent(
  manager: EntityManager,
  subscription: Subscription,
  type: string,
  request: RequestRef | null,
): Promise<void> {
  await emitEvent(manager, {
    accountId: subscription.account_id,
    livemode: subscription.livemode,
    type,
    objectType: 'subscription',
    objectId: subscription.id,
    object: subscriptionWire(subscription),
    request,
  });
}

/** Writes `subscription.invoice_<verb>` about invoice `i` (its view, with its pay-in), related to its subscription and pay-in. */
export async function emitInvoiceEvent(
  manager: EntityManager,
  subscriptionInvoice: SubscriptionInvoice,
  payment: Payment | null,
  type: string,
  request: RequestRef | null,
): Promise<void> {
  await emitEvent(manager, {
    accountId: subscriptionInvoice.account_id,
    livemode: subscriptionInvoice.livemode,
    type,
    objectType: 'subscription_invoice',
    objectId: subscriptionInvoice.id,
    object: invoiceView(subscriptionInvoice, payment, chainAdapter()),
    relatedIds: [subscriptionInvoice.subscription_id, subscriptionInvoice.payment_id],
    request,
  });
}

/** Moves `s` to `to` through its table (stamping `ended_at` on a terminal status); no-op when unchanged. */
function moveSubscription(s: Subscription, to: SubscriptionStatus, atMs = Date.now()): boolean {
  if (s.status === to) return false;
  subscriptionTransitions.move(s, to);
  if (to === 'cancelled' || to === 'completed') s.ended_at = new Date(atMs);
  return true;
}

/** Active or past_due -> `paused`, stamping `paused_at`; event `subscription.paused`. */
export async function markSubscriptionPaused(
  manager: EntityManager,
  subscription: Subscription,
  request: RequestRef | null,
): Promise<Subscription> {
  moveSubscription(subscription, 'paused');
  subscription.paused_at = new Date();
  await manager.save(subscription);
  await emitSubscriptionEvent(manager, subscription, 'subscription.paused', request);
  return subscription;
}

/** `paused` -> `active`, clearing `paused_at`; event `subscription.resumed` (the workflow re-derives past_due). */
export async function markSubscriptionResumed(
  manager: EntityManager,
  subscription: Subscription,
  request: RequestRef | null,
): Promise<Subscription> {
  moveSubscription(subscription, 'active');
  subscription.paused_at = null;
  await manager.save(subscription);
  await emitSubscriptionEvent(manager, subscription, 'subscription.resumed', request);
  return subscription;
}

/** -> `cancelled`, stamping `cancelled_at` and `ended_at`; event `subscription.cancelled`. */
export async function markSubscriptionCancelled(
  manager: EntityManager,
  subscription: Subscription,
  request: RequestRef | null,
): Promise<Subscription> {
  moveSubscription(subscription, 'cancelled');
  subscription.cancelled_at = new Date();
  await manager.save(subscription);
  await emitSubscriptionEvent(manager, subscription, 'subscription.cancelled', request);
  return subscription;
}

/** `active` -> `past_due` (an invoice is overdue; no event of its own). */
export async function markSubscriptionPastDue(manager: EntityManager, subscription: Subscription): Promise<Subscription> {
  moveSubscription(subscription, 'past_due');
  return manager.save(subscription);
}

/** -> `completed` at `change.atMs` (`ended_at`): every cycle billed or skipped and nothing unpaid. */
export async function completeSubscription(
  manager: EntityManager,
  subscription: Subscription,
  change: { atMs: number },
): Promise<Subscription> {
  moveSubscription(subscription, 'completed', change.atMs);
  return manager.save(subscription);
}

/** Open or overdue -> `void`, stamping `voided_at` (no event). */
export async function voidInvoice(manager: EntityManager, inv: SubscriptionInvoice): Promise<SubscriptionInvoice> {
  invoiceTransitions.move(inv, 'void');
  inv.voided_at = new Date();
  return manager.save(inv);
}

/** `open` -> `overdue` at `change.atMs`; event `subscription.invoice_overdue` (with its pay-in `payment`). */
export async function markInvoiceOverdue(
  manager: EntityManager,
  inv: SubscriptionInvoice,
  change: { atMs: number; payment: Payment | null },
): Promise<SubscriptionInvoice> {
  invoiceTransitions.move(inv, 'overdue');
  inv.overdue_at = new Date(change.atMs);
  await manager.save(inv);
  await emitInvoiceEvent(manager, inv, change.payment, 'subscription.invoice_overdue', null);
  return inv;
}

/** True when `s` has an overdue invoice. */
async function hasOverdue(m: EntityManager, subscriptionId: string): Promise<boolean> {
  return (await m.count(SubscriptionInvoice, { where: { subscription_id: subscriptionId, status: 'overdue' } })) > 0;
}

/**
 * The invoice of a subscription pay-in follows its payment, in the payment's transaction: paid
 * (paid, overpaid, settled) -> invoice `paid` with `subscription.invoice_paid`, and a `past_due`
 * subscription with no other overdue invoice is `active` again; closed unpaid (expired, abandoned,
 * unmatched) -> invoice `void`. No-op for other payments.
 */
export async function moveInvoiceAfterPayment(manager: EntityManager, pay: Payment): Promise<void> {
  if (!pay.subscription_id) return;
  const inv = await manager.findOne(SubscriptionInvoice, { where: { payment_id: pay.id }, lock: { mode: 'pessimistic_write' } });
  if (!inv || (inv.status !== 'open' && inv.status !== 'overdue')) return;
  if (pay.status === 'paid' || pay.status === 'overpaid' || pay.status === 'settled') {
    invoiceTransitions.move(inv, 'paid');
    inv.paid_at = pay.paid_at ?? new Date();
    await manager.save(inv);
    await emitInvoiceEvent(manager, inv, pay, 'subscription.invoice_paid', null);
    const s = await lockedSubscription(manager, inv.subscription_id);
    if (s.status === 'past_due' && !(await hasOverdue(manager, s.id))) {
      moveSubscription(s, 'active');
      await manager.save(s);
    }
  } else if (pay.status === 'expired' || pay.status === 'abandoned' || pay.status === 'unmatched') {
    await voidInvoice(manager, inv);
  }
}

/** True once every period of the plan is billed or skipped and no invoice is left open or overdue. */
export async function planFinished(manager: EntityManager, subscription: Subscription): Promise<boolean> {
  if (subscription.cycles === null || subscription.next_period < subscription.cycles) return false;
  return (
    (await manager.count(SubscriptionInvoice, {
      where: [
        { subscription_id: subscription.id, status: 'open' },
        { subscription_id: subscription.id, status: 'overdue' },
      ],
    })) === 0
  );
}
