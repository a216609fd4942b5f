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
  return p
    ? { id: p.id, name: p.name, minUsdMicro: p.minUsdMicro, maxUsdMicro: p.maxUsdMicro }
    : { id, name: id, minUsdMicro: 0n, maxUsdMicro: 0n };
}

/** Order `id` of the scope (or any, without a scope: a workflow's own), locked for update; 404 param `id` otherwise. */
export async function lockedOrder(manager: EntityManager, id: string, scope?: { accountId: string; livemode: boolean }): Promise<Order> {
  const missing = () => new DomainError('not_found', 'not_found', `No such order: ${id}.`, { param: 'id' });
  if (scope) return scoped(scope, manager).lock(Order, { id }, missing);
  const o = await manager.findOne(Order, { where: { id }, lock: { mode: 'pessimistic_write' } });
  if (!o) throw missing();
  return o;
}

/** Writes one `order.*` event about `o` (its wire view as `data.object`). */
export async function emitOrderEvent(manager: EntityManager, order: Order, type: string, request: RequestRef | null): Promise<void> {
  await emitEvent(manager, {
    accountId: order.account_id,
    livemode: order.livemode,
    type,
    objectType: 'order',
    objectId: order.id,
    object: orderView(order, providerIdentity(order.provider)),
    relatedIds: [
      order.quote_id,
      ...(order.payment_link_id ? [order.payment_link_id] : []),
      ...(order.payment_id ? [order.payment_id] : []),
    ],
    request,
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
export async function awaitOrderPayment(manager: EntityManager, order: Order, request: RequestRef | null): Promise<boolean> {
  return moveOrder(manager, order, 'awaiting_payment', request);
}

/** -> `failed` with `failureKind`, stamping `failed_at` (`order.status_changed`, `order.failed`). */
export async function failOrder(
  manager: EntityManager,
  order: Order,
  change: { failureKind: Order['failure_kind'] },
  request: RequestRef | null,
): Promise<boolean> {
  order.failure_kind = change.failureKind;
  return moveOrder(manager, order, 'failed', request);
}

/**
 * Applies a provider report to `o` (domain orderAfterReport): money state, failure kind, the
 * provider's text as `return_reason` when money goes back (refund, or a failure after capture),
 * the delivery's tx hash on a crypto destination, then the status move with its events.
 */
export async function applyProviderReport(
  manager: EntityManager,
  order: Order,
  providerOrderReport: ProviderOrderReport,
  request: RequestRef | null,
): Promise<Order> {
  const next = orderAfterReport({ status: order.status, moneyState: order.money_state }, providerOrderReport);
  let dirty = false;
  if (next.moneyState !== order.money_state) {
    order.money_state = next.moneyState;
    dirty = true;
  }
  if (next.failureKind && order.failure_kind !== next.failureKind) {
    order.failure_kind = next.failureKind;
    dirty = true;
  }
  if (
    (providerOrderReport.state === 'refunded' || (providerOrderReport.state === 'failed' && providerOrderReport.captured)) &&
    providerOrderReport.providerReason &&
    order.return_reason !== providerOrderReport.providerReason
  ) {
    order.return_reason = providerOrderReport.providerReason;
    dirty = true;
  }
  if (
    providerOrderReport.deliveryTxHash &&
    order.destination.kind === 'crypto' &&
    order.destination.tx_hash !== providerOrderReport.deliveryTxHash
  ) {
    order.destination = { ...order.destination, tx_hash: providerOrderReport.deliveryTxHash };
    dirty = true;
  }
  // A report that skipped a step (captured and completed between two reads) moves through `processing`.
  if (
    next.status !== order.status &&
    !orderTransitions.can(order.status, next.status) &&
    orderTransitions.can(order.status, 'processing') &&
    orderTransitions.can('processing', next.status)
  ) {
    await moveOrder(manager, order, 'processing', request);
  }
  if (next.status !== order.status && orderTransitions.can(order.status, next.status)) {
    await moveOrder(manager, order, next.status, request);
  } else if (dirty) {
    await manager.save(order);
  }
  return order;
}
