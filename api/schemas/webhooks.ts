/**
 * joi request schemas of the webhook operations (spec 2.11, 4.10, 6): bodies and queries (unknown
 * body keys are 400, api/operation/validate.ts). The event-type catalogue and URL rules are checked by
 * domain/webhooks.ts and activities/webhooks/url.ts; response schemas are in views/webhook.ts.
 */
import Joi from './joi';
import { WEBHOOK_DELIVERY_STATUSES } from '../../domain/webhooks';
import { documentedAlso, documentedAs, eventTypeParam, listQuery } from './common';

/**
 * A webhook endpoint URL (spec 4.10): the document states the accepted shape, an https URL with a
 * DNS name, an optional port and path/query (activities/webhooks/url.ts checks it with its codes:
 * `url_invalid`, `url_not_https`, `url_destination_forbidden`). What no pattern can state: a name
 * that resolves to a non-public address, and internal suffixes (`.local`, `.internal`, ...), are refused.
 */
const webhookUrl = documentedAs(Joi.string().max(2048), {
  type: 'string',
  maxLength: 2048,
  examples: ['https://merchant.example.com/webhooks/payments'],
  pattern:
    "^https://(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z]{2,24}(?::[1-9][0-9]{0,3})?(?:/[A-Za-z0-9._~%!$&'()*+,;=:@/-]*)?(?:\\?[A-Za-z0-9._~%!$&'()*+,;=:@/?-]*)?$",
  description:
    'An https URL with a public DNS name (spec 4.10); a name that resolves to a private, loopback or reserved address, or an internal suffix (.local, .internal, .arpa, ...), is refused with `url_destination_forbidden`.',
});

const eventTypesSchema = Joi.array().items(eventTypeParam).max(200);
const descriptionSchema = Joi.string().trim().max(500).allow('', null);

/** `POST /webhook_endpoints` body: `event_types` empty = every type. */
export const createWebhookEndpointBody = Joi.object({
  url: webhookUrl.required(),
  event_types: eventTypesSchema.default([]),
  description: descriptionSchema,
});

/**
 * `PATCH /webhook_endpoints/{id}` body: any of url, event_types, description, enabled;
 * `replay_missed: true` goes with `enabled: true` (checked by the command, `400 parameter_invalid`
 * param `replay_missed`), which the document states: either `replay_missed` is not
 * `true`, or `enabled` is `true`.
 */
export const updateWebhookEndpointBody = documentedAlso(
  Joi.object({
    url: webhookUrl,
    event_types: eventTypesSchema,
    description: descriptionSchema,
    enabled: Joi.boolean(),
    replay_missed: Joi.boolean().description(
      '`true` (with `enabled: true` only) queues, once, a delivery of every event missed since `disabled_at`.',
    ),
  }),
  {
    anyOf: [
      { not: { required: ['replay_missed'], properties: { replay_missed: { const: true } } } },
      { required: ['enabled'], properties: { enabled: { const: true } } },
    ],
  },
);

/** `GET /webhook_endpoints` query. */
export const listWebhookEndpointsQuery = Joi.object({ ...listQuery, enabled: Joi.boolean() });

/** `GET /webhook_deliveries` query. */
export const listWebhookDeliveriesQuery = Joi.object({
  ...listQuery,
  endpoint_id: Joi.string().max(255),
  event_id: Joi.string().max(255),
  status: Joi.string().valid(...WEBHOOK_DELIVERY_STATUSES),
});
