/**
 * Intake of the KYC provider's reports (providers/kyc.ts): the provider decided on a customer
 * (spec 2.8, 4.7); the report names our `cus_` id, and the customer's workflow reads the decision
 * (state, requirements due, rejection outcome, endorsements, associated persons) from the provider.
 *
 * | report                  | object (spec)         | notifier                  |
 * | decision on `cus_...`   | the customer (4.7)    | `notifyCustomerDecision`  |
 */
import { notifyCustomerDecision } from '../customers/signals';

/**
 * The KYC provider reports a decision on customer `customerId` (a real provider's callback, or the
 * simulator's `POST /sim/kyc/decisions` and the sandbox's hosted KYC page): wakes the customer's
 * workflow. Returns false when there is no such customer.
 */
export async function receiveKycDecision(customerId: string): Promise<boolean> {
  return notifyCustomerDecision(customerId);
}
