/**
 * Starting and waking send-intent workflows (workflows/send-intent.ts; spec 2.5, 4.5): what
 * commands call after their commit (signalWithStart heals a lost start), the bridge's
 * notification, and the recovery sweep at worker start.
 */
import { db } from '../../lib/db';
import { signalWithStart, startIfAbsent } from '../../temporal/client';
import { sendIntentUpdateSignal, sendIntentWorkflow } from '../../workflows/send-intent';

/** Intent `id` changed (created, hash recorded, bridge moved): its workflow re-reads it (started if absent). */
export async function wakeSendIntent(id: string, accountId: string): Promise<void> {
  await signalWithStart(sendIntentWorkflow, { workflowId: id, args: [{ intentId: id }], accountId, signal: sendIntentUpdateSignal, signalArgs: [] });
}

/** The bridge reported a change of the transfer whose client reference is `id`; false when it is not a send intent. */
export async function notifySendIntentBridgeUpdate(id: string): Promise<boolean> {
  if (!id.startsWith('wsi_')) return false;
  const rows: Array<{ account_id: string }> = await db().query('SELECT account_id FROM wallet_send_intents WHERE id = $1', [id]);
  if (!rows[0]) return false;
  await wakeSendIntent(id, rows[0].account_id);
  return true;
}

/** Recovery sweep at worker start: a workflow for every open intent that has none. Returns how many it looked at. */
export async function ensureSendIntentWorkflows(batch = 500): Promise<number> {
  let after = '';
  let n = 0;
  for (;;) {
    const rows: Array<{ id: string; account_id: string }> = await db().query(
      `SELECT id, account_id FROM wallet_send_intents WHERE id > $1 AND status IN ('created', 'source_submitted', 'bridging_started') ORDER BY id LIMIT $2`, [after, batch]);
    for (const r of rows) await startIfAbsent(sendIntentWorkflow, { workflowId: r.id, args: [{ intentId: r.id }], accountId: r.account_id });
    n += rows.length;
    if (rows.length < batch) return n;
    after = rows[rows.length - 1].id;
  }
}
