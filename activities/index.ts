/**
 * Activities registered on the worker: one module per area (ARCHITECTURE.md). Each activity is one
 * DB transaction (with its outbox rows) or one provider call.
 */
import * as payins from './payins';
import * as links from './links';
import { webhookDeliveryWorkflowActivities } from './webhooks/activities';
import { payoutWorkflowActivities } from './payouts/activities';

export const activities = { ...payins, ...links, ...webhookDeliveryWorkflowActivities, ...payoutWorkflowActivities };
export type Activities = typeof activities;
