/**
 * Activities registered on the worker: one module per area (ARCHITECTURE.md). Each activity is one
 * DB transaction (with its outbox rows) or one provider call.
 */
import * as payins from './payments/activities';
import * as links from './payment-links/commands';
import * as webhooks from './webhooks';
import * as payouts from './payouts';

export const activities = { ...payins, ...links, ...webhooks, ...payouts };
export type Activities = typeof activities;
