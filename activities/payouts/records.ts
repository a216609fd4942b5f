/**
 * Shared reads of the payouts area (spec 2.6, 3): locking a payout row (the account's active
 * service wallet is activities/records/wallets.ts `findActiveWallet`). Used by commands.ts and activities.ts inside their transactions; the payout's
 * status changes and events are in its record module (activities/records/payouts.ts).
 */
import type { EntityManager } from 'typeorm';
import { notFound } from '../../domain/errors';
import { Payout } from '../../entities';
import { scoped } from '../../lib/scoped';
import type { AccountScope } from '../scope';

/** The `404 not_found` (param `id`) of an unknown payout. */
export const payoutNotFound = (id: string): Error => notFound(`No such payout: ${id}.`, 'id');

/**
 * Locks (`FOR UPDATE`) payout `id`: of `scope`'s account and mode when given (a command), any
 * payout otherwise (a workflow activity). 404 `not_found` when absent.
 */
export async function lockPayout(manager: EntityManager, id: string, scope?: AccountScope): Promise<Payout> {
  if (scope) return scoped(scope, manager).lock(Payout, { id }, () => payoutNotFound(id));
  const p = await manager.findOne(Payout, { where: { id }, lock: { mode: 'pessimistic_write' } });
  if (!p) throw payoutNotFound(id);
  return p;
}
