/**
 * Starting and signalling subscription workflows (workflows/subscription.ts; workflow id = the
 * subscription id, `AccountId`): what commands call after their commit (signalWithStart heals a
 * lost start) and the recovery sweep at worker start.
 */
import { forEachByKeyset } from '../../lib/db';
import { signalWithStart, startIfAbsent } from '../../temporal/client';
import { subscriptionChangedSignal, subscriptionWorkflow } from '../../workflows/subscription';

/** Subscription `id` was created or changed (pause, resume, cancel): its workflow re-reads it, started if needed. */
export async function signalSubscription(id: string, accountId: string): Promise<void> {
  await signalWithStart(subscriptionWorkflow, { workflowId: id, args: [{ subscriptionId: id }], accountId, signal: subscriptionChangedSignal, signalArgs: [] });
}

/** Recovery sweep at worker start: a workflow for every subscription still billing (active, past_due, paused). */
export async function ensureSubscriptionWorkflows(batch = 500): Promise<number> {
  return forEachByKeyset(`SELECT id, account_id FROM subscriptions WHERE id > $1 AND status IN ('active', 'past_due', 'paused') ORDER BY id LIMIT $2`,
    (r) => startIfAbsent(subscriptionWorkflow, { workflowId: r.id, args: [{ subscriptionId: r.id }], accountId: r.account_id }), batch);
}
