/**
 * Shared helpers of the payment area (spec 2.4, part 6): the payment row as a domain ledger, its
 * outbox events, and the watch state the payment workflow plans with. Amounts are bigint minor
 * units of the settlement stablecoin (USDC, 6 decimals).
 */
import type { EntityManager } from 'typeorm';
import type { PaymentState } from '../../contracts/payment';
import type { PaymentStatus } from '../../domain/verdicts';
import type { Payment, PaymentLink } from '../../entities';
import { db } from '../../lib/db';
import type { RequestRef } from '../../lib/outbox';
import { emitPaymentEvents } from '../records/payments';
import { recordPaymentLinkAttempt } from '../records/payment-links';
import { startPaymentWorkflowAfterCommit } from './signals';

/** The payment's events, for the areas that still import them from here. */

/** Statuses in which the payment's watcher has nothing left to wait for. */
const WATCH_DONE: PaymentStatus[] = ['settled', 'unmatched', 'expired', 'abandoned', 'refunded'];

/** The watch state of `p` (contracts/payment.ts `PaymentState`; reads its pending deposits, bank credits and unapplied returns). */
export async function stateOf(payment: Payment): Promise<PaymentState> {
  const pending: Array<{ id: string }> = await db().query(
    `SELECT id FROM (
       SELECT id, observed_at FROM deposits WHERE payment_id = $1 AND effect = 'pending'
       UNION ALL SELECT id, observed_at FROM bank_credits WHERE payment_id = $1 AND effect = 'pending'
       UNION ALL SELECT 'return:' || id, returned_at FROM bank_credits WHERE payment_id = $1 AND returned_at IS NOT NULL AND NOT return_applied
     ) x ORDER BY observed_at, id`,
    [payment.id],
  );
  const status = payment.status;
  const paidish = status === 'paid' || status === 'overpaid';
  const settlementPending = payment.settlement === 'bank' && payment.settlement_rail_payment_id !== null;
  const needsSettlement = paidish && (payment.settlement === 'wallet' || (payment.settlement === 'bank' && !settlementPending));
  const needsRefund = status === 'refunded' && payment.refund_rail_payment_id === null;
  const refundPending = status === 'refunded' && payment.refund_rail_payment_id !== null && payment.refund_completed_at === null;
  return {
    status,
    expiresAt: payment.expires_at.toISOString(),
    createdAt: payment.created_at.toISOString(),
    readAtMs: Date.now(),
    pendingDepositIds: pending.map((r) => r.id),
    needsSettlement,
    settlement: payment.settlement,
    settlementPending,
    needsRefund,
    refundPending,
    done: !settlementPending && !needsRefund && !refundPending && (WATCH_DONE.includes(status) || (paidish && !needsSettlement)),
  };
}

/**
 * Stores a new payment attempt `pay` of `link` in the caller's transaction `m`: the payment row,
 * the link's `latest_attempt_status` (awaiting) and the `payment.created` / `payment.awaiting`
 * outbox events (spec 2.4, 6), and the start of its workflow after commit (temporal/intents.ts).
 * Returns the create-or-reuse answer for a new payment.
 */
export async function saveNewPayment(
  manager: EntityManager,
  link: PaymentLink,
  pay: Payment,
  request: RequestRef | null,
): Promise<{ payment: Payment; created: true }> {
  await manager.save(pay);
  await recordPaymentLinkAttempt(manager, link, { status: 'awaiting' });
  await emitPaymentEvents(manager, pay, ['payment.created', 'payment.awaiting'], request);
  await startPaymentWorkflowAfterCommit(manager, pay);
  return { payment: pay, created: true };
}
