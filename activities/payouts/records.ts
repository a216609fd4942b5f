/**
 * Shared records of the payouts area (spec 2.6, 3): locking a payout row, writing its outbox events
 * (the payout's wire form, views/payout.ts) and its status changes through the transition tables of
 * domain/payouts/statuses.ts. Used by commands.ts and activities.ts inside their transactions.
 */
import type { EntityManager } from 'typeorm';
import { notFound } from '../../domain/errors';
import { PAYOUT_ATTEMPT_TRANSITIONS, PAYOUT_TRANSITIONS, payoutAttemptSources, type PayoutAttemptStatus, type PayoutStatus } from '../../domain/payouts/statuses';
import { Payout, Wallet } from '../../entities';
import { emitEvent, type RequestRef } from '../../lib/outbox';
import { chainAdapter } from '../../providers/chain';
import { payoutEventView } from '../../views/payout';

/** Writes one outbox event per type in `types` carrying the payout's wire form (same transaction as `m`). */
export async function emitPayoutEvents(m: EntityManager, p: Payout, types: string[], request: RequestRef | null, related: string[] = []): Promise<void> {
  for (const type of types) {
    await emitEvent(m, {
      accountId: p.account_id, livemode: p.livemode, type, objectType: 'payout', objectId: p.id,
      object: payoutEventView(p), relatedIds: related, request,
    });
  }
}

/** Locks (`FOR UPDATE`) payout `id`, scoped to the account and mode when given; 404 when absent. */
export async function lockPayout(m: EntityManager, accountId: string | null, livemode: boolean | null, id: string): Promise<Payout> {
  const where: Record<string, unknown> = { id };
  if (accountId !== null) where.account_id = accountId;
  if (livemode !== null) where.livemode = livemode;
  const p = await m.findOne(Payout, { where, lock: { mode: 'pessimistic_write' } });
  if (!p) throw notFound(`No such payout: ${id}.`, 'id');
  return p;
}

/** The account's active service wallet on this network, or null. */
export async function activeWallet(m: EntityManager, accountId: string): Promise<Wallet | null> {
  return m.findOne(Wallet, { where: { account_id: accountId, network: chainAdapter().network, status: 'active' } });
}

/**
 * Moves `p` to `to` through the payout transition table (409 `payout_state_changed`, a
 * non-retryable IllegalTransition, when the table does not allow it). Does not save.
 */
export function movePayout(p: Payout, to: PayoutStatus): void {
  p.status = PAYOUT_TRANSITIONS.assert(p.status, to);
}

/**
 * Moves attempt `attemptId` to `to` in SQL, only from the statuses the attempt table allows
 * (`WHERE status IN (...)`): an attempt in any other status is left as is.
 */
export async function moveAttempt(m: EntityManager, attemptId: string, to: PayoutAttemptStatus): Promise<void> {
  await m.query(
    'UPDATE payout_attempts SET status = $2, updated_at = now() WHERE id = $1 AND status = ANY($3::text[])', [attemptId, to, payoutAttemptSources(to)]);
}

/** Moves an attempt entity to `to` through the attempt transition table (409 when not allowed). Does not save. */
export function moveAttemptEntity(at: { status: PayoutAttemptStatus }, to: PayoutAttemptStatus): void {
  at.status = PAYOUT_ATTEMPT_TRANSITIONS.assert(at.status, to);
}
