/**
 * The payment's record module (spec 2.4, part 3 "Payment", part 6): the payment row as a domain
 * ledger, its outbox events, and one named function per transition. Each moves `status` through
 * domain/payments.ts `paymentTransitions` (and a cross-network payment's `watcher_state` through
 * domain/xchain.ts `watcherTransitions`), sets the fields that move with it (`paid_at`,
 * `settled_at`, `refunded_at`, the received figures, ...), saves the row in the caller's manager
 * `m` and writes the transition's `payment.*` events there. Callers decide (domain verdicts) and
 * pass the outcome; they never write a status or emit a transition's event themselves. Amounts
 * are bigint minor units of the settlement stablecoin (USDC, 6 decimals), stored as strings.
 */
import type { EntityManager } from 'typeorm';
import type { BankOutcome } from '../../domain/bank-collection';
import { paymentTransitions } from '../../domain/payments';
import type { CloseOutcome, DepositOutcome, PaymentLedger } from '../../domain/verdicts';
import { watcherAfterDelivery, watcherTransitions, type WatcherReason, type WatcherState } from '../../domain/xchain';
import type { Deposit, Payment } from '../../entities';
import { emitEvent, emitEventNonBlocking, type RequestRef } from '../../lib/outbox';
import { chainAdapter } from '../../providers/chain';
import { paymentView } from '../../views/payment';

/** The domain ledger of a stored payment (domain/verdicts.ts `PaymentLedger`). */
export function ledgerOf(payment: Payment): PaymentLedger {
  return {
    status: payment.status,
    expected: BigInt(payment.amount_expected_minor),
    received: BigInt(payment.amount_received_minor),
    underpaidEmitted: payment.underpaid_emitted,
    overpaidEmitted: payment.overpaid_emitted,
  };
}

/** The payment's wire form as events carry it (views/payment.ts with the chain adapter's identity). */
export function paymentEventObject(payment: Payment): Record<string, unknown> {
  return paymentView(payment, chainAdapter());
}

/** Emits one `payment.*` event per type (in order) inside `m`; `data.object` is the payment's wire view. */
export async function emitPaymentEvents(
  manager: EntityManager,
  payment: Payment,
  types: string[],
  request: RequestRef | null,
): Promise<void> {
  for (const type of types) {
    await emitEvent(manager, {
      accountId: payment.account_id,
      livemode: payment.livemode,
      type,
      objectType: 'payment',
      objectId: payment.id,
      object: paymentEventObject(payment),
      relatedIds: relatedIdsOf(payment),
      request,
    });
  }
}

function relatedIdsOf(payment: Payment): string[] {
  return [payment.payment_link_id, payment.subscription_id].filter((x): x is string => x !== null);
}

/** Moves the watcher of a cross-network payment in memory (the same state only updates the reason). */
function moveWatcher(payment: Payment, state: WatcherState, reason: WatcherReason | null = null): void {
  if (payment.watcher_state !== state) payment.watcher_state = watcherTransitions.assert(payment.watcher_state ?? 'address_issued', state);
  payment.watcher_reason = reason;
}

/** Writes the received figures of `next` and its status (through the table when it changes). */
function writeLedger(payment: Payment, next: PaymentLedger, surplus: bigint): void {
  if (next.status !== payment.status) paymentTransitions.move(payment, next.status);
  payment.amount_received_minor = next.received.toString();
  payment.underpaid_emitted = next.underpaidEmitted;
  payment.overpaid_emitted = next.overpaidEmitted;
  payment.surplus_minor = surplus > 0n ? surplus.toString() : null;
}

/**
 * Applies money received to the payment: `change.verdict` is domain `applyDeposit` (an on-chain
 * deposit, `change.deposit`) or `applyBankCredit` (a bank credit of `change.amountMinor`), already
 * known to be applied. Writes the ledger (status, received, surplus, the once-only flags), the
 * unmatched reason, the last short deposit (underpaid), `paid_at` (first paid/overpaid) and the
 * deposit's tx hash; a cross-network payment's watcher follows the delivery when `change.watcher`.
 * Saves and emits the verdict's events.
 */
export async function creditPayment(
  manager: EntityManager,
  payment: Payment,
  change: { verdict: DepositOutcome | BankOutcome; amountMinor: string; surplus: bigint; txHash?: string | null; watcher?: boolean },
): Promise<void> {
  const out = change.verdict;
  writeLedger(payment, out.next, change.surplus);
  if (out.unmatchedReason) payment.unmatched_reason = out.unmatchedReason;
  if (out.next.status === 'underpaid') payment.last_short_deposit_minor = change.amountMinor;
  if ((out.next.status === 'paid' || out.next.status === 'overpaid') && !payment.paid_at) payment.paid_at = new Date();
  if (change.txHash !== undefined) payment.onchain_tx_hash = change.txHash;
  if (change.watcher) {
    const w = watcherAfterDelivery(payment.status);
    if (w) moveWatcher(payment, w.state, w.reason);
  }
  await manager.save(payment);
  await emitPaymentEvents(manager, payment, out.events, null);
}

/**
 * Applies a bank return to an applied credit (domain `applyBankReturn` outcome): writes the ledger;
 * a payment left short records what it still holds as its last short deposit. Saves and emits.
 */
export async function returnPaymentCredit(manager: EntityManager, payment: Payment, verdict: BankOutcome, surplus: bigint): Promise<void> {
  writeLedger(payment, verdict.next, surplus);
  if (verdict.next.status === 'underpaid')
    payment.last_short_deposit_minor = verdict.next.received > 0n ? verdict.next.received.toString() : null;
  await manager.save(payment);
  await emitPaymentEvents(manager, payment, verdict.events, null);
}

