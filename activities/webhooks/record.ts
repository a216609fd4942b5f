/**
 * Writing webhook attempts (spec 4.10 webhook rows, 6): a batch of attempt results of one endpoint
 * in one transaction (attempt rows, delivery statuses through their transition table, the endpoint's
 * failure streak and auto-disable), and cancelling an endpoint's live deliveries. Called by the
 * drain activity (./drain.ts) only. Status rules: domain/webhooks.ts; schedule and streak:
 * domain/webhook-schedule.ts.
 */
import type { EntityManager } from 'typeorm';
import { ENDPOINT_DISABLED_EVENT_TYPE } from '../../domain/event-types';
import { failureStreakChange } from '../../domain/webhook-schedule';
import {
  AUTO_DISABLE_CONSECUTIVE_FAILURES, DELIVERY_STATUS_REPEATS, LIVE_DELIVERY_STATUSES, webhookDeliveryTransitions, webhookEndpointStatus,
  webhookEndpointTransitions, type WebhookDeliveryStatus,
} from '../../domain/webhooks';
import { WebhookEndpoint } from '../../entities';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { logger } from '../../lib/logger';
import { emitEvent } from '../../lib/outbox';
import { moveRows, moveRowsEach } from '../../lib/status-writes';
import { webhookEndpointView } from '../../views/webhook';
import type { HttpResult } from './http';

/** The statuses an attempt leaves its delivery in. */
const ATTEMPT_OUTCOMES: readonly WebhookDeliveryStatus[] = ['succeeded', 'retrying', 'failed'];

/** One finished attempt, ready to be written. */
export interface AttemptRecord {
  deliveryId: string;
  /** 1-based attempt number (the delivery's `attempt_count` + 1 when it was taken). */
  attempt: number;
  http: HttpResult;
  outcome: 'succeeded' | 'retrying' | 'failed';
  /** When the next attempt is due (`retrying` only), else null. */
  nextAttemptAt: Date | null;
}

/**
 * Writes `records` (attempts of endpoint `endpointId`, in completion order) in one transaction:
 * the `webhook_attempts` rows (a repeat of an attempt number is ignored), each delivery's status,
 * attempt count, last status/error, `next_attempt_at` and `delivered_at` (only while the delivery
 * is still live: a delivery made final meanwhile is left alone), and the endpoint's consecutive
 * failure count. When a delivery ends `failed` and the count reaches
 * AUTO_DISABLE_CONSECUTIVE_FAILURES the endpoint is disabled with `webhook_endpoint.disabled`.
 * Returns whether the endpoint is still enabled afterwards. Throws on database errors only.
 */
