/**
 * The cross-network watcher's activities (workflows/xchain-payment.ts; spec 2.4 watcher states and
 * verdicts, part 3, part 6). Money is seen twice: the payer's deposit on the source chain (to the
 * bridge's address: the watcher moves to `source_seen`) and the bridge's delivery on the native
 * chain (to the payment's delivery address: applied to the ledger by the verdict rules, so a bridge
 * that delivers less makes the payment `underpaid`, watcher `matching` `bridge_delivered_less`).
 * Money reaching a closed payment is owed back to the refund address (`recovery_required`
 * `payment_closed`, then `recovering` once returned). Each activity is one transaction with its
 * outbox rows, or one idempotent provider call. Amounts are bigint minor units of USDC (6 decimals).
 */
import { ApplicationFailure } from '@temporalio/common';
import type { EntityManager } from 'typeorm';
import type { BridgeProgress, XchainState } from '../../contracts/xchain-payment';
import { LIVE_PAYMENT_STATUSES } from '../../domain/payments';
import { applyDeposit, expire, type PaymentStatus } from '../../domain/verdicts';
import { XCHAIN_CLOSED_STATUSES } from '../../domain/xchain';
import { Deposit, Payment } from '../../entities';
import { db, transaction } from '../../lib/db';
import { logger } from '../../lib/logger';
import { payInBridgeAdapter } from '../../providers/bridge';
import {
  closeXchainPaymentWatcher,
  confirmXchainBridge,
  creditPayment,
  detectXchainPayment,
  expirePayment,
  ledgerOf,
  owePaymentDepositBack,
  recoverXchainPayment,
} from '../records/payments';
import { moveLinkAfterPayment } from './links';
import { recordObservedTransfer } from './watcher';

const isLive = (s: PaymentStatus) => (LIVE_PAYMENT_STATUSES as readonly string[]).includes(s);
const isClosed = (s: PaymentStatus) => (XCHAIN_CLOSED_STATUSES as readonly string[]).includes(s);

/** The watch state of `p` (reads its pending and owed deposits). */
async function xchainStateOf(p: Payment): Promise<XchainState> {
  const rows: Array<{ id: string; effect: string }> = await db().query(
    `SELECT id, effect FROM deposits WHERE payment_id = $1 AND effect IN ('pending','to_return') ORDER BY observed_at, id`,
    [p.id],
  );
  const pending = rows.filter((r) => r.effect === 'pending').map((r) => r.id);
  const needsRecovery = rows.some((r) => r.effect === 'to_return');
  const bridgeActive = p.watcher_state === 'source_seen' || p.watcher_state === 'confirming';
  const needsSettlement = (p.status === 'paid' || p.status === 'overpaid') && p.settlement === 'wallet';
  const finished = p.status === 'settled' || ((p.status === 'paid' || p.status === 'overpaid') && !needsSettlement) || isClosed(p.status);
  return {
    status: p.status,
    watcherState: p.watcher_state,
    expiresAt: p.expires_at.toISOString(),
    createdAt: p.created_at.toISOString(),
    pendingDepositIds: pending,
    bridgeActive,
    needsRecovery,
    needsSettlement,
    done: finished && !bridgeActive && !needsRecovery && pending.length === 0,
  };
}

async function locked(m: EntityManager, paymentId: string): Promise<Payment> {
  const pay = await m.findOne(Payment, { where: { id: paymentId }, lock: { mode: 'pessimistic_write' } });
  if (!pay) throw ApplicationFailure.nonRetryable(`payment ${paymentId} not found`, 'NotFound');
  return pay;
}

/** Reads the payment's watch state. Non-retryable `NotFound` when it does not exist. */
export async function loadXchainState(paymentId: string): Promise<XchainState> {
  const p = await db().getRepository(Payment).findOneBy({ id: paymentId });
  if (!p) throw ApplicationFailure.nonRetryable(`payment ${paymentId} not found`, 'NotFound');
  return xchainStateOf(p);
}