/**
 * A deposit reached a closed cross-network payment (expired, abandoned, unmatched): an applied
 * verdict (domain `applyDeposit`) makes it unmatched `deposit_after_close`; the money is owed back
 * (the caller marked `deposit` `to_return`), the watcher reads `recovery_required`
 * `payment_closed`. Saves the deposit and the payment and emits the verdict's events.
 */
export async function owePaymentDepositBack(
  manager: EntityManager,
  payment: Payment,
  change: { verdict: DepositOutcome; deposit: Deposit },
): Promise<void> {
  const out = change.verdict;
  if (out.effect === 'applied') {
    paymentTransitions.move(payment, out.next.status);
    payment.amount_received_minor = out.next.received.toString();
    if (out.unmatchedReason) payment.unmatched_reason = out.unmatchedReason;
    payment.onchain_tx_hash = change.deposit.tx_hash;
  }
  moveWatcher(payment, 'recovery_required', 'payment_closed');
  await manager.save([change.deposit, payment]);
  await emitPaymentEvents(manager, payment, out.events, null);
}

/**
 * Closes the deposit window (domain `expire` outcome): awaiting -> expired when `verdict.changed`,
 * with its events. A cross-network payment's watcher moves to `change.watcher` (`expired`, or
 * `bridge_failed` with the bridge's `recoveryTxHash`) whether or not the status moved.
 */
export async function expirePayment(
  manager: EntityManager,
  payment: Payment,
  verdict: CloseOutcome,
  change: { watcher?: 'expired' | 'bridge_failed'; recoveryTxHash?: string | null } = {},
): Promise<void> {
  if (change.watcher) moveWatcher(payment, change.watcher);
  if (change.recoveryTxHash) payment.recovery_tx_hash = change.recoveryTxHash;
  if (verdict.changed) paymentTransitions.move(payment, verdict.next.status);
  await manager.save(payment);
  await emitPaymentEvents(manager, payment, verdict.events, null);
}

/**
 * Closes a live payment because what it pays ended (domain `closeOnLinkEnd` outcome, changed):
 * awaiting -> abandoned or expired, underpaid -> unmatched with its reason. Its events never block
 * the close (lib/outbox.ts `emitEventNonBlocking`, spec 6).
 */
export async function closePayment(
  manager: EntityManager,
  payment: Payment,
  verdict: CloseOutcome,
  request: RequestRef | null,
): Promise<void> {
  paymentTransitions.move(payment, verdict.next.status);
  if (verdict.unmatchedReason) payment.unmatched_reason = verdict.unmatchedReason;
  await manager.save(payment);
  for (const type of verdict.events) {
    await emitEventNonBlocking(manager, {
      accountId: payment.account_id,
      livemode: payment.livemode,
      type,
      objectType: 'payment',
      objectId: payment.id,
      object: paymentEventObject(payment),
      relatedIds: relatedIdsOf(payment),
      request,
    });
  }
}

/**
 * Marks a paid/overpaid payment settled (`settled_at` now, `settlement_tx_hash` when the settlement
 * has a reference) with `payment.settled`. Throws IllegalTransition (409) from another status.
 */
export async function settlePayment(manager: EntityManager, payment: Payment, change: { reference: string | null }): Promise<void> {
  paymentTransitions.move(payment, 'settled');
  payment.settled_at = new Date();
  if (change.reference) payment.settlement_tx_hash = change.reference;
  await manager.save(payment);
  await emitPaymentEvents(manager, payment, ['payment.settled'], null);
}

/**
 * Marks a paid payment refunded (`refunded_at` now, `refund_reason`); the link's `payment_link.refunded`
 * is the event of this refund (activities/records/payment-links.ts `refundPaymentLink`).
 */
export async function refundPayment(manager: EntityManager, payment: Payment, change: { reason: string | null }): Promise<void> {
  paymentTransitions.move(payment, 'refunded');
  payment.refunded_at = new Date();
  payment.refund_reason = change.reason;
  await manager.save(payment);
}

/**
 * The payer's money is seen on the source chain of a live cross-network payment: its watcher moves
 * to `source_seen` with `payment.detected` (catalogued, spec 6), once. Saves the deposit and the payment.
 */
export async function detectXchainPayment(manager: EntityManager, payment: Payment, deposit: Deposit): Promise<void> {
  const detected = payment.watcher_state !== 'source_seen';
  if (detected) moveWatcher(payment, 'source_seen');
  await manager.save([deposit, payment]);
  if (detected) await emitPaymentEvents(manager, payment, ['payment.detected'], null);
}

/** The bridge holds the source funds: the watcher moves `source_seen` -> `confirming`. Saves. */
export async function confirmXchainBridge(manager: EntityManager, payment: Payment): Promise<void> {
  moveWatcher(payment, 'confirming');
  await manager.save(payment);
}

/** One owed deposit went back to the refund address in `txHash`: the watcher reads `recovering`. Saves. */
export async function recoverXchainPayment(manager: EntityManager, payment: Payment, change: { txHash: string }): Promise<void> {
  payment.recovery_tx_hash = change.txHash;
  if (payment.watcher_state === 'recovery_required') moveWatcher(payment, 'recovering');
  await manager.save(payment);
}

/**
 * The watcher of a closed cross-network payment follows its close: `expired` (nothing seen) or
 * `recovery_required` `payment_closed` (delivered money is owed back). Saves.
 */
export async function closeXchainPaymentWatcher(
  manager: EntityManager,
  payment: Payment,
  state: 'expired' | 'recovery_required',
): Promise<void> {
  if (state === 'expired') moveWatcher(payment, 'expired');
  else moveWatcher(payment, 'recovery_required', 'payment_closed');
  await manager.save(payment);
}
