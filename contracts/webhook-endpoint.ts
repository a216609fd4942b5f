/**
 * Contract of a webhook endpoint's deliveries (workflows/webhook-endpoint.ts, workflow id = the
 * endpoint id `whe_...`; activities/webhooks/activities.ts `webhookEndpointWorkflowActivities`).
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import { defineContract } from './contract';

/** Arguments of webhookEndpointWorkflow. */
export interface WebhookEndpointArgs {
  endpointId: string;
}

/**
 * Why a run ended: nothing live and no `deliver` during the idle period (`idle`; runs recorded before
 * the idle wait ended so right after the drain), or the endpoint is closed (disabled, deleted, gone).
 */
export type WebhookEndpointOutcome = 'idle' | 'endpoint_disabled' | 'endpoint_deleted' | 'endpoint_not_found';

/** A live delivery that failed its last attempt (`retrying`), as the endpoint workflow reports it. */
export interface FailingDelivery {
  id: string;
  attempts: number;
  nextAttemptAtMs: number | null;
  lastError: string | null;
}

/**
 * What one drain call did and what the endpoint has left:
 * - `state`: `open` (sent what was due), `held` (delivery switch off; nothing sent), `closed` (the
 *   endpoint is disabled, deleted or gone; its live deliveries were cancelled);
 * - `sent` / `succeeded` / `retrying` / `failed` / `cancelled`: counts of this call;
 * - `live`: deliveries still `pending` or `retrying`; `due`: of those, due now (more work at once);
 * - `nextDueAtMs`: the earliest `next_attempt_at` in the future, or null;
 * - `failing`: up to FAILING_LISTED (activities/webhooks/drain.ts) `retrying` deliveries, next attempt first.
 */
export interface DrainSummary {
  state: 'open' | 'held' | 'closed';
  closedReason: 'endpoint_disabled' | 'endpoint_deleted' | 'endpoint_not_found' | null;
  sent: number;
  succeeded: number;
  retrying: number;
  failed: number;
  cancelled: number;
  live: number;
  due: number;
  nextDueAtMs: number | null;
  failing: FailingDelivery[];
}

/** The activities webhookEndpointWorkflow calls. */
export interface WebhookEndpointActivities {
  /** Drains endpoint `endpointId` at workflow time `nowMs` (activities/webhooks/drain.ts). */
  drainEndpoint(endpointId: string, nowMs: number): Promise<DrainSummary>;
}

export const webhookEndpointContract = defineContract<WebhookEndpointActivities>()({
  workflowType: 'webhookEndpointWorkflow',
  idPrefix: 'whe_',
  startArgs: (endpointId: string): [WebhookEndpointArgs] => [{ endpointId }],
  signals: {
    /**
     * New deliveries were committed, or the endpoint changed: drain now (wakes a run waiting for a
     * retry, a hold re-check or, idle, for new deliveries). Sent once per endpoint per dispatch pass. No arguments.
     */
    update: defineSignal('deliver'),
    /** Operator: the cause of a parked drain was fixed; run it again. No arguments. */
    retry: defineSignal('retry'),
  },
  queries: {
    /** A human-readable description of what the endpoint's deliveries wait for. */
    waitingFor: defineQuery<string>('waiting_for'),
    /** The last drain summary (counts, live and due deliveries, next retry, failing deliveries), or null before the first. */
    deliveries: defineQuery<DrainSummary | null>('deliveries'),
  },
});
