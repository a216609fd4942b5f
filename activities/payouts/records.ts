/**
 * Shared records of the payouts area (spec 2.6, 3): locking a payout row, writing its outbox events
 * (the payout's wire form, views/payout.ts) and the attempt's SQL status move through the attempt
 * transition table of domain/payouts/statuses.ts (payout rows move in memory through
 * `PAYOUT_TRANSITIONS.move`). Used by commands.ts and activities.ts inside their transactions.
 */
import type { EntityManager } from 'typeorm';
import { notFound } from '../../domain/errors';
import { PAYOUT_ATTEMPT_TRANSITIONS, type PayoutAttemptStatus } from '../../domain/payouts/statuses';
import { Payout, Wallet } from '../../entities';
import { emitEvent, type RequestRef } from '../../lib/outbox';
import { scoped } from '../../lib/scoped';
import { moveRows } from '../../lib/status-writes';
import { payoutEventView } from '../../views/payout';
import { findActiveWallet } from '../records/wallets';
import type { AccountScope } from '../scope';

/** Writes one outbox event per type in `types` carrying the payout's wire form (same transaction as `m`). */
export async function emitPayoutEvents(m: EntityManager, p: Payout, types: string[], request: RequestRef | null, related: string[] = []): Promise<void> {
  for (const type of types) {
    await emitEvent(m, {
      accountId: p.account_id, livemode: p.livemode, type, objectType: 'payout', objectId: p.id,
      object: payoutEventView(p), relatedIds: related, request,
    });
  }
}

/** The `404 not_found` (param `id`) of an unknown payout. */
export const payoutNotFound = (id: string): Error => notFound(`No such payout: ${id}.`, 'id');

/**
 * Locks (`FOR UPDATE`) payout `id`: of `scope`'s account and mode when given (a command), any
 * payout otherwise (a workflow activity). 404 `not_found` when absent.
 */
export async function lockPayout(m: EntityManager, id: string, scope?: AccountScope): Promise<Payout> {
  if (scope) return scoped(scope, m).lock(Payout, { id }, () => payoutNotFound(id));
  const p = await m.findOne(Payout, { where: { id }, lock: { mode: 'pessimistic_write' } });
  if (!p) throw payoutNotFound(id);
  return p;
}

/** The account's active service wallet on this network, or null: the one lookup of activities/records/wallets.ts, account-wide. */
export async function activeWallet(m: EntityManager, accountId: string): Promise<Wallet | null> {
  return findActiveWallet({ accountId }, m);
}

/**
 * Moves attempt `attemptId` to `to` in SQL, only from the statuses the attempt table allows
 * (lib/status-writes.ts `moveRows`): an attempt in any other status is left as is.
 */
export async function moveAttempt(m: EntityManager, attemptId: string, to: PayoutAttemptStatus): Promise<void> {
  await moveRows(m, PAYOUT_ATTEMPT_TRANSITIONS, { sqlTable: 'payout_attempts', where: 'id = $1', params: [attemptId], to, set: 'updated_at = now()' });
}