/**
 * Applies one recorded deposit of a cross-network payment, idempotently (an applied deposit changes
 * nothing):
 * - on the source chain: a live payment's watcher moves to `source_seen` (the bridge takes it from
 *   there) with `payment.detected` when it moves (catalogued: shipped by `events.ship.payment`);
 *   on a closed payment (expired, abandoned: ledger `unmatched` `deposit_after_close` with
 *   `payment.unmatched`; unmatched: recorded) the money is owed back (`to_return`, watcher
 *   `recovery_required` `payment_closed`); on a paid payment it is recorded for support;
 * - on the native chain (the bridge's delivery): the ledger applies it (domain applyDeposit:
 *   underpaid, paid, overpaid with their events; the link moves) and the watcher follows
 *   (domain watcherAfterDelivery); on a closed payment it is owed back.
 */
export async function applyXchainDeposit(paymentId: string, depositId: string): Promise<XchainState> {
  let linkEnded = false;
  const p = await transaction(async (m) => {
    const pay = await locked(m, paymentId);
    const dep = await m.findOne(Deposit, { where: { id: depositId, payment_id: paymentId }, lock: { mode: 'pessimistic_write' } });
    if (!dep || dep.effect !== 'pending') return pay;
    dep.applied_at = new Date();
    const source = dep.chain === pay.deposit_chain && dep.to_address.toLowerCase() === pay.deposit_address?.toLowerCase();
    if (source && isLive(pay.status)) {
      dep.effect = 'applied';
      // The payer's money is seen on the source chain, not yet delivered (catalogued, spec 6).
      await detectXchainPayment(m, pay, dep);
      return pay;
    }
    if (isClosed(pay.status)) {
      const out = applyDeposit(ledgerOf(pay), BigInt(dep.amount_minor));
      dep.effect = 'to_return';
      await owePaymentDepositBack(m, pay, { verdict: out, deposit: dep });
      return pay;
    }
    if (source) {
      // A further deposit on a paid payment: recorded for support, never published (spec part 3).
      dep.effect = 'recorded_only';
      await m.save(dep);
      logger.info({ payment_id: pay.id, deposit_id: dep.id, status: pay.status }, 'source deposit after payment recorded for support');
      return pay;
    }
    const out = applyDeposit(ledgerOf(pay), BigInt(dep.amount_minor));
    dep.effect = out.effect;
    await m.save(dep);
    if (out.effect === 'recorded_only') return pay;
    await creditPayment(m, pay, { verdict: out, amountMinor: dep.amount_minor, surplus: out.surplus, txHash: dep.tx_hash, watcher: true });
    linkEnded = await moveLinkAfterPayment(m, pay, null);
    return pay;
  });
  return { ...(await xchainStateOf(p)), linkEnded, linkId: p.payment_link_id, linkNotified: true };
}

/**
 * Asks the bridge to move the source funds it holds (providers/bridge.ts `advance`): while it holds
 * them the watcher is `confirming`; a delivery is recorded as a native-chain deposit of the payment
 * (activities/payments/watcher.ts, idempotent by tx hash; the workflow is signalled with it); a
 * failed bridge returns what it did not deliver to the refund address and the watcher reads
 * `bridge_failed` (an awaiting payment then expires: `payment.expired`, the link may be paid again).
 */
export async function advanceBridge(paymentId: string): Promise<XchainState & { bridge: BridgeProgress }> {
  const current = await db().getRepository(Payment).findOneBy({ id: paymentId });
  if (!current) throw ApplicationFailure.nonRetryable(`payment ${paymentId} not found`, 'NotFound');
  if (!current.bridge_transfer_id || !(current.watcher_state === 'source_seen' || current.watcher_state === 'confirming')) {
    return { ...(await xchainStateOf(current)), bridge: 'idle' };
  }
  const bridge = payInBridgeAdapter();
  const progress = await bridge.advance(current.bridge_transfer_id);
  let returnTx: string | null = null;
  if (progress.state === 'failed') {
    if (!current.refund_address) throw ApplicationFailure.nonRetryable(`payment ${paymentId} has no refund route`, 'NoRefundAddress');
    returnTx = (await bridge.returnUndelivered(current.bridge_transfer_id, current.refund_address))?.tx_hash ?? null;
  }
  const p = await transaction(async (m) => {
    const pay = await locked(m, paymentId);
    if (!(pay.watcher_state === 'source_seen' || pay.watcher_state === 'confirming')) return pay;
    if (progress.state === 'failed') {
      const out = expire(ledgerOf(pay));
      await expirePayment(m, pay, out, { watcher: 'bridge_failed', recoveryTxHash: returnTx });
      if (out.changed) await moveLinkAfterPayment(m, pay, null);
      return pay;
    }
    if (pay.watcher_state === 'source_seen') await confirmXchainBridge(m, pay);
    return pay;
  });
  if (progress.delivery) await recordObservedTransfer({ ...progress.delivery, decimals: 6 });
  // `delivered`: this call made a delivery; `covered`: everything received was covered before.
  const bridgeState = progress.delivery ? 'delivered' : progress.state === 'delivered' ? 'covered' : progress.state;
  return { ...(await xchainStateOf(p)), bridge: bridgeState };
}

