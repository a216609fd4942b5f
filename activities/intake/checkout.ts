/**
 * Intake of the hosted checkout provider's notifications (providers/checkout.ts
 * `CheckoutNotification`: provider, session id, `clientReference` our `cco_` credit checkout id,
 * `outcome` paid|failed|expired, `paidAmountMinor` in minor units of `currency`, null unless paid).
 * Spec 4.10: credits are granted only when the provider confirms the payment.
 *
 * | report                      | object (spec)              | command                        |
 * | notification on `cco_...`   | the credit checkout (4.10) | `handleCheckoutNotification`   |
 */
import { handleCheckoutNotification, type NotificationResult } from '../credits/commands';
import type { CheckoutNotification } from '../../providers/checkout';

export type { NotificationResult };

/**
 * The checkout provider notifies `notification` (a real provider's webhook, or the simulator's
 * `POST /sim/providers/checkout/{checkout_id}/complete|fail|expire` and the sandbox's hosted
 * checkout page): applies it to its credit checkout, granting credits once. Returns the checkout
 * and whether credits were granted; null when the reference or session names no checkout (logged).
 */
export async function receiveCheckoutNotification(notification: CheckoutNotification): Promise<NotificationResult | null> {
  return handleCheckoutNotification(notification);
}
