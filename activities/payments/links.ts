/**
 * How a payment and its link move each other (spec 2.3 `partial_payment`, part 3, part 6), inside
 * the caller's transaction: a payment's new status moves its link (`moveLinkAfterPayment`); a link
 * that ends closes its live payments (`closeLivePaymentsForLink`). Every status change is
 * written by the record modules (activities/records/payment-links.ts, payments.ts).
 */
import type { EntityManager } from 'typeorm';
import { paymentLinkContract } from '../../contracts/payment-link';
import { LINK_WORKFLOW_LIVE_STATUSES } from '../../domain/payment-links';
import { LIVE_PAYMENT_STATUSES, sqlStatusList } from '../../domain/payments';
import { closeOnLinkEnd } from '../../domain/verdicts';
import { Payment, PaymentLink } from '../../entities';
import type { RequestRef } from '../../lib/outbox';
import { signalRunningAfterCommit, startAfterCommit } from '../../temporal/intents';
import { movePaymentLinkAfterPayment } from '../records/payment-links';
import { closePayment, ledgerOf } from '../records/payments';

/**
 * Moves the link of `p` after the payment reached `p.status` (domain linkStatusAfterPayment),
 * inside `m`. `p.last_short_deposit_minor` is the most recent short deposit (spec 2.3
 * `partial_payment.received`). Returns true when the link reached a status that ends its
 * workflow's timers (paid/settled).
 *
 * The link's workflow learns of the move in the same transaction, performed after commit durably
 * (temporal/intents.ts), only where its row does not already tell it at its next wake-up: a link
 * leaving the statuses its workflow keeps timers for (LINK_WORKFLOW_LIVE_STATUSES) signals its open
 * run (`linkChanged`, which then ends; never a new run for an ended link), and an ended link
 * reopened by a bank return (paid -> processing) is signalled with start. The payment activities
 * that call this return `linkNotified: true` (contracts/payment.ts), so their workflows send nothing more.
 */
export async function moveLinkAfterPayment(manager: EntityManager, payment: Payment, request: RequestRef | null): Promise<boolean> {
  if (!payment.payment_link_id) return false;
  const link = await manager.findOne(PaymentLink, { where: { id: payment.payment_link_id }, lock: { mode: 'pessimistic_write' } });
  if (!link) return false;
  const wasLive = LINK_WORKFLOW_LIVE_STATUSES.includes(link.status);
  const { changed } = await movePaymentLinkAfterPayment(manager, link, payment, request);
  const isLive = LINK_WORKFLOW_LIVE_STATUSES.includes(link.status);
  const ref = { id: link.id, accountId: link.account_id };
  if (changed && wasLive && !isLive) await signalRunningAfterCommit(manager, paymentLinkContract, ref, paymentLinkContract.signals.update);
  else if (changed && !wasLive && isLive) await startAfterCommit(manager, paymentLinkContract, ref, paymentLinkContract.signals.update);
  return changed && (link.status === 'paid' || link.status === 'settled');
}

/**
 * Closes the link's live payments (awaiting, underpaid) when the link is cancelled or expires
 * (domain closeOnLinkEnd): underpaid -> unmatched `partial_before_cancel` (money held,
 * `payment.unmatched`), awaiting -> abandoned (cancel) or expired (expiry). Runs inside `m`; a
 * failed emit never blocks the link end (spec 6). Returns the payment ids whose workflows the
 * caller signals after commit (payments/signals.ts `signalLinkEndedToPayments`).
 */
export async function closeLivePaymentsForLink(
  manager: EntityManager,
  link: PaymentLink,
  reason: 'cancelled' | 'expired',
  request: RequestRef | null,
): Promise<{ paymentIds: string[] }> {
  const live = await manager
    .createQueryBuilder(Payment, 'p')
    .setLock('pessimistic_write')
    .where('p.payment_link_id = :id', { id: link.id })
    .andWhere(`p.status IN (${sqlStatusList(LIVE_PAYMENT_STATUSES)})`)
    .getMany();
  const ids: string[] = [];
  for (const pay of live) {
    if (await closeLivePayment(manager, pay, reason === 'cancelled' ? 'cancel' : 'expiry', request)) ids.push(pay.id);
  }
  return { paymentIds: ids };
}

/**
 * Closes one live payment (locked by the caller) because what it pays ended (domain
 * closeOnLinkEnd: awaiting -> abandoned on cancel or expired on expiry, underpaid -> unmatched
 * `partial_before_cancel` with its money held), with its events, never blocked by a failed emit.
 * Returns false when the payment had nothing to close. Used by links and subscriptions.
 */
export async function closeLivePayment(
  manager: EntityManager,
  pay: Payment,
  mode: 'cancel' | 'expiry',
  request: RequestRef | null,
): Promise<boolean> {
  const out = closeOnLinkEnd(ledgerOf(pay), mode);
  if (!out.changed) return false;
  await closePayment(manager, pay, out, request);
  return true;
}
