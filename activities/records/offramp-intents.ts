/**
 * Off-ramp intent records (spec 2.5, 6 `offramp_intent.*`): the locked read and one function per
 * transition of domain/offramp.ts `offrampTransitions`, each moving the intent in memory through
 * the table, setting the fields that move with the status, saving it and writing its
 * `offramp_intent.<status>` event in the caller's transaction (`failed` has no catalogued event:
 * spec 6 lists none). A move the table refuses throws IllegalTransition (409
 * `offramp_intent_state_changed`). Amounts in minor units (USDC 6 decimals, fiat its currency's).
 */
import type { EntityManager } from 'typeorm';
import { notFound } from '../../domain/errors';
import { offrampTransitions, type OfframpFailureReason, type OfframpStatus } from '../../domain/offramp';
import { WalletOfframpIntent } from '../../entities';
import { emitEvent, type RequestRef } from '../../lib/outbox';
import { scoped } from '../../lib/scoped';
import { offrampIntentView } from '../../views/wallet-offramp';

/** Locks (`FOR UPDATE`) off-ramp intent `id`: of `scope` when given (a command; 404 otherwise), any otherwise (a workflow's own); null when absent. */
export async function lockOfframpIntent(
  manager: EntityManager,
  id: string,
  scope?: { accountId: string; livemode: boolean },
): Promise<WalletOfframpIntent | null> {
  if (scope) return scoped(scope, manager).lock(WalletOfframpIntent, { id }, () => notFound(`No such off-ramp intent: ${id}.`, 'id'));
  return manager.findOne(WalletOfframpIntent, { where: { id }, lock: { mode: 'pessimistic_write' } });
}

async function moveOfframpIntent(
  m: EntityManager,
  intent: WalletOfframpIntent,
  to: OfframpStatus,
  set: Partial<WalletOfframpIntent>,
  request: RequestRef | null,
): Promise<WalletOfframpIntent> {
  offrampTransitions.move(intent, to);
  Object.assign(intent, set);
  const saved = await m.save(intent);
  if (to !== 'failed') {
    await emitEvent(m, {
      accountId: saved.account_id,
      livemode: saved.livemode,
      type: `offramp_intent.${to}`,
      objectType: 'offramp_intent',
      objectId: saved.id,
      object: offrampIntentView(saved),
      request,
    });
  }
  return saved;
}

/** `awaiting_funds` -> `funds_received`: the transit address holds `receivedMinor` (the first transfer's hash, if known). */
export async function receiveOfframpFunds(
  manager: EntityManager,
  intent: WalletOfframpIntent,
  change: { receivedMinor: string; sourceTxHash: string | null },
): Promise<WalletOfframpIntent> {
  return moveOfframpIntent(
    manager,
    intent,
    'funds_received',
    { received_minor: change.receivedMinor, source_tx_hash: change.sourceTxHash, funds_received_at: new Date() },
    null,
  );
}

/** -> `failed` with `failure_reason`, stamping `completed_at` (no event). */
export async function failOfframpIntent(
  manager: EntityManager,
  intent: WalletOfframpIntent,
  change: { reason: OfframpFailureReason },
): Promise<WalletOfframpIntent> {
  return moveOfframpIntent(manager, intent, 'failed', { failure_reason: change.reason, completed_at: new Date() }, null);
}

/** `funds_received` -> `payment_submitted` with the rail payment id. */
export async function markOfframpPaymentSubmitted(
  manager: EntityManager,
  intent: WalletOfframpIntent,
  change: { railPaymentId: string },
): Promise<WalletOfframpIntent> {
  return moveOfframpIntent(
    manager,
    intent,
    'payment_submitted',
    { rail_payment_id: change.railPaymentId, payment_submitted_at: new Date() },
    null,
  );
}

/** `payment_submitted` -> `payment_processed` with what the recipient got (`settledAmountMinor`, destination currency minor units). */
export async function markOfframpPaymentProcessed(
  manager: EntityManager,
  intent: WalletOfframpIntent,
  change: { settledAmountMinor: string },
): Promise<WalletOfframpIntent> {
  return moveOfframpIntent(
    manager,
    intent,
    'payment_processed',
    { settled_amount_minor: change.settledAmountMinor, completed_at: new Date() },
    null,
  );
}

/** -> `refunded` with the refund's transaction hash (null when nothing was held). */
export async function markOfframpRefunded(
  manager: EntityManager,
  intent: WalletOfframpIntent,
  change: { refundTxHash: string | null },
): Promise<WalletOfframpIntent> {
  return moveOfframpIntent(manager, intent, 'refunded', { refund_tx_hash: change.refundTxHash, completed_at: new Date() }, null);
}

/** -> `refund_failed`: the funds stay at the transit address for support. */
export async function markOfframpRefundFailed(manager: EntityManager, intent: WalletOfframpIntent): Promise<WalletOfframpIntent> {
  return moveOfframpIntent(manager, intent, 'refund_failed', { completed_at: new Date() }, null);
}

/** Throws 409 `offramp_intent_state_changed` unless `intent` may be canceled now (checked before the chain is asked). */
export function assertOfframpCancelable(intent: WalletOfframpIntent): void {
  offrampTransitions.assert(intent.status, 'canceled');
}

/** `awaiting_funds` -> `canceled` by the holder, stamping `completed_at`; event `offramp_intent.canceled` with `request`. */
export async function cancelOfframp(
  manager: EntityManager,
  intent: WalletOfframpIntent,
  request: RequestRef | null,
): Promise<WalletOfframpIntent> {
  return moveOfframpIntent(manager, intent, 'canceled', { completed_at: new Date() }, request);
}

/** Notes a short transit deposit past the funding deadline (still `awaiting_funds`): what arrived and `funding_expired`, before the refund. */
export async function noteOfframpShortFunding(manager: EntityManager, id: string, change: { receivedMinor: string }): Promise<void> {
  await manager.query(
    `UPDATE wallet_offramp_intents SET received_minor = $2, failure_reason = 'funding_expired', updated_at = now() WHERE id = $1 AND status = 'awaiting_funds'`,
    [id, change.receivedMinor],
  );
}

/** Notes why the rail did not pay (`payment_failed` / `payment_returned` with the rail's reason), before the refund. */
export async function noteOfframpPaymentFailure(
  manager: EntityManager,
  id: string,
  change: { reason: OfframpFailureReason; returnReason: string | null },
): Promise<void> {
  await manager.query('UPDATE wallet_offramp_intents SET failure_reason = $2, return_reason = $3, updated_at = now() WHERE id = $1', [
    id,
    change.reason,
    change.returnReason,
  ]);
}
