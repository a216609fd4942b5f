/**
 * The payment workflow's provider-settled activities (spec 2.4, part 3, part 6): apply an
 * inbound bank credit or a bank return (domain/bank-collection.ts reducer), pay the merchant's bank
 * destination through the fiat rail adapter and record the rail's outcome, and send a refunded
 * payment's money back through the provider of the rail it came in on. Each is one transaction
 * with its outbox events, or one provider call idempotent by a key derived from the payment.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { EntityManager } from 'typeorm';
import { applyBankCredit, applyBankReturn, bankSettlementDue } from '../../domain/bank-collection';
import { isBankRail } from '../../domain/rails';
import { ledgerFigures } from '../../domain/verdicts';
import { BankCredit, Payment } from '../../entities';
import { db, transaction } from '../../lib/db';
import { chainAdapter } from '../../providers/chain';
import { fiatRails } from '../../providers/fiat-rails';
import type { PaymentStep } from '../../contracts/payment';
import { stateOf } from './ledger';
import { moveLinkAfterPayment } from './links';
import { creditPayment, ledgerOf, returnPaymentCredit, settlePayment } from '../records/payments';

async function lockPayment(m: EntityManager, paymentId: string): Promise<Payment> {
  const pay = await m.findOne(Payment, { where: { id: paymentId }, lock: { mode: 'pessimistic_write' } });
  if (!pay) throw ApplicationFailure.nonRetryable(`payment ${paymentId} not found`, 'NotFound');
  return pay;
}

async function loadPayment(paymentId: string): Promise<Payment> {
  const p = await db().getRepository(Payment).findOneBy({ id: paymentId });
  if (!p) throw ApplicationFailure.nonRetryable(`payment ${paymentId} not found`, 'NotFound');
  return p;
}

/**
 * Applies one recorded inbound bank credit to its payment (domain `applyBankCredit`) in one
 * transaction: payment row, credit effect, link move, outbox events. A credit in another currency
 * than the link's is recorded only. Idempotent: an applied credit changes nothing.
 */
export async function applyBankCreditActivity(paymentId: string, creditId: string): Promise<PaymentStep> {
  let linkEnded = false;
  const p = await transaction(async (m) => {
    const pay = await lockPayment(m, paymentId);
    const cr = await m.findOne(BankCredit, { where: { id: creditId, payment_id: paymentId }, lock: { mode: 'pessimistic_write' } });
    if (!cr || cr.effect !== 'pending') return pay;
    const out = applyBankCredit(ledgerOf(pay), BigInt(cr.amount_minor), cr.currency === pay.currency);
    cr.effect = out.effect;
    cr.applied_at = new Date();
    await m.save(cr);
    if (out.effect === 'recorded_only') return pay;
    await creditPayment(m, pay, { verdict: out, amountMinor: cr.amount_minor, surplus: ledgerFigures(out.next).surplus });
    linkEnded = await moveLinkAfterPayment(m, pay, null);
    return pay;
  });
  return { ...(await stateOf(p)), linkEnded, linkId: p.payment_link_id, linkNotified: true };
}

/**
 * Applies a bank return of credit `creditId` (domain `applyBankReturn`): `return_reason` takes the
 * provider's text; an applied credit leaves the received total; a paid or settled payment left
 * short becomes `underpaid` (`payment.underpaid` once) and its link `processing` with
 * `partial_payment`. A credit returned before it was applied is recorded only. Idempotent.
 * `linkEnded` is true when the link moved (its workflow must re-read it).
 */
export async function applyBankReturnActivity(paymentId: string, creditId: string): Promise<PaymentStep> {
  let linkMoved = false;
  const p = await transaction(async (m) => {
    const pay = await lockPayment(m, paymentId);
    const cr = await m.findOne(BankCredit, { where: { id: creditId, payment_id: paymentId }, lock: { mode: 'pessimistic_write' } });
    if (!cr || !cr.returned_at || cr.return_applied) return pay;
    cr.return_applied = true;
    const wasApplied = cr.effect === 'applied';
    if (cr.effect === 'pending') cr.effect = 'recorded_only';
    await m.save(cr);
    pay.return_reason = cr.return_reason;
    if (!wasApplied || pay.status === 'unmatched' || pay.status === 'refunded') {
      await m.save(pay);
      return pay;
    }
    const before = pay.status;
    const out = applyBankReturn(ledgerOf(pay), BigInt(cr.amount_minor));
    await returnPaymentCredit(m, pay, out, ledgerFigures(out.next).surplus);
    if (pay.status !== before) {
      await moveLinkAfterPayment(m, pay, null);
      linkMoved = true;
    }
    return pay;
  });
  return { ...(await stateOf(p)), linkEnded: linkMoved, linkId: p.payment_link_id, linkNotified: true };
}

