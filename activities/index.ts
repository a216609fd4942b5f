/**
 * The activities the worker registers: exactly the functions the workflows call, one object per
 * workflow (`<workflow>Activities` in `activities/<area>/activities.ts`, each `satisfies` the
 * activity interface of its contract, contracts/<object>.ts). Commands, queries and signals are
 * plain functions of their area and are never registered.
 */
import { paymentWorkflowActivities, xchainPaymentWorkflowActivities } from './payments/activities';
import { paymentLinkWorkflowActivities } from './payment-links/activities';
import { webhookEndpointWorkflowActivities } from './webhooks/activities';
import { payoutWorkflowActivities } from './payouts/activities';
import { payrollItemWorkflowActivities, payrollRunWorkflowActivities } from './payroll/activities';
import { sendIntentWorkflowActivities } from './send-intents/activities';
import { offrampWorkflowActivities } from './offramp-intents/activities';
import { depositIntentWorkflowActivities } from './deposit-intents/activities';
import { conversionWorkflowActivities } from './conversions/activities';
import { virtualAccountWorkflowActivities } from './virtual-accounts/activities';
import { customerWorkflowActivities } from './customers/activities';
import { orderWorkflowActivities } from './orders/activities';
import { subscriptionWorkflowActivities } from './subscriptions/activities';

export const activities = {
  ...paymentWorkflowActivities,
  ...xchainPaymentWorkflowActivities,
  ...paymentLinkWorkflowActivities,
  ...webhookEndpointWorkflowActivities,
  ...payoutWorkflowActivities,
  ...payrollRunWorkflowActivities,
  ...payrollItemWorkflowActivities,
  ...sendIntentWorkflowActivities,
  ...virtualAccountWorkflowActivities,
  ...offrampWorkflowActivities,
  ...customerWorkflowActivities,
  ...depositIntentWorkflowActivities,
  ...conversionWorkflowActivities,
  ...orderWorkflowActivities,
  ...subscriptionWorkflowActivities,
};
