/**
 * Intake of the fiat rails' reports (providers/fiat-rails.ts): a rail payment changed state
 * (`RailPayment`: `state` submitted|paid|failed|returned, amounts in minor units, `client_reference`
 * naming what we sent it for). The report carries no object type: the client reference tells it.
 * Each object's workflow then re-reads the rail payment from the provider (the report only wakes it).
 *
 * | client reference                         | object (spec)                                      | notifier                      |
 * | `pay_...`, `refund:pay_...`              | a payment's bank settlement or refund (2.4)        | `notifyPaymentRailUpdate`     |
 * | `pri_...`, `prfr_...`                    | a payroll item's payment, a run's funds return (2.7, 4.4) | `notifyPayrollItemRailUpdate` |
 * | `ofr_...`                                | an off-ramp intent's withdrawal (4.5)              | `notifyOfframpIntentUpdate`   |
 * | anything else (`po_...`)                 | a payout's fiat leg (2.6, 4.3)                     | `notifyPayoutProviderUpdate`  |
 */
import { notifyPaymentRailUpdate } from '../payments/signals';
import { notifyPayoutProviderUpdate } from '../payouts/signals';
import { notifyPayrollItemRailUpdate } from '../payroll/signals';
import { notifyOfframpIntentUpdate } from '../offramp-intents/signals';
import type { RailPayment } from '../../providers/fiat-rails';

/**
 * The fiat rail reports that its payment `payment` changed (a real rail's status callback, or the
 * simulator's `POST /sim/providers/fiat_rails/payments/{id}`): wakes the workflow of the object its
 * `client_reference` names, trying a payment, a payroll item or run, an off-ramp intent, then a
 * payout. Returns false when no object took it (unknown reference).
 */
export async function receiveRailPaymentReport(payment: Pick<RailPayment, 'client_reference'>): Promise<boolean> {
  const ref = payment.client_reference;
  if (await notifyPaymentRailUpdate(ref)) return true;
  if (await notifyPayrollItemRailUpdate(ref)) return true;
  if (await notifyOfframpIntentUpdate(ref)) return true;
  return notifyPayoutProviderUpdate(ref);
}