/** Marks a paid/overpaid payment settled inside `m` (payment.settled, link move); `reference` is the rail's reference. */
async function markSettled(m: EntityManager, pay: Payment, reference: string | null): Promise<boolean> {
  if (pay.status !== 'paid' && pay.status !== 'overpaid') return false;
  await settlePayment(m, pay, { reference });
  return moveLinkAfterPayment(m, pay, null);
}

/**
 * Pays the merchant's bank destination what it is owed (domain `bankSettlementDue`: received
 * capped at the invoice, less what was paid out) through the fiat rail adapter on the
 * destination's rail, idempotent by `settle:<payment id>:<already settled>` (plus `:a<n>` after n
 * failed payouts) so a retried activity never pays twice; stores the rail payment as in flight. Nothing owed: the payment is settled at
 * once. A payment no longer paid/overpaid is left alone.
 */
export async function submitBankSettlement(paymentId: string): Promise<PaymentStep> {
  const p = await loadPayment(paymentId);
  if ((p.status !== 'paid' && p.status !== 'overpaid') || p.settlement_rail_payment_id) {
    return { ...(await stateOf(p)), linkEnded: false, linkId: p.payment_link_id, linkNotified: true };
  }
  const due = bankSettlementDue(BigInt(p.amount_received_minor), BigInt(p.invoice_minor), BigInt(p.settled_minor));
  let linkEnded = false;
  if (due === 0n) {
    const done = await transaction(async (m) => {
      const pay = await lockPayment(m, paymentId);
      linkEnded = await markSettled(m, pay, null);
      return pay;
    });
    return { ...(await stateOf(done)), linkEnded, linkId: done.payment_link_id, linkNotified: true };
  }
  const attempt = p.settlement_attempt > 0 ? `:a${p.settlement_attempt}` : '';
  const rp = await fiatRails().submit({
    idempotencyKey: `settle:${p.id}:${p.settled_minor}${attempt}`,
    clientReference: p.id,
    rail: p.settlement_rail ?? p.payment_rail,
    currency: p.currency,
    amount: due,
  });
  await db().query(
    'UPDATE payments SET settlement_rail_payment_id = $2, updated_at = now() WHERE id = $1 AND settlement_rail_payment_id IS NULL',
    [p.id, rp.id],
  );
  return { ...(await stateOf(await loadPayment(paymentId))), linkEnded: false, linkId: p.payment_link_id, linkNotified: true };
}

/**
 * Reads the in-flight settlement payout from the fiat rail. `submitted`: unchanged (still in
 * flight). `paid`: what the rail paid is added to `settled_minor`, the payment becomes `settled`
 * (`payment.settled`, link settled) with the rail's provider reference. `failed` / `returned`:
 * the payout is recorded as failed (`settlement_attempt` + 1, none in flight) and the activity
 * fails non-retryably with `SettlementFailed`: the workflow parks the payment for an operator;
 * money is not re-sent until the operator's `retry` signal, which submits a new payout.
 */
export async function syncBankSettlement(paymentId: string): Promise<PaymentStep> {
  const p = await loadPayment(paymentId);
  if (!p.settlement_rail_payment_id) return { ...(await stateOf(p)), linkEnded: false, linkId: p.payment_link_id, linkNotified: true };
  const rp = await fiatRails().get(p.settlement_rail_payment_id);
  if (rp.state === 'submitted') return { ...(await stateOf(p)), linkEnded: false, linkId: p.payment_link_id, linkNotified: true };
  if (rp.state !== 'paid') {
    // Recorded first: the operator's `retry` (after fixing the destination) submits a new payout under a new key.
    await db().query(
      `UPDATE payments SET settlement_rail_payment_id = NULL, settlement_attempt = settlement_attempt + 1, updated_at = now()
        WHERE id = $1 AND settlement_rail_payment_id = $2`,
      [p.id, rp.id],
    );
    throw ApplicationFailure.nonRetryable(
      `settlement payout ${rp.id} of ${p.id} ${rp.state}: ${rp.reason ?? 'no reason given'}`,
      'SettlementFailed',
    );
  }
  let linkEnded = false;
  const done = await transaction(async (m) => {
    const pay = await lockPayment(m, paymentId);
    if (pay.settlement_rail_payment_id !== rp.id) return pay;
    pay.settled_minor = (BigInt(pay.settled_minor) + (rp.paid ?? rp.amount)).toString();
    pay.settlement_rail_payment_id = null;
    await m.save(pay);
    linkEnded = await markSettled(m, pay, rp.provider_reference);
    return pay;
  });
  return { ...(await stateOf(done)), linkEnded, linkId: done.payment_link_id, linkNotified: true };
}

