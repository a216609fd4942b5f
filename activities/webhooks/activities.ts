/**
 * Webhook delivery activities (spec 4.10 webhook rows, 6): what workflows/webhook-delivery.ts
 * calls, and only that (`webhookDeliveryWorkflowActivities`). The endpoint URL rule is in
 * ./url.ts, the guarded HTTP leg in ./http.ts, the status rules in domain/webhooks.ts.
 *
 * One delivery = one event to one endpoint, driven by workflows/webhook-delivery.ts, which owns
 * the retry schedule. `attemptDelivery` makes one signed HTTP POST (Standard Webhooks:
 * `webhook-id`, `webhook-timestamp`, `webhook-signature`) and records it; it never retries by
 * itself. Signing secrets are decrypted only inside the activity, never passed through
 * workflow history.
 */
import { Webhook } from 'standardwebhooks';
import type { EntityManager } from 'typeorm';
import { ENDPOINT_DISABLED_EVENT_TYPE } from '../../domain/event-types';
import { DomainError } from '../../domain/errors';
import {
  DELIVERY_SWITCH, AUTO_DISABLE_CONSECUTIVE_FAILURES, assertDeliveryWrite, deliveryStatusesBefore, isFinalDeliveryStatus, LIVE_DELIVERY_STATUSES,
  webhookEndpointStatus, webhookEndpointTransitions, type WebhookDeliveryStatus,
} from '../../domain/webhooks';
import { EventRow, WebhookDelivery, WebhookEndpoint } from '../../entities';
import { eventView } from '../../views/event';
import { webhookEndpointView } from '../../views/webhook';
import { isSwitchOn } from '../../lib/switches';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { logger } from '../../lib/logger';
import { decrypt } from '../../lib/secrets';
import { emitEvent } from '../../lib/outbox';
import { type HttpResult, isSuccess, postWebhook } from './http';
import { parseEndpointUrl } from './url';

// ---------------------------------------------------------------------------------------------
// Delivery attempt
// ---------------------------------------------------------------------------------------------

/**
 * Outcome of one call of `attemptDelivery`:
 * - `succeeded`: 2xx received (final);
 * - `retrying`: failed, the workflow retries after `nextRetryInMs`;
 * - `failed`: failed with no retry left or not retryable (final);
 * - `held`: the delivery switch is off; nothing sent, no attempt recorded; retry the same number later;
 * - `cancelled`: the endpoint was disabled or deleted, or the delivery vanished (final);
 * - `done`: the delivery was already final (a repeated start); nothing sent.
 */
export interface AttemptResult {
  outcome: 'succeeded' | 'retrying' | 'failed' | 'held' | 'cancelled' | 'done';
  ok: boolean;
  retryable: boolean;
  statusCode: number | null;
  error: string | null;
}

/** Outcomes of an attempt that write the delivery's status (the others write nothing or only `held_at`). */
type WrittenOutcome = Extract<AttemptResult['outcome'], WebhookDeliveryStatus>;

/**
 * Activity: one HTTP attempt (number `attemptNumber`, 1-based) of delivery `deliveryId`.
 * POSTs the event envelope (api/views/event.ts) as JSON with the Standard Webhooks headers:
 * `webhook-id` = the event id (the same on every attempt and on replays, so receivers can
 * de-duplicate and recognise a replay), `webhook-timestamp` (Unix seconds),
 * `webhook-signature` (`v1,<base64 HMAC-SHA256>`; during a rotation overlap two space-separated
 * entries, new secret first). 10 s timeout; redirects are not followed (3xx = failure). The URL
 * rule is checked again (parseEndpointUrl: a refusal fails the delivery at once, `url_rejected`)
 * and the host re-resolved by the guarded agent on every new connection (a non-public answer is a
 * failed attempt, `destination_forbidden`, retried on the schedule).
 * Records a `webhook_attempts` row and updates the delivery (status, attempt_count,
 * last_status_code, last_error, next_attempt_at = now + `nextRetryInMs` when retrying,
 * delivered_at) and the endpoint's consecutive failure count (auto-disable, see
 * AUTO_DISABLE_CONSECUTIVE_FAILURES). `nextRetryInMs` null means this is the last attempt.
 * Never sends while the `api_v1.webhooks_delivery` switch is off (`held`), nor to a disabled or
 * deleted endpoint (the delivery becomes `cancelled`). Throws only on database errors.
 */
