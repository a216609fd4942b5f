/**
 * Wire projections of webhook endpoints, deliveries and attempts (spec 2.11, 4.10, 6) and their
 * response schemas (the `response` of the webhook operations: OpenAPI document and contract
 * fuzzing). Enums on responses are open (spec 9 rule 5): `event_types`, `disabled_reason`,
 * `status` and `event_type` are plain strings in the schemas.
 */
import Joi from 'joi';
import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../entities';
import { listEnvelope, timestamp } from './schema';
import type { WebhookDeliveriesGet, WebhookDeliveriesReplay, WebhookEndpointsGet, WebhookEndpointsUpdate } from './wire';

const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

/**
 * Webhook endpoint. `secret` (full `whsec_...` signing secret) appears only when passed, i.e. in
 * create and rotate_secret responses (spec 2.11); `secret_prefix` is always readable.
 * `previous_secret_expires_at` is set while a rotated-out secret still signs (24 h overlap, spec 8).
 * `deleted: true` is added to the DELETE response.
 */
export function webhookEndpointView(w: WebhookEndpoint, opts: { secret?: string; deleted?: boolean; now?: Date } = {}): WebhookEndpointsGet & { secret?: string; deleted?: true } {
  const now = opts.now ?? new Date();
  const overlap = w.previous_secret_ciphertext && w.previous_secret_expires_at && w.previous_secret_expires_at > now
    ? w.previous_secret_expires_at : null;
  return {
    id: w.id,
    object: 'webhook_endpoint',
    livemode: w.livemode,
    url: w.url,
    event_types: w.event_types,
    enabled: w.enabled,
    disabled_reason: w.enabled ? null : w.disabled_reason,
    disabled_at: w.enabled ? null : iso(w.disabled_at),
    description: w.description,
    secret_prefix: w.secret_prefix,
    previous_secret_expires_at: iso(overlap),
    created_at: w.created_at.toISOString(),
    updated_at: w.updated_at.toISOString(),
    ...(opts.secret !== undefined ? { secret: opts.secret } : {}),
    ...(opts.deleted ? { deleted: true } : {}),
  };
}

/** The PATCH response: the endpoint, plus what a re-enable with `replay_missed` queued (`since`: the `disabled_at` it replayed from). */
export function webhookEndpointUpdatedView(w: WebhookEndpoint, replayed: { since: Date | null; count: number } | null): WebhookEndpointsUpdate {
  const v: WebhookEndpointsUpdate = webhookEndpointView(w);
  if (replayed) v.missed_events_replayed = { since: iso(replayed.since), count: replayed.count };
  return v;
}

/** One HTTP attempt of a delivery: status code (null when no response), latency in ms, first 500 characters of the body, error. */
export function webhookAttemptView(a: WebhookAttempt): WebhookDeliveriesGet['attempts'][number] {
  return {
    id: a.id,
    object: 'webhook_attempt',
    attempt_number: a.attempt_number,
    status_code: a.status_code,
    latency_ms: a.latency_ms,
    response_excerpt: a.response_excerpt,
    error: a.error,
    created_at: a.created_at.toISOString(),
  };
}

/**
 * Webhook delivery (one event to one endpoint; statuses `pending`, `retrying`, `succeeded`,
 * `failed`, `cancelled`). `attempts` is included only when passed (GET by id).
 */
export function webhookDeliveryView(d: WebhookDelivery, attempts?: WebhookAttempt[]): WebhookDeliveriesReplay & { attempts?: WebhookDeliveriesGet['attempts'] } {
  return {
    id: d.id,
    object: 'webhook_delivery',
    livemode: d.livemode,
    endpoint_id: d.endpoint_id,
    event_id: d.event_id,
    event_type: d.event_type,
    status: d.status,
    attempt_count: d.attempt_count,
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    next_attempt_at: iso(d.next_attempt_at),
    delivered_at: iso(d.delivered_at),
    replay_of: d.replay_of,
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
    ...(attempts ? { attempts: attempts.map(webhookAttemptView) } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Response schemas
// ---------------------------------------------------------------------------------------------

const nullableTime = timestamp.allow(null).required();

const endpointFields = {
  id: Joi.string().pattern(/^whe_/).required(),
  object: Joi.string().valid('webhook_endpoint').required(),
  livemode: Joi.boolean().required(),
  url: Joi.string().required(),
  event_types: Joi.array().items(Joi.string()).required(),
  enabled: Joi.boolean().required(),
  disabled_reason: Joi.string().allow(null).required(),
  disabled_at: nullableTime,
  description: Joi.string().allow(null).required(),
  secret_prefix: Joi.string().required(),
  previous_secret_expires_at: nullableTime,
  created_at: timestamp.required(),
  updated_at: timestamp.required(),
};

/** A webhook endpoint as read (never the secret). */
export const webhookEndpointOut = Joi.object(endpointFields);

/** The PATCH response (`webhookEndpointUpdatedView`). */
export const webhookEndpointUpdatedOut = Joi.object({
  ...endpointFields,
  missed_events_replayed: Joi.object({ since: nullableTime, count: Joi.number().integer().min(0).required() }),
});

/** Create and rotate_secret: the full `secret` once (null in an idempotent replay). */
export const webhookEndpointWithSecretOut = Joi.object({
  ...endpointFields,
  secret: Joi.string().pattern(/^whsec_/).allow(null).required(),
});

/** Delete: the endpoint with `deleted: true`. */
export const webhookEndpointDeletedOut = Joi.object({ ...endpointFields, deleted: Joi.boolean().valid(true).required() });

/** One HTTP attempt of a delivery. */
export const webhookAttemptOut = Joi.object({
  id: Joi.string().pattern(/^wha_/).required(),
  object: Joi.string().valid('webhook_attempt').required(),
  attempt_number: Joi.number().integer().min(1).required(),
  status_code: Joi.number().integer().allow(null).required(),
  latency_ms: Joi.number().integer().min(0).required(),
  response_excerpt: Joi.string().allow(null).required(),
  error: Joi.string().allow(null).required(),
  created_at: timestamp.required(),
});

const deliveryFields = {
  id: Joi.string().pattern(/^whd_/).required(),
  object: Joi.string().valid('webhook_delivery').required(),
  livemode: Joi.boolean().required(),
  endpoint_id: Joi.string().pattern(/^whe_/).required(),
  event_id: Joi.string().pattern(/^evt_/).required(),
  event_type: Joi.string().required(),
  status: Joi.string().required(),
  attempt_count: Joi.number().integer().min(0).required(),
  last_status_code: Joi.number().integer().allow(null).required(),
  last_error: Joi.string().allow(null).required(),
  next_attempt_at: nullableTime,
  delivered_at: nullableTime,
  replay_of: Joi.string().pattern(/^whd_/).allow(null).required(),
  created_at: timestamp.required(),
  updated_at: timestamp.required(),
};

/** A delivery in lists and as returned by send_test_event and replay (no attempts). */
export const webhookDeliveryOut = Joi.object(deliveryFields);

/** A delivery by id, with its attempts, oldest first. */
export const webhookDeliveryWithAttemptsOut = Joi.object({ ...deliveryFields, attempts: Joi.array().items(webhookAttemptOut).required() });

export const webhookEndpointListOut = listEnvelope(webhookEndpointOut);
export const webhookDeliveryListOut = listEnvelope(webhookDeliveryOut);