/**
 * Sends a refunded payment's money back to the payer through the rail it came in on:
 * on a bank rail a fiat rail payment of the received total to the sending account (idempotent by
 * `refund:<payment id>`, client reference `refund:<payment id>`); on a crypto rail a chain transfer
 * of the received total from the deposit address to the first deposit's sender (idempotent by the
 * same key). Records the rail payment id (or tx hash) on the payment. Non-retryable
 * `RefundDestinationUnknown` when a crypto payment has no known sender.
 */
export async function submitRefund(paymentId: string): Promise<PaymentStep> {
  const p = await loadPayment(paymentId);
  if (p.status !== 'refunded' || p.refund_rail_payment_id)
    return { ...(await stateOf(p)), linkEnded: false, linkId: p.payment_link_id, linkNotified: true };
  const amount = BigInt(p.amount_received_minor);
  let ref: string;
  let completed = false;
  if (isBankRail(p.payment_rail)) {
    const attempt = p.refund_attempt > 0 ? `:a${p.refund_attempt}` : '';
    const rp = await fiatRails().submit({
      idempotencyKey: `refund:${p.id}${attempt}`,
      clientReference: `refund:${p.id}`,
      rail: p.payment_rail,
      currency: p.currency,
      amount,
    });
    ref = rp.id;
  } else {
    completed = true;
    const rows: Array<{ from_address: string | null }> = await db().query(
      `SELECT from_address FROM deposits WHERE payment_id = $1 AND effect = 'applied' AND from_address IS NOT NULL ORDER BY observed_at LIMIT 1`,
      [p.id],
    );
    const to = rows[0]?.from_address;
    if (!to || !p.deposit_address || !p.stablecoin)
      throw ApplicationFailure.nonRetryable(`payment ${p.id} has no known sender to refund`, 'RefundDestinationUnknown');
    ref = await chainAdapter().send(p.deposit_address, to, p.stablecoin, amount, `refund:${p.id}`);
  }
  await db().query(
    `UPDATE payments SET refund_rail_payment_id = $2, refund_completed_at = CASE WHEN $3 THEN now() END, updated_at = now()
      WHERE id = $1 AND refund_rail_payment_id IS NULL`,
    [p.id, ref, completed],
  );
  return { ...(await stateOf(await loadPayment(paymentId))), linkEnded: false, linkId: p.payment_link_id, linkNotified: true };
}

/**
 * Reads the in-flight refund payout from the fiat rail: `submitted` unchanged; `paid` sets
 * `refund_completed_at`; `failed` / `returned`: recorded (`refund_attempt` + 1, none in flight)
 * and non-retryable `RefundFailed` (the workflow parks the payment for an operator, whose `retry`
 * submits a new refund payout under a new key).
 */
export async function syncRefund(paymentId: string): Promise<PaymentStep> {
  const p = await loadPayment(paymentId);
  if (!p.refund_rail_payment_id || p.refund_completed_at)
    return { ...(await stateOf(p)), linkEnded: false, linkId: p.payment_link_id, linkNotified: true };
  const rp = await fiatRails().get(p.refund_rail_payment_id);
  if (rp.state === 'paid') {
    await db().query('UPDATE payments SET refund_completed_at = now(), updated_at = now() WHERE id = $1 AND refund_rail_payment_id = $2', [
      p.id,
      rp.id,
    ]);
  } else if (rp.state !== 'submitted') {
    await db().query(
      `UPDATE payments SET refund_rail_payment_id = NULL, refund_attempt = refund_attempt + 1, updated_at = now()
        WHERE id = $1 AND refund_rail_payment_id = $2`,
      [p.id, rp.id],
    );
    throw ApplicationFailure.nonRetryable(
      `refund payout ${rp.id} of ${p.id} ${rp.state}: ${rp.reason ?? 'no reason given'}`,
      'RefundFailed',
    );
  }
  return { ...(await stateOf(await loadPayment(paymentId))), linkEnded: false, linkId: p.payment_link_id, linkNotified: true };
}
