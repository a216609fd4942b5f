/**
 * Deposit intent records (spec 2.5, 6 `deposit_intent.*`): the locked read, the outbox writer of the
 * intent's catalogued events (DEPOSIT_INTENT_EVENTS) and one function per transition of
 * domain/wallet-deposits.ts `depositIntentTransitions`, each moving the intent in memory through
 * the table, setting the fields that move with the status, saving it and writing its event in the
 * caller's transaction. A move the table refuses throws IllegalTransition (409). Amounts are
 * bigint minor units as strings.
 */
import type { EntityManager } from 'typeorm';
import { DEPOSIT_INTENT_EVENTS, depositIntentTransitions, type DepositIntentStatus } from '../../domain/wallet-deposits';
import { WalletDepositIntent } from '../../entities';
import { emitEvent, type RequestRef } from '../../lib/outbox';
import { depositIntentView } from '../../views/wallet-deposits';

/** Writes the `deposit_intent.*` event of `intent`'s status (catalogued in DEPOSIT_INTENT_EVENTS) in transaction `m`. */
export async function emitDepositIntentEvent(
  manager: EntityManager,
  intent: WalletDepositIntent,
  request: RequestRef | null = null,
): Promise<void> {
  await emitEvent(manager, {
    accountId: intent.account_id,
    livemode: intent.livemode,
    type: DEPOSIT_INTENT_EVENTS[intent.status as DepositIntentStatus],
    objectType: 'wallet_deposit_intent',
    objectId: intent.id,
    object: depositIntentView(intent),
    relatedIds: [intent.wallet_id],
    request,
  });
}

/** Locks (`FOR UPDATE`) deposit intent `id` (a workflow's own); null when absent. */
export async function lockDepositIntent(manager: EntityManager, id: string): Promise<WalletDepositIntent | null> {
  return manager.findOne(WalletDepositIntent, { where: { id }, lock: { mode: 'pessimistic_write' } });
}

async function moveDepositIntent(
  m: EntityManager,
  intent: WalletDepositIntent,
  to: DepositIntentStatus,
  set: Partial<WalletDepositIntent>,
): Promise<WalletDepositIntent> {
  depositIntentTransitions.move(intent, to);
  Object.assign(intent, set);
  const saved = await m.save(intent);
  await emitDepositIntentEvent(m, saved);
  return saved;
}

/** `awaiting_funds` -> `source_detected`: USDC reached the deposit address (total received, the first transfer's hash and sender). */
export async function detectDepositIntentSource(
  manager: EntityManager,
  intent: WalletDepositIntent,
  change: { receivedMinor: string; sourceTxHash: string; sourceFromAddress: string | null },
): Promise<WalletDepositIntent> {
  return moveDepositIntent(manager, intent, 'source_detected', {
    received_minor: change.receivedMinor,
    source_tx_hash: change.sourceTxHash,
    source_from_address: change.sourceFromAddress,
  });
}

/** `source_detected` -> `bridging`: the bridge holds `receivedMinor`. */
export async function startDepositIntentBridging(
  manager: EntityManager,
  intent: WalletDepositIntent,
  change: { receivedMinor: string },
): Promise<WalletDepositIntent> {
  return moveDepositIntent(manager, intent, 'bridging', { received_minor: change.receivedMinor });
}

/** -> `settled`: the bridge delivered `deliveredMinor` to the wallet (delivery hash when known). */
export async function settleDepositIntent(
  manager: EntityManager,
  intent: WalletDepositIntent,
  change: { receivedMinor: string; deliveredMinor: string; deliveryTxHash: string | null },
): Promise<WalletDepositIntent> {
  return moveDepositIntent(manager, intent, 'settled', {
    received_minor: change.receivedMinor,
    delivered_minor: change.deliveredMinor,
    delivery_tx_hash: change.deliveryTxHash,
  });
}

/** -> `recovering` (`bridge_failed`): the bridge failed holding funds that go back to the refund address. */
export async function startDepositIntentRecovery(
  manager: EntityManager,
  intent: WalletDepositIntent,
  change: { receivedMinor: string },
): Promise<WalletDepositIntent> {
  return moveDepositIntent(manager, intent, 'recovering', { received_minor: change.receivedMinor, failure_reason: 'bridge_failed' });
}

/** -> `manual_recovery_required` (`no_refund_address`): held funds with nowhere to return them (what was received, when known). */
export async function requireDepositIntentManualRecovery(
  manager: EntityManager,
  intent: WalletDepositIntent,
  change: { receivedMinor?: string } = {},
): Promise<WalletDepositIntent> {
  const set: Partial<WalletDepositIntent> = { failure_reason: 'no_refund_address' };
  if (change.receivedMinor !== undefined) set.received_minor = change.receivedMinor;
  return moveDepositIntent(manager, intent, 'manual_recovery_required', set);
}

/** -> `failed` with `reason` (and the recovery transfer's hash when funds were returned). */
export async function failDepositIntent(
  manager: EntityManager,
  intent: WalletDepositIntent,
  change: { reason: string; recoveryTxHash?: string | null },
): Promise<WalletDepositIntent> {
  const set: Partial<WalletDepositIntent> = { failure_reason: change.reason };
  if (change.recoveryTxHash !== undefined) set.recovery_tx_hash = change.recoveryTxHash;
  return moveDepositIntent(manager, intent, 'failed', set);
}

/** `awaiting_funds` -> `expired` (nothing arrived before `expires_at`). */
export async function markDepositIntentExpired(manager: EntityManager, intent: WalletDepositIntent): Promise<WalletDepositIntent> {
  return moveDepositIntent(manager, intent, 'expired', { failure_reason: null });
}
