/**
 * Webhook activities (spec 4.10, 6): what contracts/webhook-endpoint.ts declares, and only that
 * (`webhookEndpointWorkflowActivities`): the endpoint drain (./drain.ts), which sends due deliveries
 * and writes their attempts (./record.ts). The URL rule is ./url.ts, the guarded HTTP leg ./http.ts,
 * the status rules domain/webhooks.ts, the schedule domain/webhook-schedule.ts.
 */
import type { WebhookEndpointActivities } from '../../contracts/webhook-endpoint';
import { drainEndpoint } from './drain';

/** The activities of contracts/webhook-endpoint.ts (registered by the worker, activities/index.ts). */
export const webhookEndpointWorkflowActivities = { drainEndpoint } satisfies WebhookEndpointActivities;
