/**
 * Starting and signalling order workflows (contracts/order.ts; workflow id = the order id,
 * `AccountId`): what commands call after their commit (signalWithStart heals a lost start), the
 * provider's reports (the simulator), and the recovery sweep at worker start.
 */
import { accountOf } from '../records/account-of';
import { orderContract } from '../../contracts/order';
import { orderTransitions } from '../../domain/orders';
import { sqlStatusList } from '../../domain/payments';
import { forEachByKeyset } from '../../lib/db';
import { startIfAbsent, startOrSignal } from '../../temporal/client';

/** Order `id` changed (placed, cancelled, the provider reported): its workflow re-reads it, started if needed. */
export async function signalOrder(id: string, accountId: string): Promise<void> {
  await startOrSignal(orderContract, { id, accountId }, orderContract.signals.update);
}

/** The provider reported on order `id`: wakes its workflow. False when there is no such order. */
export async function notifyOrderUpdate(id: string): Promise<boolean> {
  const accountId = await accountOf('orders', id);
  if (!accountId) return false;
  await signalOrder(id, accountId);
  return true;
}

/** Recovery sweep at worker start: a workflow for every open order (the table's open set: pending, awaiting payment, processing). */
export async function ensureOrderWorkflows(batch = 500): Promise<number> {
  return forEachByKeyset(
    `SELECT id, account_id FROM orders WHERE id > $1 AND status IN (${sqlStatusList(orderTransitions.open)}) ORDER BY id LIMIT $2`,
    (r) => startIfAbsent(orderContract, { id: r.id, accountId: r.account_id }),
    batch,
  );
}
