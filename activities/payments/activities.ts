/**
 * The payment workflow's activities (contracts/payment.ts `PaymentActivities`; spec 2.4, part 3
 * "Payment", part 6): each is one DB transaction with its outbox events, or one provider call. Every
 * status change is written by activities/records/payments.ts. Amounts are bigint minor
 * units of the settlement stablecoin (USDC, 6 decimals). The worker registers
 * `paymentWorkflowActivities` and `xchainPaymentWorkflowActivities` (contracts/xchain-payment.ts).
 */
import { ApplicationFailure } from '@temporalio/common';
import type { PaymentActivities, PaymentState, PaymentStep } from '../../contracts/payment';
import type { XchainWatcherActivities } from '../../contracts/xchain-payment';
import { applyDeposit, expire } from '../../domain/verdicts';
import { Deposit, Payment } from '../../entities';
import { db, transaction } from '../../lib/db';
import { logger } from '../../lib/logger';
import { chainAdapter } from '../../providers/chain';
import { stateOf } from './ledger';
import { moveLinkAfterPayment } from './links';
import { signalLinkOfPayment } from './signals';
import { moveInvoiceAfterPayment } from '../records/subscriptions';
import { creditPayment, expirePayment, ledgerOf, settlePayment } from '../records/payments';
import { advanceBridge, applyXchainDeposit, closeXchainWatcher, expireXchainPayment, loadXchainState, recoverFunds } from './xchain';
import {
  applyBankCreditActivity,
  applyBankReturnActivity,
  submitBankSettlement,
  submitRefund,
  syncBankSettlement,
  syncRefund,
} from './bank-activities';

/** Reads the payment's watch state. Non-retryable failure `NotFound` when the payment does not exist. */
export async function loadPaymentState(paymentId: string): Promise<PaymentState> {
  const p = await db().getRepository(Payment).findOneBy({ id: paymentId });
  if (!p) throw ApplicationFailure.nonRetryable(`payment ${paymentId} not found`, 'NotFound');
  return stateOf(p);
}

/**
 * Applies one recorded deposit to its payment (domain applyDeposit) in one transaction: payment
 * row, deposit effect, link move, outbox events. Idempotent: an already applied deposit changes nothing.
 * Returns the new watch state and whether the link reached paid/settled.
 */
export async function applyDepositActivity(paymentId: string, depositId: string): Promise<PaymentStep> {
  let linkEnded = false;
  const p = await transaction(async (m) => {
    const pay = await m.findOne(Payment, { where: { id: paymentId }, lock: { mode: 'pessimistic_write' } });
    if (!pay) throw ApplicationFailure.nonRetryable(`payment ${paymentId} not found`, 'NotFound');
    const dep = await m.findOne(Deposit, { where: { id: depositId, payment_id: paymentId }, lock: { mode: 'pessimistic_write' } });
    if (!dep || dep.effect !== 'pending') return pay;
    const out = applyDeposit(ledgerOf(pay), BigInt(dep.amount_minor));
    dep.effect = out.effect;
    dep.applied_at = new Date();
    await m.save(dep);
    if (out.effect === 'recorded_only') {
      logger.info({ payment_id: pay.id, deposit_id: dep.id, status: pay.status }, 'deposit after close recorded for support');
      return pay;
    }
    await creditPayment(m, pay, { verdict: out, amountMinor: dep.amount_minor, surplus: out.surplus, txHash: dep.tx_hash });
    linkEnded = await moveLinkAfterPayment(m, pay, null);
    await moveInvoiceAfterPayment(m, pay);
    return pay;
  });
  return { ...(await stateOf(p)), linkEnded, linkId: p.payment_link_id, linkNotified: true };
}

/** Closes the deposit window (domain expire): awaiting -> expired with `payment.expired`; else unchanged. */
export async function expirePaymentActivity(paymentId: string): Promise<PaymentState> {
  const p = await transaction(async (m) => {
    const pay = await m.findOne(Payment, { where: { id: paymentId }, lock: { mode: 'pessimistic_write' } });
    if (!pay) throw ApplicationFailure.nonRetryable(`payment ${paymentId} not found`, 'NotFound');
    const out = expire(ledgerOf(pay));
    if (!out.changed) return pay;
    await expirePayment(m, pay, out);
    await moveLinkAfterPayment(m, pay, null);
    await moveInvoiceAfterPayment(m, pay);
    return pay;
  });
  return stateOf(p);
}

/**
 * Provider call: sends the merchant's net amount (the exact invoice; the fee and any surplus stay
 * with the service) from the deposit address (cross-network: the delivery address) to the settlement address. Idempotent by payment id,
 * so a retried activity never pays twice. Returns the settlement tx hash.
 */
export async function sendSettlement(paymentId: string): Promise<string> {
  const p = await db().getRepository(Payment).findOneBy({ id: paymentId });
  if (!p) throw ApplicationFailure.nonRetryable(`payment ${paymentId} not found`, 'NotFound');
  // The cross-network rail's money sits where its bridge delivered it, on the native chain.
  const from = p.delivery_address ?? p.deposit_address;
  if (!p.settlement_address || !from)
    throw ApplicationFailure.nonRetryable(`payment ${paymentId} has no settlement route`, 'NoSettlementRoute');
  return chainAdapter().send(from, p.settlement_address, p.currency, BigInt(p.invoice_minor), `settle:${p.id}`);
}

/** Records a completed settlement: payment settled, link settled, events. Idempotent. */
export async function recordSettlement(paymentId: string, txHash: string): Promise<PaymentStep> {
  let linkEnded = false;
  const p = await transaction(async (m) => {
    const pay = await m.findOne(Payment, { where: { id: paymentId }, lock: { mode: 'pessimistic_write' } });
    if (!pay) throw ApplicationFailure.nonRetryable(`payment ${paymentId} not found`, 'NotFound');
    if (pay.status !== 'paid' && pay.status !== 'overpaid') return pay;
    await settlePayment(m, pay, { reference: txHash });
    linkEnded = await moveLinkAfterPayment(m, pay, null);
    return pay;
  });
  return { ...(await stateOf(p)), linkEnded, linkId: p.payment_link_id, linkNotified: true };
}

/** Signals the link's workflow to re-read its state (it ends once the link is paid or settled). */
export async function notifyLinkWorkflow(linkId: string): Promise<void> {
  await signalLinkOfPayment(linkId);
}

/** The activities of contracts/payment.ts (and only those): what the worker registers for paymentWorkflow. */
export const paymentWorkflowActivities = {
  loadPaymentState,
  applyDepositActivity,
  expirePaymentActivity,
  sendSettlement,
  recordSettlement,
  notifyLinkWorkflow,
  applyBankCreditActivity,
  applyBankReturnActivity,
  submitBankSettlement,
  syncBankSettlement,
  submitRefund,
  syncRefund,
} satisfies PaymentActivities;

/**
 * The watcher's own activities of contracts/xchain-payment.ts (activities/payments/xchain.ts): what
 * the worker registers for xchainPaymentWorkflow besides the settlement ones above.
 */
export const xchainPaymentWorkflowActivities = {
  loadXchainState,
  applyXchainDeposit,
  advanceBridge,
  recoverFunds,
  expireXchainPayment,
  closeXchainWatcher,
} satisfies XchainWatcherActivities;
