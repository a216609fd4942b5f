/**
 * Starting and signalling the virtual account's workflow (contracts/virtual-account.ts; workflow id
 * = virtual account id, `AccountId`): what commands and credit intake call after their commit
 * (signalWithStart heals a lost start), and the recovery sweep at worker start.
 */
import { virtualAccountContract } from '../../contracts/virtual-account';
import { virtualAccountCreditTransitions, virtualAccountTransitions } from '../../domain/virtual-accounts';
import { forEachByKeyset } from '../../lib/db';
import { sqlStatusList } from '../../domain/payments';
import { startIfAbsent, startOrSignal } from '../../temporal/client';

/** Virtual account `id` changed or received a credit: its workflow settles what is pending (started if absent). */
export async function wakeVirtualAccount(id: string, accountId: string): Promise<void> {
  await startOrSignal(virtualAccountContract, { id, accountId }, virtualAccountContract.signals.update);
}

/** Recovery sweep at worker start: a workflow for every open (active) wallet-funding account or one with an open (received) credit. */
export async function ensureVirtualAccountWorkflows(batch = 500): Promise<number> {
  return forEachByKeyset(
    `SELECT v.id, v.account_id FROM wallet_virtual_accounts v
      WHERE v.id > $1 AND v.purpose = 'wallet_funding'
        AND (v.status IN (${sqlStatusList(virtualAccountTransitions.open)})
          OR EXISTS (SELECT 1 FROM wallet_virtual_account_credits c WHERE c.virtual_account_id = v.id AND c.status IN (${sqlStatusList(virtualAccountCreditTransitions.open)})))
      ORDER BY v.id LIMIT $2`,
    (r) => startIfAbsent(virtualAccountContract, { id: r.id, accountId: r.account_id }),
    batch,
  );
}
