/**
 * The `webhooks` of the `/v1` document (OpenAPI 3.1): one entry per event type of the catalogue
 * (spec 6), each a `post` whose body is the event envelope (views/event.ts) with the exact
 * `data.object` of that type (views/event-schemas.ts, converted from the same joi schemas the
 * outbox checks events against with `EVENT_SCHEMA_CHECK`). Catalogued-only types carry
 * `x-catalogued-only: true`: accepted in `event_types` and the `type` filter, never delivered nor
 * listed until shipped (each family through its own `events.ship.<family>` switch).
 *
 * Pure: depends only on the catalogue and the views.
 */
import Joi from 'joi';
import { SHIPPABLE_EVENT_FAMILIES, eventFamily, shipSwitchName, type ShippableEventFamily } from '../domain/event-types';
import { EVENT_SCHEMAS, eventEnvelopeSchema, type EventSchemaEntry } from '../views/event-schemas';

type Doc = Record<string, any>;
/** joi -> OpenAPI 3.1 schema (api/openapi.ts `toJsonSchema`, passed in: that module imports this one). */
type Convert = (schema: Joi.Schema) => Doc;

/** The delivery's signature headers (Standard Webhooks), as components of the document. */
const SIGNATURE_PARAMETERS: Doc = {
  WebhookId: {
    name: 'webhook-id',
    in: 'header',
    required: true,
    schema: { type: 'string', pattern: '^evt_' },
    description: 'The event id, the same on every attempt and replay: de-duplicate by it.',
  },
  WebhookTimestamp: {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    schema: { type: 'string', pattern: '^[0-9]+$' },
    description: 'Seconds since the epoch when this attempt was signed.',
  },
  WebhookSignature: {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    schema: { type: 'string' },
    description:
      "Space-separated `v1,<base64 HMAC-SHA256>` signatures (Standard Webhooks) with the endpoint's secret; two during a secret rotation's overlap.",
  },
};

function isShippable(family: string): family is ShippableEventFamily {
  return (SHIPPABLE_EVENT_FAMILIES as readonly string[]).includes(family);
}

function description(e: EventSchemaEntry): string {
  const object = `\`data.object\` is ${e.describes}, with \`id\` and \`type: ${e.objectType}\`.`;
  if (e.live) return `Sent to every enabled endpoint subscribed to \`${e.type}\` (or to every type). ${object}`;
  const family = eventFamily(e.type);
  const ship = isShippable(family)
    ? ` The operator ships the \`${family}\` family with the switch \`${shipSwitchName(family)}\`; until then it is not delivered.`
    : '';
  return `Catalogued only: accepted for subscription (\`event_types\`, the \`type\` filter) but never delivered nor listed in \`/events\` or \`/activity\` until it ships.${ship} ${object}`;
}

/**
 * The tag of every webhook. Not `events` (the tag of `GET /events`): client generators write one
 * API class per tag, and the webhooks' class would replace the one of `/events`.
 */
export const WEBHOOKS_TAG = 'webhooks';

/**
 * The name of a type's envelope schema (its `title`), e.g. `PaymentLinkCreatedEvent`: generators
 * name the body's model after it, rather than `<operationId>Request`, the name they give the
 * operation's own request parameters.
 */
export function envelopeTitle(type: string): string {
  return `${type
    .split(/[._]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('')}Event`;
}

function webhook(e: EventSchemaEntry, toJsonSchema: Convert): Doc {
  const envelope = eventEnvelopeSchema(e.type, Joi.object().meta({ openapi: { $ref: `#/components/schemas/${e.component}` } }));
  const post: Doc = {
    operationId: `event.${e.type}`,
    summary: e.live ? `Event ${e.type}` : `Event ${e.type} (catalogued only)`,
    description: description(e),
    tags: [WEBHOOKS_TAG],
    security: [],
    parameters: Object.keys(SIGNATURE_PARAMETERS).map((k) => ({ $ref: `#/components/parameters/${k}` })),
    requestBody: {
      required: true,
      content: { 'application/json': { schema: { title: envelopeTitle(e.type), ...toJsonSchema(envelope) } } },
    },
    responses: {
      200: { description: 'Any 2xx answer within the timeout acknowledges the delivery.' },
      400: { description: 'Any other answer (or none) is a failed attempt: the delivery is retried on its schedule.' },
    },
  };
  if (!e.live) post['x-catalogued-only'] = true;
  return { post };
}

/**
 * Adds the `webhooks` of every catalogued event type to `doc`, with the `data.object` schemas and
 * the signature header parameters as components; `toJsonSchema` converts the joi schemas (response
 * side). Returns `doc`.
 */
export function withEventWebhooks(doc: Doc, toJsonSchema: Convert): Doc {
  const entries = [...EVENT_SCHEMAS.values()];
  const objects: Doc = {};
  for (const e of entries) objects[e.component] ??= toJsonSchema(e.schema);
  doc.webhooks = Object.fromEntries(entries.map((e) => [e.type, webhook(e, toJsonSchema)]));
  doc.components = {
    ...doc.components,
    schemas: { ...doc.components?.schemas, ...objects },
    parameters: { ...doc.components?.parameters, ...SIGNATURE_PARAMETERS },
  };
  if (!(doc.tags as Doc[] | undefined)?.some((t) => t.name === WEBHOOKS_TAG)) {
    doc.tags = [
      ...(doc.tags ?? []),
      {
        name: WEBHOOKS_TAG,
        description: 'The deliveries your endpoint receives, one per event type (the same events `GET /events` lists).',
      },
    ];
  }
  return doc;
}
