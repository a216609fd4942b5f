/**
 * What the simulator's provider routes do (api/routes/simulator.ts), as functions shared with the
 * sandbox's hosted provider pages (api/pages/sandbox/), so that a button on a page and a `/sim` call
 * move the outside world the same way: the KYC provider decides (spec 4.7), a person pays at, fails
 * at or abandons a credit checkout (spec 4.10), a quote provider acts on an order (spec 4.9). Each
 * plays the sandbox provider (providers/), then hands its report to activities/intake/, as a real
 * provider's callback would. Each throws the DomainError its `/sim` route answers (404
 * `not_found`, 409).
 */
import { receiveCheckoutNotification, type NotificationResult } from '../activities/intake/checkout';
import { receiveKycDecision } from '../activities/intake/kyc';
import { receiveOrderReport } from '../activities/intake/quote-provider';
import { DomainError } from '../domain/errors';
import type { OrderFailureKind, ProviderOrderReport } from '../domain/orders';
import { checkoutProvider, CheckoutTransitionError, type CheckoutNotification } from '../providers/checkout';
import { kycProvider, type KycRecord } from '../providers/kyc';
import { orderProviders } from '../providers/order-providers';

/** A KYC provider decision (the body of `POST /sim/kyc/decisions`): `customer_id` is our `cus_` id. */
export interface KycDecision {
  customer_id: string;
  state: string;
  requirements_due?: string[];
  rejection_outcome?: string;
  endorsements?: string[];
  associated_persons?: KycRecord['associated_persons'];
}

/**
 * `POST /sim/kyc/decisions`: the KYC provider records decision `d` (state, requirements, rejection
 * outcome, endorsements, persons; omitted lists are kept), then the customer's workflow is woken to
 * apply it. Throws 404 `not_found` (param `customer_id`) when the provider has no such customer.
 */
export async function decideKyc(kycDecision: KycDecision): Promise<void> {
  if (!(await kycProvider().setDecision(kycDecision.customer_id, kycDecision)))
    throw new DomainError('not_found', 'not_found', `No customer ${kycDecision.customer_id} at the KYC provider.`, {
      param: 'customer_id',
    });
  await receiveKycDecision(kycDecision.customer_id);
}

/**
 * `POST /sim/providers/checkout/{checkout_id}/complete|fail|expire`: the person pays (`complete`,
 * `amountMinor` in minor units, default the price), the payment fails (`fail`) or the session is
 * abandoned (`expire`) at the hosted checkout of credit checkout `checkoutId` (`cco_`); the provider
 * notifies the product, which grants credits once (activities/credits/commands.ts). Returns the
 * notification and its result. Throws 409 `checkout_session_closed` (a move out of a closed
 * session, or paying after `expires_at`), 404 `not_found` (param `checkout_id`).
 */
export async function actOnCheckout(
  checkoutId: string,
  action: 'complete' | 'fail' | 'expire',
  opts: { amountMinor?: bigint } = {},
): Promise<{ notification: CheckoutNotification; result: NotificationResult }> {
  let n;
  try {
    n = await checkoutProvider().simulate(checkoutId, action, opts);
  } catch (e) {
    if (e instanceof CheckoutTransitionError) throw new DomainError('conflict', 'checkout_session_closed', e.message);
    throw e;
  }
  if (!n) throw new DomainError('not_found', 'not_found', `No checkout session for ${checkoutId}.`, { param: 'checkout_id' });
  const result = await receiveCheckoutNotification(n);
  if (!result) throw new DomainError('not_found', 'not_found', `No checkout ${checkoutId}.`, { param: 'checkout_id' });
  return { notification: n, result };
}

/** What a quote provider can do to an order (`POST /sim/providers/orders/{id}` `action`). */
export type OrderProviderAction = 'authorize' | 'capture' | 'fail' | 'refund' | 'complete';

/**
 * `POST /sim/providers/orders/{id}`: the quote provider of order `orderId` (`ord_`) acts
 * (providers/order-providers.ts `act`), then the order's workflow is woken to read the report.
 * Returns the report. Throws 404 `not_found` (param `id`), 409 `sim_action_refused` when the action
 * does not apply to the provider's state.
 */
export async function actOnOrder(
  orderId: string,
  action: OrderProviderAction,
  opts: { failureKind?: OrderFailureKind; reason?: string } = {},
): Promise<ProviderOrderReport> {
  const report = await orderProviders().act(orderId, action, opts);
  if (report === null) throw new DomainError('not_found', 'not_found', `No provider order for ${orderId}.`, { param: 'id' });
  if (typeof report === 'string') throw new DomainError('conflict', 'sim_action_refused', report);
  await receiveOrderReport(orderId);
  return report;
}

/**
 * The person abandons the hosted checkout of order `orderId`: the provider expires the unpaid order
 * as it does when the checkout window closes (providers/order-providers.ts `expire`; the order then
 * fails `payment_expired`, a hold released), then the order's workflow is woken. Returns the report.
 * Throws 404 `not_found`, 409 `sim_action_refused` once money moved or the order is closed.
 */
export async function abandonOrderCheckout(orderId: string): Promise<ProviderOrderReport> {
  const before = await orderProviders().report(orderId);
  if (before === null) throw new DomainError('not_found', 'not_found', `No provider order for ${orderId}.`, { param: 'id' });
  if (before.state !== 'awaiting_payment' && before.state !== 'authorized')
    throw new DomainError('conflict', 'sim_action_refused', `Cannot abandon a provider order that is ${before.state}.`);
  const report = (await orderProviders().expire(orderId))!;
  if (report.state !== 'expired')
    throw new DomainError('conflict', 'sim_action_refused', `Cannot abandon a provider order that is ${report.state}.`);
  await receiveOrderReport(orderId);
  return report;
}
