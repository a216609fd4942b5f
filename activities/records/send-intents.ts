/**
 * Send intent records (spec 2.5, 6 `send_intent.*`): the locked read and one function per
 * transition of domain/wallet-sends.ts `sendIntentTransitions`, each moving the intent in memory
 * through the table, setting the fields that move with the status, saving it and writing its
 * `send_intent.<status>` event in the caller's transaction. A move the table refuses throws
 * IllegalTransition (409).
 */
import type { EntityManager } from 'typeorm';
import { notFound } from '../../domain/errors';
import { sendIntentTransitions, type SendFailureReason, type SendIntentStatus } from '../../domain/wallet-sends';
import { WalletSendIntent } from '../../entities';
import { emitEvent, type RequestRef } from '../../lib/outbox';
import { scoped } from '../../lib/scoped';
import { sendIntentView } from '../../views/wallet-sends';

/** Locks (`FOR UPDATE`) send intent `id`: of `scope` when given (a command), any otherwise (a workflow's own); null when absent. */
export async function lockSendIntent(
  manager: EntityManager,
  id: string,
  scope?: { accountId: string; livemode: boolean },
): Promise<WalletSendIntent | null> {
  if (scope) return scoped(scope, manager).lock(WalletSendIntent, { id }, () => notFound(`No such send intent: ${id}.`, 'id'));
  return manager.findOne(WalletSendIntent, { where: { id }, lock: { mode: 'pessimistic_write' } });
}

async function moveSendIntent(
  m: EntityManager,
  intent: WalletSendIntent,
  to: SendIntentStatus,
  set: Partial<WalletSendIntent>,
  request: RequestRef | null,
): Promise<WalletSendIntent> {
  sendIntentTransitions.move(intent, to);
  Object.assign(intent, set);
  const saved = await m.save(intent);
  await emitEvent(m, {
    accountId: saved.account_id,
    livemode: saved.livemode,
    type: `send_intent.${to}`,
    objectType: 'send_intent',
    objectId: saved.id,
    object: sendIntentView(saved),
    request,
  });
  return saved;
}

/** `created` -> `expired` (never signed before `expires_at`). */
export async function expireSendIntent(
  manager: EntityManager,
  intent: WalletSendIntent,
  request: RequestRef | null = null,
): Promise<WalletSendIntent> {
  return moveSendIntent(manager, intent, 'expired', {}, request);
}

/** -> `source_submitted`: the signed transfer is on chain as built; stamps `submitted_at`. */
export async function submitSendIntent(
  manager: EntityManager,
  intent: WalletSendIntent,
  change: { at?: Date } = {},
  request: RequestRef | null = null,
): Promise<WalletSendIntent> {
  return moveSendIntent(manager, intent, 'source_submitted', { submitted_at: change.at ?? new Date() }, request);
}

/** `source_submitted` -> `bridging_started` (a bridge route). */
export async function startSendIntentBridging(
  manager: EntityManager,
  intent: WalletSendIntent,
  request: RequestRef | null = null,
): Promise<WalletSendIntent> {
  return moveSendIntent(manager, intent, 'bridging_started', {}, request);
}

/**
 * -> `settled`: stamps `settled_at` with the delivery hash (the source transfer's on a direct route,
 * the bridge's delivery otherwise) and, when the bridge reports it, the amount delivered (minor units).
 */
export async function settleSendIntent(
  manager: EntityManager,
  intent: WalletSendIntent,
  change: { deliveryTxHash?: string; amountOutMinor?: string; at?: Date } = {},
  request: RequestRef | null = null,
): Promise<WalletSendIntent> {
  const set: Partial<WalletSendIntent> = { settled_at: change.at ?? new Date() };
  if (change.deliveryTxHash !== undefined) set.delivery_tx_hash = change.deliveryTxHash;
  if (change.amountOutMinor !== undefined) set.amount_out_minor = change.amountOutMinor;
  return moveSendIntent(manager, intent, 'settled', set, request);
}

/** -> `failed` with `failure_reason` and `failed_at`. */
export async function failSendIntent(
  manager: EntityManager,
  intent: WalletSendIntent,
  change: { reason: SendFailureReason; at?: Date },
  request: RequestRef | null = null,
): Promise<WalletSendIntent> {
  return moveSendIntent(manager, intent, 'failed', { failure_reason: change.reason, failed_at: change.at ?? new Date() }, request);
}
