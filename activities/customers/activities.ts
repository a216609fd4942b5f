/** The activities the customer workflow calls (workflows/customer.ts). */
import { syncCustomerVerification } from './commands';

export const customerWorkflowActivities = { syncCustomerVerification };
export type CustomerWorkflowActivities = typeof customerWorkflowActivities;
