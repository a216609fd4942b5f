/**
 * Conversion records (spec 2.5, 6 `conversion.*`): the locked read, the outbox writer of the
 * conversion's catalogued events (CONVERSION_EVENTS) and one function per transition of
 * domain/wallet-deposits.ts `conversionTransitions`, each moving the conversion in memory through
 * the table, setting the fields that move with the status, saving it and writing its event in the
 * caller's transaction. A move the table refuses throws IllegalTransition (409
 * `conversion_state_changed`).
 */
import type { EntityManager } from 'typeorm';
import { notFound } from '../../domain/errors';
import {
  CONVERSION_EVENTS,
  conversionTransitions,
  type ConversionFailureReason,
  type ConversionStatus,
} from '../../domain/wallet-deposits';
import { WalletConversion } from '../../entities';
import { emitEvent, type RequestRef } from '../../lib/outbox';
import { scoped } from '../../lib/scoped';
import { conversionView } from '../../views/wallet-deposits';

/** Writes the `conversion.*` event of `conversion`'s status (catalogued in CONVERSION_EVENTS) in transaction `m`. */
export async function emitConversionEvent(
  manager: EntityManager,
  conversion: WalletConversion,
  request: RequestRef | null = null,
): Promise<void> {
  await emitEvent(manager, {
    accountId: conversion.account_id,
    livemode: conversion.livemode,
    type: CONVERSION_EVENTS[conversion.status as ConversionStatus],
    objectType: 'wallet_conversion',
    objectId: conversion.id,
    object: conversionView(conversion),
    relatedIds: [conversion.wallet_id],
    request,
  });
}

/** Locks (`FOR UPDATE`) conversion `id`: of `scope` when given (a command; 404 otherwise), any otherwise (a workflow's own); null when absent. */
export async function lockConversion(
  manager: EntityManager,
  id: string,
  scope?: { accountId: string; livemode: boolean },
): Promise<WalletConversion | null> {
  if (scope) return scoped(scope, manager).lock(WalletConversion, { id }, () => notFound(`No such conversion: ${id}.`, 'id'));
  return manager.findOne(WalletConversion, { where: { id }, lock: { mode: 'pessimistic_write' } });
}

async function moveConversion(
  m: EntityManager,
  conversion: WalletConversion,
  to: ConversionStatus,
  set: Partial<WalletConversion>,
  request: RequestRef | null,
): Promise<WalletConversion> {
  conversionTransitions.move(conversion, to);
  Object.assign(conversion, set);
  const saved = await m.save(conversion);
  await emitConversionEvent(m, saved, request);
  return saved;
}

/** Throws 409 `conversion_state_changed` unless `conversion` may take a signed hash now (checked before the hash is looked up). */
export function assertConversionSubmittable(conversion: WalletConversion): void {
  conversionTransitions.assert(conversion.status, 'submitted');
}

/** `built` -> `submitted` with the hash the holder signed, stamping `submitted_at`. */
export async function submitConversion(
  manager: EntityManager,
  conversion: WalletConversion,
  change: { sourceTxHash: string },
  request: RequestRef | null = null,
): Promise<WalletConversion> {
  return moveConversion(manager, conversion, 'submitted', { source_tx_hash: change.sourceTxHash, submitted_at: new Date() }, request);
}

/** `submitted` -> `settled` with the router's payout hash. */
export async function settleConversion(
  manager: EntityManager,
  conversion: WalletConversion,
  change: { settlementTxHash: string },
): Promise<WalletConversion> {
  return moveConversion(manager, conversion, 'settled', { settlement_tx_hash: change.settlementTxHash }, null);
}

/** -> `failed` with `reason`. */
export async function failConversion(
  manager: EntityManager,
  conversion: WalletConversion,
  change: { reason: ConversionFailureReason },
): Promise<WalletConversion> {
  return moveConversion(manager, conversion, 'failed', { failure_reason: change.reason }, null);
}
