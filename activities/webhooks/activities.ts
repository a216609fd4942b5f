/**
 * Webhook activities (spec 4.10, 6): what workflows/webhook-endpoint.ts calls, and only that
 * (`webhookEndpointWorkflowActivities`): the endpoint drain (./drain.ts), which sends due deliveries
 * and writes their attempts (./record.ts). The URL rule is ./url.ts, the guarded HTTP leg ./http.ts,
 * the status rules domain/webhooks.ts, the schedule domain/webhook-schedule.ts.
 */
import { drainEndpoint } from './drain';

export type { DrainSummary, FailingDelivery } from './drain';

/** The activities of workflows/webhook-endpoint.ts (registered by the worker, activities/index.ts). */
export const webhookEndpointWorkflowActivities = { drainEndpoint };
/** What workflows/webhook-endpoint.ts proxies. */
export type WebhookEndpointWorkflowActivities = typeof webhookEndpointWorkflowActivities;
