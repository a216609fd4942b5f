/**
 * Starting and signalling the send intent's workflow (contracts/send-intent.ts; workflow id = intent
 * id, `AccountId`): what commands call after their commit (signalWithStart heals a lost start), the
 * bridge's notification, and the recovery sweep at worker start.
 */
import { sendIntentContract } from '../../contracts/send-intent';
import { sendIntentTransitions } from '../../domain/wallet-sends';
import { forEachByKeyset } from '../../lib/db';
import { sqlStatusList } from '../../domain/payments';
import { accountOf } from '../records/account-of';
import { startIfAbsent, startOrSignal } from '../../temporal/client';

/** Intent `id` changed (created, hash recorded, bridge moved): its workflow re-reads it (started if absent). */
export async function wakeSendIntent(id: string, accountId: string): Promise<void> {
  await startOrSignal(sendIntentContract, { id, accountId }, sendIntentContract.signals.update);
}

/** The bridge reported a change of the transfer whose client reference is `id`; false when it is not a send intent. */
export async function notifySendIntentBridgeUpdate(id: string): Promise<boolean> {
  if (!id.startsWith('wsi_')) return false;
  const accountId = await accountOf('wallet_send_intents', id);
  if (!accountId) return false;
  await wakeSendIntent(id, accountId);
  return true;
}

/** Recovery sweep at worker start: a workflow for every open intent that has none. Returns how many it looked at. */
export async function ensureSendIntentWorkflows(batch = 500): Promise<number> {
  return forEachByKeyset(
    `SELECT id, account_id FROM wallet_send_intents WHERE id > $1 AND status IN (${sqlStatusList(sendIntentTransitions.open)}) ORDER BY id LIMIT $2`,
    (r) => startIfAbsent(sendIntentContract, { id: r.id, accountId: r.account_id }),
    batch,
  );
}
