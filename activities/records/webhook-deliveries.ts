/**
 * Webhook delivery records (spec 4.10 webhook rows, 6): the delivery's status moves through
 * domain/webhooks.ts `webhookDeliveryTransitions` in SQL (lib/status-writes.ts), with the fields
 * that move with it: a batch of attempt outcomes, and cancelling an endpoint's live deliveries.
 */
import type { EntityManager } from 'typeorm';
import {
  DELIVERY_STATUS_REPEATS,
  LIVE_DELIVERY_STATUSES,
  webhookDeliveryTransitions,
  type WebhookDeliveryStatus,
} from '../../domain/webhooks';
import { db } from '../../lib/db';
import { moveRows, moveRowsEach } from '../../lib/status-writes';

/** The statuses an attempt leaves its delivery in. */
const ATTEMPT_OUTCOMES: readonly WebhookDeliveryStatus[] = ['succeeded', 'retrying', 'failed'];

/** One attempt's outcome for its delivery: the status it leaves, its number, the HTTP status code and error, and when the next attempt is due. */
export interface DeliveryOutcome {
  deliveryId: string;
  outcome: 'succeeded' | 'retrying' | 'failed';
  attempt: number;
  statusCode: number | null;
  error: string | null;
  nextAttemptAt: Date | null;
}

/**
 * Writes each delivery's status, attempt count, last status/error, `next_attempt_at` and
 * `delivered_at` from `outcomes` inside `m`. Every outcome may follow `pending` or `retrying`
 * (with `retrying` written again on a further failure); the per-row guard leaves a delivery that
 * became final meanwhile (cancelled, or succeeded through another drain) untouched.
 */
export async function recordDeliveryOutcomes(manager: EntityManager, outcomes: DeliveryOutcome[]): Promise<void> {
  await moveRowsEach(manager, webhookDeliveryTransitions, {
    sqlTable: 'webhook_deliveries',
    alias: 'd',
    to: ATTEMPT_OUTCOMES,
    repeat: DELIVERY_STATUS_REPEATS,
    rows: 'unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::text[], $6::timestamptz[]) AS t(id, target, attempt, code, err, next_at)',
    params: [
      outcomes.map((r) => r.deliveryId),
      outcomes.map((r) => r.outcome),
      outcomes.map((r) => r.attempt),
      outcomes.map((r) => r.statusCode),
      outcomes.map((r) => r.error),
      outcomes.map((r) => r.nextAttemptAt),
    ],
    set: `attempt_count = GREATEST(d.attempt_count, t.attempt), last_status_code = t.code,
          last_error = CASE WHEN t.target = 'succeeded' THEN NULL ELSE t.err END, next_attempt_at = t.next_at,
          delivered_at = CASE WHEN t.target = 'succeeded' THEN now() ELSE d.delivered_at END,
          workflow_started_at = COALESCE(d.workflow_started_at, now()), held_at = NULL, updated_at = now()`,
  });
}

/**
 * Marks live deliveries `cancelled` with `reason` as last error: all of endpoint `endpointId`, or
 * only `ids` among them (their event is gone). Returns how many.
 */
export async function cancelLiveDeliveries(endpointId: string, reason: string, ids?: string[]): Promise<number> {
  if (ids && ids.length === 0) return 0;
  const moved = await moveRows(db(), webhookDeliveryTransitions, {
    sqlTable: 'webhook_deliveries',
    where: 'endpoint_id = $1 AND ($3::text[] IS NULL OR id = ANY($3))',
    params: [endpointId, reason, ids ?? null],
    to: 'cancelled',
    from: LIVE_DELIVERY_STATUSES,
    set: 'next_attempt_at = NULL, held_at = NULL, last_error = $2, updated_at = now()',
  });
  return moved.length;
}
