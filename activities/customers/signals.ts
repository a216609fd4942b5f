/** Starting and waking customer workflows (contracts/customer.ts; spec 4.7): after a link or a provider decision. */
import { accountOf } from '../records/account-of';
import { customerContract } from '../../contracts/customer';
import { startOrSignal } from '../../temporal/client';

/** Customer `id` changed at the provider: its workflow re-reads it (started if absent). */
export async function signalCustomer(id: string, accountId: string): Promise<void> {
  await startOrSignal(customerContract, { id, accountId }, customerContract.signals.update);
}

/** The provider decided for `customerId` (simulator or callback): wakes its workflow; false when unknown. */
export async function notifyCustomerDecision(customerId: string): Promise<boolean> {
  const accountId = await accountOf('customers', customerId);
  if (!accountId) return false;
  await signalCustomer(customerId, accountId);
  return true;
}