export async function attemptDelivery(deliveryId: string, attemptNumber: number, opts: { nextRetryInMs?: number | null } = {}): Promise<AttemptResult> {
  const nextRetryInMs = opts.nextRetryInMs ?? null;
  const c = await loadAttemptContext(deliveryId, attemptNumber);
  if (!c) return { outcome: 'cancelled', ok: false, retryable: false, statusCode: null, error: 'delivery_not_found' };
  if (isFinalDeliveryStatus(c.status)) return { outcome: 'done', ok: c.status === 'succeeded', retryable: false, statusCode: c.lastStatusCode, error: null };
  if (c.prior) {
    // This attempt already went out (a restarted run): report it rather than sending twice.
    const ok = isSuccess(c.prior.statusCode);
    return { outcome: ok ? 'succeeded' : nextRetryInMs === null ? 'failed' : 'retrying', ok, retryable: !ok, statusCode: c.prior.statusCode, error: c.prior.error };
  }
  if (!(await isSwitchOn(DELIVERY_SWITCH))) {
    // Marked so the dispatcher can nudge it the moment the switch is on again.
    await db().query(
      `UPDATE webhook_deliveries SET held_at = COALESCE(held_at, now()) WHERE id = $1 AND status = ANY($2)`, [deliveryId, LIVE_DELIVERY_STATUSES]);
    return { outcome: 'held', ok: false, retryable: true, statusCode: null, error: 'delivery_switched_off' };
  }
  const { endpoint, event } = c;
  if (!endpoint || endpoint.deleted_at || !endpoint.enabled) {
    await cancelDelivery(deliveryId, endpoint?.deleted_at ? 'endpoint_deleted' : 'endpoint_disabled');
    return { outcome: 'cancelled', ok: false, retryable: false, statusCode: null, error: 'endpoint_unavailable' };
  }
  if (!event) {
    await cancelDelivery(deliveryId, 'event_not_found');
    return { outcome: 'cancelled', ok: false, retryable: false, statusCode: null, error: 'event_not_found' };
  }

  let http: HttpResult;
  try {
    const url = parseEndpointUrl(endpoint.url);
    http = await send(url, endpoint, event);
  } catch (e) {
    const msg = e instanceof DomainError ? e.message : String((e as Error)?.message ?? e);
    http = { statusCode: null, error: `url_rejected: ${msg}`.slice(0, 500), latencyMs: 0, excerpt: null, retryable: false };
  }
  const ok = isSuccess(http.statusCode);
  const outcome: WrittenOutcome = ok ? 'succeeded' : (http.retryable && nextRetryInMs !== null ? 'retrying' : 'failed');
  assertDeliveryWrite(c.status, outcome);
  if (ok) await recordSuccess(deliveryId, endpoint.id, attemptNumber, http);
  else await transaction((m) => recordAttempt(m, deliveryId, endpoint.id, attemptNumber, http, outcome, nextRetryInMs));
  return { outcome, ok, retryable: !ok && http.retryable, statusCode: http.statusCode, error: http.error };
}

interface AttemptContext {
  status: WebhookDelivery['status'];
  lastStatusCode: number | null;
  /** The same attempt number already recorded (a restarted run), else null. */
  prior: { statusCode: number | null; error: string | null } | null;
  endpoint: WebhookEndpoint | null;
  event: EventRow | null;
}

