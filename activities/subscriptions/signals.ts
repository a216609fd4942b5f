/**
 * Starting and signalling subscription workflows (contracts/subscription.ts; workflow id = the
 * subscription id, `AccountId`): what commands call after their commit (signalWithStart heals a
 * lost start) and the recovery sweep at worker start.
 */
import { subscriptionContract } from '../../contracts/subscription';
import { sqlStatusList } from '../../domain/payments';
import { subscriptionTransitions } from '../../domain/subscriptions';
import { forEachByKeyset } from '../../lib/db';
import { startIfAbsent, startOrSignal } from '../../temporal/client';

/** Subscription `id` was created or changed (pause, resume, cancel): its workflow re-reads it, started if needed. */
export async function signalSubscription(id: string, accountId: string): Promise<void> {
  await startOrSignal(subscriptionContract, { id, accountId }, subscriptionContract.signals.update);
}

/** Recovery sweep at worker start: a workflow for every subscription still billing (the table's open set: active, past_due, paused). */
export async function ensureSubscriptionWorkflows(batch = 500): Promise<number> {
  return forEachByKeyset(
    `SELECT id, account_id FROM subscriptions WHERE id > $1 AND status IN (${sqlStatusList(subscriptionTransitions.open)}) ORDER BY id LIMIT $2`,
    (r) => startIfAbsent(subscriptionContract, { id: r.id, accountId: r.account_id }),
    batch,
  );
}