/**
 * Returns every deposit owed back (`to_return`) to the refund address on the source chain, each by
 * one bridge return idempotent by deposit id, then records it (`returned`, `recovery_tx_hash`,
 * watcher `recovering`). Non-retryable `NoRefundAddress` when the payment has none.
 */
export async function recoverFunds(paymentId: string): Promise<XchainState> {
  const pay = await db().getRepository(Payment).findOneBy({ id: paymentId });
  if (!pay) throw ApplicationFailure.nonRetryable(`payment ${paymentId} not found`, 'NotFound');
  if (!pay.refund_address || !pay.bridge_transfer_id)
    throw ApplicationFailure.nonRetryable(`payment ${paymentId} has no refund route`, 'NoRefundAddress');
  const owed = await db()
    .getRepository(Deposit)
    .find({ where: { payment_id: paymentId, effect: 'to_return' }, order: { observed_at: 'ASC' } });
  for (const dep of owed) {
    const tx = await payInBridgeAdapter().returnFunds(
      pay.bridge_transfer_id,
      pay.refund_address,
      BigInt(dep.amount_minor),
      `recover:${dep.id}`,
    );
    await transaction(async (m) => {
      const p = await locked(m, paymentId);
      await m.query(`UPDATE deposits SET effect = 'returned' WHERE id = $1 AND effect = 'to_return'`, [dep.id]);
      await recoverXchainPayment(m, p, { txHash: tx });
    });
  }
  return loadXchainState(paymentId);
}

/**
 * The deposit window closed: an awaiting payment with nothing seen expires (`payment.expired`,
 * watcher `expired`); one whose funds were seen waits for its bridge instead. Else unchanged.
 */
export async function expireXchainPayment(paymentId: string): Promise<XchainState> {
  const p = await transaction(async (m) => {
    const pay = await locked(m, paymentId);
    if (pay.watcher_state !== 'address_issued') return pay;
    const out = expire(ledgerOf(pay));
    if (!out.changed) return pay;
    await expirePayment(m, pay, out, { watcher: 'expired' });
    await moveLinkAfterPayment(m, pay, null);
    return pay;
  });
  return xchainStateOf(p);
}

/**
 * After the link ended (its live payments were closed by activities/payments/links.ts): a closed
 * payment's watcher follows. Nothing seen: `expired`. Delivered money held (underpaid became
 * unmatched `partial_before_cancel`): owed back, `recovery_required` `payment_closed`. Funds in
 * flight: unchanged (their delivery will be owed back when it lands).
 */
export async function closeXchainWatcher(paymentId: string): Promise<XchainState> {
  const p = await transaction(async (m) => {
    const pay = await locked(m, paymentId);
    if (!isClosed(pay.status)) return pay;
    if (pay.watcher_state === 'address_issued') {
      await closeXchainPaymentWatcher(m, pay, 'expired');
    } else if (pay.watcher_state === 'matching' || pay.watcher_state === 'bridge_failed') {
      // TypeORM answers an UPDATE with [rows, count].
      const [owed]: [unknown[], number] = await m.query(
        `UPDATE deposits SET effect = 'to_return' WHERE payment_id = $1 AND effect = 'applied' AND chain = $2 RETURNING id`,
        [pay.id, pay.delivery_chain],
      );
      if (owed.length > 0) await closeXchainPaymentWatcher(m, pay, 'recovery_required');
    }
    return pay;
  });
  return xchainStateOf(p);
}
