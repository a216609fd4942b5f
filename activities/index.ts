/**
 * Activities registered on the worker: one module per area (ARCHITECTURE.md). Each activity is one
 * DB transaction (with its outbox rows) or one provider call.
 */
import { paymentWorkflowActivities } from './payments/activities';
import { paymentLinkWorkflowActivities } from './payment-links/activities';
import * as webhooks from './webhooks';
import * as payouts from './payouts';

export const activities = { ...paymentWorkflowActivities, ...paymentLinkWorkflowActivities, ...webhooks, ...payouts };
export type Activities = typeof activities;
