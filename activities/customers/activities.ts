/** The activities the customer workflow calls (contracts/customer.ts `CustomerActivities`). */
import type { CustomerActivities } from '../../contracts/customer';
import { syncCustomerVerification } from './commands';

export const customerWorkflowActivities = { syncCustomerVerification } satisfies CustomerActivities;