export async function recordAttempts(endpointId: string, records: AttemptRecord[]): Promise<{ enabled: boolean }> {
  if (records.length === 0) return { enabled: true };
  return transaction(async (m) => {
    // The partition key is the delivery's creation time (migration 1764620000000): the join fills it
    // and writes no attempt of an unknown delivery (the table has no foreign key).
    await m.query(
      `INSERT INTO webhook_attempts(id, delivery_id, attempt_number, status_code, error, latency_ms, response_excerpt, delivery_created_at)
       SELECT t.id, t.delivery_id, t.attempt_number, t.status_code, t.error, t.latency_ms, t.response_excerpt, d.created_at
         FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::text[], $6::int[], $7::text[])
              AS t(id, delivery_id, attempt_number, status_code, error, latency_ms, response_excerpt)
         JOIN webhook_deliveries d ON d.id = t.delivery_id
       ON CONFLICT (delivery_id, attempt_number, delivery_created_at) DO NOTHING`,
      [records.map(() => newId('wha_')), records.map((r) => r.deliveryId), records.map((r) => r.attempt), records.map((r) => r.http.statusCode),
        records.map((r) => r.http.error), records.map((r) => r.http.latencyMs), records.map((r) => r.http.excerpt)]);
    // Every outcome written here may follow `pending` or `retrying` (domain/webhooks.ts table, with
    // `retrying` written again on a further failure); the per-row guard leaves a delivery that
    // became final meanwhile (cancelled) untouched.
    await moveRowsEach(m, webhookDeliveryTransitions, {
      sqlTable: 'webhook_deliveries', alias: 'd', to: ATTEMPT_OUTCOMES, repeat: DELIVERY_STATUS_REPEATS,
      rows: 'unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::text[], $6::timestamptz[]) AS t(id, target, attempt, code, err, next_at)',
      params: [records.map((r) => r.deliveryId), records.map((r) => r.outcome), records.map((r) => r.attempt), records.map((r) => r.http.statusCode),
        records.map((r) => r.http.error), records.map((r) => r.nextAttemptAt)],
      set: `attempt_count = GREATEST(d.attempt_count, t.attempt), last_status_code = t.code,
            last_error = CASE WHEN t.target = 'succeeded' THEN NULL ELSE t.err END, next_attempt_at = t.next_at,
            delivered_at = CASE WHEN t.target = 'succeeded' THEN now() ELSE d.delivered_at END,
            workflow_started_at = COALESCE(d.workflow_started_at, now()), held_at = NULL, updated_at = now()`,
    });
    const { reset, failures } = failureStreakChange(records.map((r) => r.outcome));
    if (!reset && failures === 0) return { enabled: true };
    // TypeORM answers UPDATE ... RETURNING with [rows, rowCount].
    const [rows]: [Array<{ consecutive_failures: number }>, number] = await m.query(
      `UPDATE webhook_endpoints SET consecutive_failures = CASE WHEN $2 THEN 0 ELSE consecutive_failures END + $3
        WHERE id = $1 AND NOT ($2 AND $3 = 0 AND consecutive_failures = 0) RETURNING consecutive_failures`, [endpointId, reset, failures]);
    const streak = rows[0]?.consecutive_failures ?? 0;
    if (records.some((r) => r.outcome === 'failed') && streak >= AUTO_DISABLE_CONSECUTIVE_FAILURES) {
      return { enabled: !(await autoDisable(m, endpointId)) };
    }
    return { enabled: true };
  });
}

/**
 * Marks live deliveries `cancelled` with `reason` as last error: all of endpoint `endpointId`, or
 * only `ids` among them (their event is gone). Returns how many.
 */
export async function cancelLiveDeliveries(endpointId: string, reason: string, ids?: string[]): Promise<number> {
  if (ids && ids.length === 0) return 0;
  const moved = await moveRows(db(), webhookDeliveryTransitions, {
    sqlTable: 'webhook_deliveries', where: 'endpoint_id = $1 AND ($3::text[] IS NULL OR id = ANY($3))', params: [endpointId, reason, ids ?? null],
    to: 'cancelled', from: LIVE_DELIVERY_STATUSES, set: 'next_attempt_at = NULL, held_at = NULL, last_error = $2, updated_at = now()',
  });
  return moved.length;
}

/**
 * Disables an endpoint after repeated failures and emits `webhook_endpoint.disabled` (spec 2.11, 6)
 * inside `m`. Returns true when it disabled it (false if already disabled or deleted).
 */
async function autoDisable(m: EntityManager, endpointId: string): Promise<boolean> {
  const w = await m.findOne(WebhookEndpoint, { where: { id: endpointId }, lock: { mode: 'pessimistic_write' } });
  if (!w || !webhookEndpointTransitions.can(webhookEndpointStatus(w), 'disabled')) return false;
  w.enabled = false;
  w.disabled_reason = 'auto_disabled_repeated_failures';
  w.disabled_at = new Date();
  await m.save(w);
  await emitEvent(m, {
    accountId: w.account_id, livemode: w.livemode, type: ENDPOINT_DISABLED_EVENT_TYPE,
    objectType: 'webhook_endpoint', objectId: w.id, object: webhookEndpointView(w),
  });
  logger.warn({ endpoint_id: w.id, account_id: w.account_id }, 'webhook endpoint auto-disabled after repeated failures');
  return true;
}