/** Everything one attempt needs, in one round trip: the delivery, a prior record of this attempt, the endpoint and the event. Null if no such delivery. */
async function loadAttemptContext(deliveryId: string, attemptNumber: number): Promise<AttemptContext | null> {
  const rows: Array<Record<string, any>> = await db().query(
    `SELECT d.status AS d_status, d.last_status_code AS d_last_status_code,
            (pa.delivery_id IS NOT NULL) AS pa_exists, pa.status_code AS pa_status_code, pa.error AS pa_error,
            w.id AS w_id, w.url AS w_url, w.enabled AS w_enabled, w.deleted_at AS w_deleted_at, w.secret_ciphertext AS w_secret_ciphertext,
            w.previous_secret_ciphertext AS w_previous_secret_ciphertext, w.previous_secret_expires_at AS w_previous_secret_expires_at,
            e.id AS e_id, e.livemode AS e_livemode, e.type AS e_type, e.object_type AS e_object_type, e.object_id AS e_object_id, e.data AS e_data,
            e.request_id AS e_request_id, e.idempotency_key AS e_idempotency_key, e.api_version AS e_api_version, e.created_at AS e_created_at, e.seq AS e_seq
       FROM webhook_deliveries d
       LEFT JOIN webhook_attempts pa ON pa.delivery_id = d.id AND pa.attempt_number = $2
       LEFT JOIN webhook_endpoints w ON w.id = d.endpoint_id
       LEFT JOIN events e ON e.id = d.event_id
      WHERE d.id = $1`, [deliveryId, attemptNumber]);
  const r = rows[0];
  if (!r) return null;
  const pick = (prefix: string) => Object.fromEntries(Object.entries(r).filter(([k]) => k.startsWith(prefix)).map(([k, v]) => [k.slice(prefix.length), v]));
  return {
    status: r.d_status,
    lastStatusCode: r.d_last_status_code,
    prior: r.pa_exists ? { statusCode: r.pa_status_code, error: r.pa_error } : null,
    endpoint: r.w_id ? Object.assign(new WebhookEndpoint(), pick('w_')) : null,
    event: r.e_id ? Object.assign(new EventRow(), pick('e_')) : null,
  };
}

/** Records a successful attempt in one statement: the attempt row, the delivery `succeeded`, the endpoint's failure streak reset. */
async function recordSuccess(deliveryId: string, endpointId: string, attemptNumber: number, http: HttpResult): Promise<void> {
  await db().query(
    `WITH a AS (
       INSERT INTO webhook_attempts(id, delivery_id, attempt_number, status_code, error, latency_ms, response_excerpt)
       VALUES ($1,$2,$3,$4,NULL,$5,$6) ON CONFLICT (delivery_id, attempt_number) DO NOTHING RETURNING 1),
     d AS (
       UPDATE webhook_deliveries SET status = 'succeeded', attempt_count = GREATEST(attempt_count, $3), last_status_code = $4, last_error = NULL,
              next_attempt_at = NULL, delivered_at = now(), workflow_started_at = COALESCE(workflow_started_at, now()), held_at = NULL, updated_at = now()
        WHERE id = $2 AND status = ANY($8) RETURNING 1),
     w AS (
       UPDATE webhook_endpoints SET consecutive_failures = 0 WHERE id = $7 AND consecutive_failures <> 0 RETURNING 1)
     SELECT 1`,
    [newId('wha_'), deliveryId, attemptNumber, http.statusCode, http.latencyMs, http.excerpt, endpointId, deliveryStatusesBefore('succeeded')]);
}

/**
 * Activity (database only, safe to retry): records attempt `attemptNumber` as failed with
 * `error` when `attemptDelivery` itself failed (e.g. timed out or crashed) so the delivery's
 * state stays truthful; `nextRetryInMs` null marks the delivery `failed`. Returns the outcome
 * recorded (`retrying`, `failed`, or `done`/`cancelled` when the delivery was already final).
 */
export async function recordAttemptFailure(deliveryId: string, attemptNumber: number, error: string, nextRetryInMs: number | null): Promise<AttemptResult['outcome']> {
  return transaction(async (m) => {
    const d = await m.findOne(WebhookDelivery, { where: { id: deliveryId }, lock: { mode: 'pessimistic_write' } });
    if (!d) return 'cancelled';
    if (isFinalDeliveryStatus(d.status)) return 'done';
    const endpoint = await m.findOneBy(WebhookEndpoint, { id: d.endpoint_id });
    if (!endpoint) return 'cancelled';
    const outcome = assertDeliveryWrite(d.status, nextRetryInMs === null ? 'failed' : 'retrying') as WrittenOutcome;
    await recordAttempt(m, d.id, endpoint.id, attemptNumber,
      { statusCode: null, error: `attempt_error: ${error}`.slice(0, 500), latencyMs: 0, excerpt: null, retryable: true }, outcome, nextRetryInMs);
    return outcome;
  });
}

/** Marks a live delivery `cancelled` with `reason` as its last error; no-op once final. */
async function cancelDelivery(deliveryId: string, reason: string): Promise<void> {
  await db().query(
    `UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL, held_at = NULL, last_error = $2, updated_at = now()
      WHERE id = $1 AND status = ANY($3)`, [deliveryId, reason, deliveryStatusesBefore('cancelled')]);
}

