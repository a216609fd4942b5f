/** Starting and waking customer workflows (workflows/customer.ts; spec 4.7): after a link or a provider decision. */
import { db } from '../../lib/db';
import { signalWithStart } from '../../temporal/client';
import { customerUpdateSignal, customerWorkflow } from '../../workflows/customer';

/** Customer `id` changed at the provider: its workflow re-reads it (started if absent). */
export async function signalCustomer(id: string, accountId: string): Promise<void> {
  await signalWithStart(customerWorkflow, { workflowId: id, args: [{ customerId: id }], accountId, signal: customerUpdateSignal, signalArgs: [] });
}

/** The provider decided for `customerId` (simulator or callback): wakes its workflow; false when unknown. */
export async function notifyCustomerDecision(customerId: string): Promise<boolean> {
  const rows: Array<{ account_id: string }> = await db().query('SELECT account_id FROM customers WHERE id = $1', [customerId]);
  if (!rows[0]) return false;
  await signalCustomer(customerId, rows[0].account_id);
  return true;
}
