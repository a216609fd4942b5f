/**
 * Order records (spec 2.10, part 6 `order.*`): the locked read, the order's events, its named
 * transitions (placed -> `awaiting_payment`, unplaced -> `failed`) and applying a provider's report
 * (the target status computed by domain/orders.ts `orderAfterReport`), each through the order's
 * transition table with the fields and events that move with the status, inside the caller's
 * transaction. Also the provider identity the order's views carry.
 */
import type { EntityManager } from 'typeorm';
import { DomainError } from '../../domain/errors';
import { orderAfterReport, orderTransitions, type OrderStatus, type ProviderOrderReport } from '../../domain/orders';
import { Order } from '../../entities';
import { emitEvent, type RequestRef } from '../../lib/outbox';
import { scoped } from '../../lib/scoped';
import { quoteProvider } from '../../providers/quote-providers';
import { orderView } from '../../views/order';
import type { ProviderIdentity } from '../../views/quote';

/** Identity and limits of provider `id` for the views. */
export function providerIdentity(id: string): ProviderIdentity {
  const p = quoteProvider(id);
  return p ? { id: p.id, name: p.name, minUsdMicro: p.minUsdMicro, maxUsdMicro: p.maxUsdMicro } : { id, name: id, minUsdMicro: 0n, maxUsdMicro: 0n };
}

/** Order `id` of the scope (or any, without a scope: a workflow's own), locked for update; 404 param `id` otherwise. */
export async function lockedOrder(m: EntityManager, id: string, scope?: { accountId: string; livemode: boolean }): Promise<Order> {
  const missing = () => new DomainError('not_found', 'not_found', `No such order: ${id}.`, { param: 'id' });
  if (scope) return scoped(scope, m).lock(Order, { id }, missing);
  const o = await m.findOne(Order, { where: { id }, lock: { mode: 'pessimistic_write' } });
  if (!o) throw missing();
  return o;
}

/** Writes one `order.*` event about `o` (its wire view as `data.object`). */
export async function emitOrderEvent(m: EntityManager, o: Order, type: string, request: RequestRef | null): Promise<void> {
  await emitEvent(m, {
    accountId: o.account_id, livemode: o.livemode, type, objectType: 'order', objectId: o.id, object: orderView(o, providerIdentity(o.provider)),
    relatedIds: [o.quote_id, ...(o.payment_link_id ? [o.payment_link_id] : []), ...(o.payment_id ? [o.payment_id] : [])], request,
  });
}

/**
 * Moves `o` to `status` through the table, stamping the time of a terminal status, and writes
 * `order.status_changed` plus `order.failed` / `order.refunded` / `order.cancelled` when it lands
 * there. No-op when the status is unchanged.
 */
async function moveOrder(m: EntityManager, o: Order, status: OrderStatus, request: RequestRef | null): Promise<boolean> {
  if (o.status === status) return false;
  orderTransitions.move(o, status);
  const now = new Date();
  if (status === 'completed') o.completed_at = now;
  if (status === 'failed') o.failed_at = now;
  if (status === 'cancelled') o.cancelled_at = now;
  if (status === 'refunded') o.refunded_at = now;
  await m.save(o);
  await emitOrderEvent(m, o, 'order.status_changed', request);
  if (status === 'failed' || status === 'refunded' || status === 'cancelled') await emitOrderEvent(m, o, `order.${status}`, request);
  return true;
}

/** `pending` -> `awaiting_payment`: the provider placed the order (`order.status_changed`). */
export async function awaitOrderPayment(m: EntityManager, order: Order, request: RequestRef | null): Promise<boolean> {
  return moveOrder(m, order, 'awaiting_payment', request);
}

/** -> `failed` with `failureKind`, stamping `failed_at` (`order.status_changed`, `order.failed`). */
export async function failOrder(m: EntityManager, order: Order, change: { failureKind: Order['failure_kind'] }, request: RequestRef | null): Promise<boolean> {
  order.failure_kind = change.failureKind;
  return moveOrder(m, order, 'failed', request);
}

/**
 * Applies a provider report to `o` (domain orderAfterReport): money state, failure kind, the
 * provider's text as `return_reason` when money goes back (refund, or a failure after capture),
 * the delivery's tx hash on a crypto destination, then the status move with its events.
 */
export async function applyProviderReport(m: EntityManager, o: Order, r: ProviderOrderReport, request: RequestRef | null): Promise<Order> {
  const next = orderAfterReport({ status: o.status, moneyState: o.money_state }, r);
  let dirty = false;
  if (next.moneyState !== o.money_state) { o.money_state = next.moneyState; dirty = true; }
  if (next.failureKind && o.failure_kind !== next.failureKind) { o.failure_kind = next.failureKind; dirty = true; }
  if ((r.state === 'refunded' || (r.state === 'failed' && r.captured)) && r.providerReason && o.return_reason !== r.providerReason) {
    o.return_reason = r.providerReason; dirty = true;
  }
  if (r.deliveryTxHash && o.destination.kind === 'crypto' && o.destination.tx_hash !== r.deliveryTxHash) {
    o.destination = { ...o.destination, tx_hash: r.deliveryTxHash }; dirty = true;
  }
  // A report that skipped a step (captured and completed between two reads) moves through `processing`.
  if (next.status !== o.status && !orderTransitions.can(o.status, next.status) && orderTransitions.can(o.status, 'processing') && orderTransitions.can('processing', next.status)) {
    await moveOrder(m, o, 'processing', request);
  }
  if (next.status !== o.status && orderTransitions.can(o.status, next.status)) {
    await moveOrder(m, o, next.status, request);
  } else if (dirty) {
    await m.save(o);
  }
  return o;
}
