/**
 * joi request schemas of the webhook operations (spec 2.11, 4.10, 6): bodies and queries (unknown
 * body keys are 400, api/operation.ts). The event-type catalogue and URL rules are checked by
 * domain/webhooks.ts and activities/webhooks/url.ts; response schemas are in views/webhook.ts.
 */
import Joi from './joi';
import { WEBHOOK_DELIVERY_STATUSES } from '../../domain/webhooks';
import { eventTypeParam, listQuery } from './common';

const eventTypesSchema = Joi.array().items(eventTypeParam).max(200);
const descriptionSchema = Joi.string().trim().max(500).allow('', null);

/** `POST /webhook_endpoints` body: `event_types` empty = every type. */
export const createWebhookEndpointBody = Joi.object({
  url: Joi.string().max(2048).required(),
  event_types: eventTypesSchema.default([]),
  description: descriptionSchema,
});

/** `PATCH /webhook_endpoints/{id}` body: any of url, event_types, description, enabled. */
export const updateWebhookEndpointBody = Joi.object({
  url: Joi.string().max(2048),
  event_types: eventTypesSchema,
  description: descriptionSchema,
  enabled: Joi.boolean(),
});

/** `GET /webhook_endpoints` query. */
export const listWebhookEndpointsQuery = Joi.object({ ...listQuery, enabled: Joi.boolean() });

/** `GET /webhook_deliveries` query. */
export const listWebhookDeliveriesQuery = Joi.object({
  ...listQuery,
  endpoint_id: Joi.string().max(255),
  event_id: Joi.string().max(255),
  status: Joi.string().valid(...WEBHOOK_DELIVERY_STATUSES),
});
