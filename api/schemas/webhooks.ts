/**
 * Response shapes of the webhook operations (spec 2.11, 4.10, 6), matching api/views/webhook.ts:
 * the `response` of their operation definitions (OpenAPI document and contract fuzzing).
 * Enums on responses are open (spec 9 rule 5): `event_types`, `disabled_reason`, `status` and
 * `event_type` are plain strings here.
 */
import Joi from 'joi';
import { listEnvelope, timestamp } from '../../views/schema';

const nullableTime = timestamp.allow(null).required();

const endpointFields = {
  id: Joi.string().pattern(/^whe_/).required(),
  object: Joi.string().valid('webhook_endpoint').required(),
  livemode: Joi.boolean().required(),
  url: Joi.string().required(),
  event_types: Joi.array().items(Joi.string()).required(),
  enabled: Joi.boolean().required(),
  disabled_reason: Joi.string().allow(null).required(),
  description: Joi.string().allow(null).required(),
  secret_prefix: Joi.string().required(),
  previous_secret_expires_at: nullableTime,
  created_at: timestamp.required(),
  updated_at: timestamp.required(),
};

/** A webhook endpoint as read (never the secret). */
export const webhookEndpointOut = Joi.object(endpointFields);

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