/** Signs and POSTs `event` to `url`; never throws. */
async function send(url: URL, endpoint: WebhookEndpoint, event: EventRow): Promise<HttpResult> {
  const payload = JSON.stringify(eventView(event));
  const now = new Date();
  const secrets = [decrypt(endpoint.secret_ciphertext)];
  if (endpoint.previous_secret_ciphertext && endpoint.previous_secret_expires_at && endpoint.previous_secret_expires_at > now) {
    secrets.push(decrypt(endpoint.previous_secret_ciphertext));
  }
  const signature = secrets.map((s) => new Webhook(s).sign(event.id, now, payload)).join(' ');
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'PaymentsPlatform-Webhooks/1.0',
    'webhook-id': event.id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signature,
  };
  return postWebhook(url, headers, payload);
}

/** Writes the attempt row and the delivery/endpoint state after one attempt, inside `m`'s transaction. */
async function recordAttempt(m: EntityManager, deliveryId: string, endpointId: string, attemptNumber: number, http: HttpResult,
  outcome: WrittenOutcome, nextRetryInMs: number | null): Promise<void> {
  await m.query(
    `INSERT INTO webhook_attempts(id, delivery_id, attempt_number, status_code, error, latency_ms, response_excerpt)
     VALUES ($1,$2,$3,$4,$5,$6,$7) ON CONFLICT (delivery_id, attempt_number) DO NOTHING`,
    [newId('wha_'), deliveryId, attemptNumber, http.statusCode, http.error, http.latencyMs, http.excerpt]);
  const succeeded = outcome === 'succeeded';
  await m.query(
    `UPDATE webhook_deliveries SET status = $2, attempt_count = GREATEST(attempt_count, $3), last_status_code = $4, last_error = $5,
            next_attempt_at = CASE WHEN $2 = 'retrying' THEN now() + make_interval(secs => $6::float8 / 1000) ELSE NULL END,
            delivered_at = CASE WHEN $2 = 'succeeded' THEN now() ELSE delivered_at END,
            workflow_started_at = COALESCE(workflow_started_at, now()), held_at = NULL, updated_at = now()
      WHERE id = $1 AND status = ANY($7)`,
    [deliveryId, outcome, attemptNumber, http.statusCode, succeeded ? null : http.error, nextRetryInMs ?? 0, deliveryStatusesBefore(outcome)]);
  if (succeeded) {
    await m.query('UPDATE webhook_endpoints SET consecutive_failures = 0 WHERE id = $1 AND consecutive_failures <> 0', [endpointId]);
    return;
  }
  // TypeORM answers UPDATE ... RETURNING with [rows, rowCount].
  const [rows]: [Array<{ consecutive_failures: number }>, number] = await m.query(
    'UPDATE webhook_endpoints SET consecutive_failures = consecutive_failures + 1 WHERE id = $1 RETURNING consecutive_failures', [endpointId]);
  const failures = rows[0]?.consecutive_failures ?? 0;
  if (outcome === 'failed' && failures >= AUTO_DISABLE_CONSECUTIVE_FAILURES) await autoDisable(m, endpointId);
}

/** Disables an endpoint after repeated failures and emits `webhook_endpoint.disabled` (spec 2.11, 6). No-op if already disabled or deleted. */
async function autoDisable(m: EntityManager, endpointId: string): Promise<void> {
  const w = await m.findOne(WebhookEndpoint, { where: { id: endpointId }, lock: { mode: 'pessimistic_write' } });
  if (!w || !webhookEndpointTransitions.can(webhookEndpointStatus(w), 'disabled')) return;
  w.enabled = false;
  w.disabled_reason = 'auto_disabled_repeated_failures';
  w.disabled_at = new Date();
  await m.save(w);
  await emitEvent(m, {
    accountId: w.account_id, livemode: w.livemode, type: ENDPOINT_DISABLED_EVENT_TYPE,
    objectType: 'webhook_endpoint', objectId: w.id, object: webhookEndpointView(w),
  });
  logger.warn({ endpoint_id: w.id, account_id: w.account_id }, 'webhook endpoint auto-disabled after repeated failures');
}

/** The activities of workflows/webhook-delivery.ts (registered by the worker, activities/index.ts). */
export const webhookDeliveryWorkflowActivities = { attemptDelivery, recordAttemptFailure };
/** What workflows/webhook-delivery.ts proxies (local for `attemptDelivery`, normal for `recordAttemptFailure`). */
export type WebhookDeliveryWorkflowActivities = typeof webhookDeliveryWorkflowActivities;
