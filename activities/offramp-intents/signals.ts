/**
 * Starting and signalling the off-ramp intent's workflow (contracts/offramp-intent.ts; workflow id =
 * intent id, `AccountId`): what commands call after their commit (signalWithStart heals a lost
 * start), the rail's and the chain's notifications, and the recovery sweep at worker start.
 */
import { offrampIntentContract } from '../../contracts/offramp-intent';
import { offrampTransitions } from '../../domain/offramp';
import { db, forEachByKeyset } from '../../lib/db';
import { sqlStatusList } from '../../domain/payments';
import { accountOf } from '../records/account-of';
import { startIfAbsent, startOrSignal } from '../../temporal/client';

/** Off-ramp intent `id` changed (created, canceled, the rail moved, the transit deposit arrived): its workflow re-reads it. */
export async function signalOfframpIntent(id: string, accountId: string): Promise<void> {
  await startOrSignal(offrampIntentContract, { id, accountId }, offrampIntentContract.signals.update);
}

/** The rail or the chain reported a change for `ref`: when it is an off-ramp intent (`ofr_`), its workflow re-reads. False otherwise. */
export async function notifyOfframpIntentUpdate(ref: string): Promise<boolean> {
  if (!ref.startsWith('ofr_')) return false;
  const accountId = await accountOf('wallet_offramp_intents', ref);
  if (!accountId) return false;
  await signalOfframpIntent(ref, accountId);
  return true;
}

/** A transfer reached `address` on the wallet's chain: wakes the off-ramp intent whose transit address it is. */
export async function notifyOfframpTransfer(input: { chain: string; to_address: string }): Promise<void> {
  const rows: Array<{ id: string; account_id: string }> = await db().query(
    `SELECT id, account_id FROM wallet_offramp_intents WHERE chain = $1 AND lower(transit_address) = lower($2) AND status = 'awaiting_funds'`,
    [input.chain, input.to_address],
  );
  for (const r of rows) await signalOfframpIntent(r.id, r.account_id);
}

/** Recovery sweep at worker start: a workflow for every off-ramp intent in the table's open set (not terminal). */
export async function ensureOfframpWorkflows(batch = 500): Promise<number> {
  return forEachByKeyset(
    `SELECT id, account_id FROM wallet_offramp_intents WHERE id > $1 AND status IN (${sqlStatusList(offrampTransitions.open)}) ORDER BY id LIMIT $2`,
    (r) => startIfAbsent(offrampIntentContract, { id: r.id, accountId: r.account_id }),
    batch,
  );
}
