/**
 * What the order workflow calls (contracts/order.ts `OrderActivities`): `advanceOrder`, one turn of following the
 * provider's order (spec 2.10, 4.9). The worker registers `orderWorkflowActivities`.
 */
import type { OrderActivities, OrderProgress } from '../../contracts/order';
import { isOpenOrder, orderTransitions } from '../../domain/orders';
import { objectClock } from '../../domain/object-clock';
import { Order } from '../../entities';
import { db, transaction } from '../../lib/db';
import { orderProviders } from '../../providers/order-providers';
import { placeOrder } from './placement';
import { applyProviderReport, lockedOrder } from '../records/orders';

/** How often an open order is re-read when no provider report arrives. */
const POLL_MS = 10 * 60_000;

/** The unpaid order's deadline: its hosted checkout, else its self-custody deposit (ms), or null. */
function paymentDeadline(o: Order): number | null {
  if (o.money_state !== 'never_authorized' || !(o.status === 'awaiting_payment' || o.status === 'pending')) return null;
  if (o.checkout_expires_at) return o.checkout_expires_at.getTime();
  if (o.deposit_instructions) return Date.parse(o.deposit_instructions.expiresAt);
  return null;
}

/**
 * One turn (times in ms; `workflowNowMs`/`originMs` give the object's clock, domain/object-clock.ts):
 * places an order left `pending`, applies a late report to a completed or failed order (a refund), expires an unpaid order whose deadline passed (the provider
 * expires it: failed `payment_expired`), applies the provider's report, and answers whether the
 * order is done or when to look again (the deadline or the poll, in workflow time).
 */
export async function advanceOrder(orderId: string, workflowNowMs: number, originMs?: number): Promise<OrderProgress> {
  let o = await db().getRepository(Order).findOneByOrFail({ id: orderId });
  // Completed or failed orders may still be refunded by the provider (a later report restarts the workflow); these two never change.
  if (orderTransitions.terminal.includes(o.status))
    return { done: true, status: o.status, wakeAtMs: workflowNowMs, waitingFor: `nothing (${o.status})` };
  if (!o.provider_order_id && isOpenOrder(o.status)) o = await placeOrder(orderId, o.account_id, null);
  const clock = objectClock({ workflowNowMs, originMs, createdAtMs: o.created_at.getTime(), wallNowMs: Date.now() });
  const deadline = paymentDeadline(o);
  const provider = orderProviders();
  const report = deadline !== null && clock.now >= deadline ? await provider.expire(orderId) : await provider.report(orderId);
  if (report) o = await transaction(async (m) => applyProviderReport(m, await lockedOrder(m, orderId), report, null));
  if (!isOpenOrder(o.status)) return { done: true, status: o.status, wakeAtMs: workflowNowMs, waitingFor: `nothing (${o.status})` };
  const next = paymentDeadline(o);
  const wakeAtMs = Math.min(workflowNowMs + POLL_MS, next !== null ? clock.toWorkflowMs(next) : Number.MAX_SAFE_INTEGER);
  const waitingFor =
    o.status === 'processing'
      ? `the provider ${o.provider} to deliver (money ${o.money_state})`
      : `the payer to pay the ${o.provider} order (${o.payment_method}${next !== null ? ` until ${new Date(next).toISOString()}` : ''})`;
  return { done: false, status: o.status, wakeAtMs, waitingFor };
}

export const orderWorkflowActivities = { advanceOrder } satisfies OrderActivities;
