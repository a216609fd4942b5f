/** Starting and waking customer workflows (contracts/customer.ts; spec 4.7): after a link or a provider decision. */
import { customerContract } from '../../contracts/customer';
import { db } from '../../lib/db';
import { startOrSignal } from '../../temporal/client';

/** Customer `id` changed at the provider: its workflow re-reads it (started if absent). */
export async function signalCustomer(id: string, accountId: string): Promise<void> {
  await startOrSignal(customerContract, { id, accountId }, customerContract.signals.update);
}

/** The provider decided for `customerId` (simulator or callback): wakes its workflow; false when unknown. */
export async function notifyCustomerDecision(customerId: string): Promise<boolean> {
  const rows: Array<{ account_id: string }> = await db().query('SELECT account_id FROM customers WHERE id = $1', [customerId]);
  if (!rows[0]) return false;
  await signalCustomer(customerId, rows[0].account_id);
  return true;
}
