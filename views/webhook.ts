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
export function webhookEndpointView(
  webhookEndpoint: WebhookEndpoint,
  opts: { secret?: string; deleted?: boolean; now?: Date } = {},
): WebhookEndpointsGet & { secret?: string; deleted?: true } {
  const now = opts.now ?? new Date();
  const overlap =
    webhookEndpoint.previous_secret_ciphertext &&
    webhookEndpoint.previous_secret_expires_at &&
    webhookEndpoint.previous_secret_expires_at > now
      ? webhookEndpoint.previous_secret_expires_at
      : null;
  return {
    id: webhookEndpoint.id,
    object: 'webhook_endpoint',
    livemode: webhookEndpoint.livemode,
    url: webhookEndpoint.url,
    event_types: webhookEndpoint.event_types,
    enabled: webhookEndpoint.enabled,
    disabled_reason: webhookEndpoint.enabled ? null : webhookEndpoint.disabled_reason,
    disabled_at: webhookEndpoint.enabled ? null : iso(webhookEndpoint.disabled_at),
    description: webhookEndpoint.description,
    secret_prefix: webhookEndpoint.secret_prefix,
    previous_secret_expires_at: iso(overlap),
    created_at: webhookEndpoint.created_at.toISOString(),
    updated_at: webhookEndpoint.updated_at.toISOString(),
    ...(opts.secret !== undefined ? { secret: opts.secret } : {}),
    ...(opts.deleted ? { deleted: true } : {}),
  };
}

/** The PATCH response: the endpoint, plus what a re-enable with `replay_missed` queued (`since`: the `disabled_at` it replayed from). */
export function webhookEndpointUpdatedView(
  webhookEndpoint: WebhookEndpoint,
  replayed: { since: Date | null; count: number } | null,
): WebhookEndpointsUpdate {
  const v: WebhookEndpointsUpdate = webhookEndpointView(webhookEndpoint);
  if (replayed) v.missed_events_replayed = { since: iso(replayed.since), count: replayed.count };
  return v;
}

/** One HTTP attempt of a delivery: status code (null when no response), latency in ms, first 500 characters of the body, error. */
export function webhookAttemptView(webhookAttempt: WebhookAttempt): WebhookDeliveriesGet['attempts'][number] {
  return {
    id: webhookAttempt.id,
    object: 'webhook_attempt',
    attempt_number: webhookAttempt.attempt_number,
    status_code: webhookAttempt.status_code,
    latency_ms: webhookAttempt.latency_ms,
    response_excerpt: webhookAttempt.response_excerpt,
    error: webhookAttempt.error,
    created_at: webhookAttempt.created_at.toISOString(),
  };
}

/**
 * Webhook delivery (one event to one endpoint; statuses `pending`, `retrying`, `succeeded`,
 * `failed`, `cancelled`). `attempts` is included only when passed (GET by id).
 */
export function webhookDeliveryView(
  webhookDelivery: WebhookDelivery,
  attempts?: WebhookAttempt[],
): WebhookDeliveriesReplay & { attempts?: WebhookDeliveriesGet['attempts'] } {
  return {
    id: webhookDelivery.id,
    object: 'webhook_delivery',
    livemode: webhookDelivery.livemode,
    endpoint_id: webhookDelivery.endpoint_id,
    event_id: webhookDelivery.event_id,
    event_type: webhookDelivery.event_type,
    status: webhookDelivery.status,
    attempt_count: webhookDelivery.attempt_count,
    last_status_code: webhookDelivery.last_status_code,
    last_error: webhookDelivery.last_error,
    next_attempt_at: iso(webhookDelivery.next_attempt_at),
    delivered_at: iso(webhookDelivery.delivered_at),
    replay_of: webhookDelivery.replay_of,
    created_at: webhookDelivery.created_at.toISOString(),
    updated_at: webhookDelivery.updated_at.toISOString(),
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
  secret: Joi.string()
    .pattern(/^whsec_/)
    .allow(null)
    .required(),
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
