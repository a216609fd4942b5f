/**
 * Intake of the quote providers' reports on orders (providers/order-providers.ts): an order's
 * provider moved it (authorized, captured, failed, refunded, completed, expired); the report
 * names our `ord_` id and the order's workflow reads the provider's report (`ProviderOrderReport`)
 * itself. Spec 2.10, 4.9.
 *
 * | report                  | object (spec)       | notifier             |
 * | change of `ord_...`     | the order (4.9)     | `notifyOrderUpdate`  |
 */
import { notifyOrderUpdate } from '../orders/signals';

/**
 * The quote provider reports a change of order `orderId` (a real provider's callback, or the
 * simulator's `POST /sim/providers/orders/{id}` and the sandbox's hosted order checkout): wakes the
 * order's workflow. Returns false when there is no such order.
 */
export async function receiveOrderReport(orderId: string): Promise<boolean> {
  return notifyOrderUpdate(orderId);
}
