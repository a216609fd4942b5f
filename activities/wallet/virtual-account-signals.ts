/**
 * Starting and waking virtual-account workflows (workflows/virtual-account.ts; spec 4.5): after a
 * create, a status change or a recorded credit (signalWithStart heals a lost start), and the
 * recovery sweep at worker start.
 */
import { db } from '../../lib/db';
import { signalWithStart, startIfAbsent } from '../../temporal/client';
import { virtualAccountUpdateSignal, virtualAccountWorkflow } from '../../workflows/virtual-account';

/** Virtual account `id` changed or received a credit: its workflow settles what is pending (started if absent). */
export async function wakeVirtualAccount(id: string, accountId: string): Promise<void> {
  await signalWithStart(virtualAccountWorkflow, { workflowId: id, args: [{ virtualAccountId: id }], accountId, signal: virtualAccountUpdateSignal, signalArgs: [] });
}

/** Recovery sweep at worker start: a workflow for every active wallet-funding account or one with an unsettled credit. */
export async function ensureVirtualAccountWorkflows(batch = 500): Promise<number> {
  let after = '';
  let n = 0;
  for (;;) {
    const rows: Array<{ id: string; account_id: string }> = await db().query(
      `SELECT v.id, v.account_id FROM wallet_virtual_accounts v
        WHERE v.id > $1 AND v.purpose = 'wallet_funding'
          AND (v.status = 'active' OR EXISTS (SELECT 1 FROM wallet_virtual_account_credits c WHERE c.virtual_account_id = v.id AND c.status = 'received'))
        ORDER BY v.id LIMIT $2`, [after, batch]);
    for (const r of rows) await startIfAbsent(virtualAccountWorkflow, { workflowId: r.id, args: [{ virtualAccountId: r.id }], accountId: r.account_id });
    n += rows.length;
    if (rows.length < batch) return n;
    after = rows[rows.length - 1].id;
  }
}
