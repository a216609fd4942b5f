/**
 * The merchant's refund of a paid payment link (spec 2.3 status `refunded`, shown as
 * "Returned to payer"; part 6 `payment_link.refunded`). Designed as Stripe refunds are: a full
 * refund of what the payer paid, with an optional `reason` (`duplicate`, `fraudulent`,
 * `requested_by_customer`), recorded at once (link and payment `refunded`) while the money goes
 * back asynchronously through the provider of the rail it came in on (the payment's workflow,
 * activities/payments/bank-activities.ts `submitRefund`).
 */
import { capabilityUnavailable, conflict } from '../../domain/errors';
import { PAID_PAYMENT_STATUSES, sqlStatusList } from '../../domain/payments';
import { isCryptoRail } from '../../domain/rails';
import { Payment, PaymentLink } from '../../entities';
import { transaction } from '../../lib/db';
import type { Scope } from '../scope';
import { signalPaymentProviderUpdate } from '../payments/signals';
import { lockLink } from './lookups';
import { refundPaymentLink } from '../records/payment-links';
import { refundPayment } from '../records/payments';

/**
 * `POST /payment_links/{id}/refund`: refunds `paid` or `settled` link `input.id` in full, for
 * `input.reason`. Errors: 404
 * (other account's link); 409 conflict `payment_link_not_refundable` (any other status, or no paid
 * payment); 409 conflict `settlement_in_progress` while the settlement payout to the merchant's
 * bank is in flight (retry once it settled); 409 capability_unavailable `refund_unavailable` for a
 * crypto payment already settled into the merchant's own non-custodial wallet (nothing in the API
 * can sign) or whose sender is unknown. Moves the paid payment to `refunded` (`refunded_at`,
 * `refund_reason`) and the link to `refunded` (`refunded_at`, `partial_payment` cleared), emits
 * `payment_link.refunded`, then signals the payment's workflow to send the money back.
 */
export async function refundLink(scope: Scope, input: { id: string; reason?: string | null }): Promise<PaymentLink> {
  const { link, payment } = await transaction(async (m) => {
    const link = await lockLink(m, scope, input.id);
    if (link.status !== 'paid' && link.status !== 'settled') {
      throw conflict('payment_link_not_refundable', `A ${link.status} payment link cannot be refunded; only a paid or settled one.`);
    }
    const pay = await m
      .createQueryBuilder(Payment, 'p')
      .setLock('pessimistic_write')
      .where('p.payment_link_id = :id', { id: link.id })
      .andWhere(`p.status IN (${sqlStatusList(PAID_PAYMENT_STATUSES)})`)
      .orderBy('p.paid_at', 'DESC')
      .getOne();
    if (!pay) throw conflict('payment_link_not_refundable', 'This payment link holds no paid payment to refund.');
    if (pay.settlement_rail_payment_id) {
      throw conflict('settlement_in_progress', 'The settlement payout to your bank is in flight; refund once it has settled.');
    }
    if (isCryptoRail(pay.payment_rail)) {
      if (pay.status === 'settled') {
        throw capabilityUnavailable(
          'refund_unavailable',
          'This payment settled into your own wallet; send the refund from the wallet yourself.',
        );
      }
      const senders: unknown[] = await m.query(`SELECT 1 FROM deposits WHERE payment_id = $1 AND from_address IS NOT NULL LIMIT 1`, [
        pay.id,
      ]);
      if (!senders.length)
        throw capabilityUnavailable('refund_unavailable', 'The sender of this payment is unknown; it cannot be refunded through the API.');
    }
    await refundPayment(m, pay, { reason: input.reason ?? null });
    const saved = await refundPaymentLink(m, link, { refundedAt: pay.refunded_at }, scope.request);
    return { link: saved, payment: pay };
  });
  await signalPaymentProviderUpdate(payment.id, payment.account_id);
  return link;
}
