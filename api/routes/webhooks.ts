/**
 * Webhook endpoints and deliveries (spec 2.11, 4.10, 6, 8 "Secret rotation overlap").
 *
 * - Endpoints (`/webhook_endpoints`, switch `api_v1.webhooks`): create/list/get/update/delete,
 *   `rotate_secret`, `send_test_event`. Deliveries (`/webhook_deliveries`): list/get/replay.
 * - Scopes `developers.read` / `developers.write`; business keys and dashboard sessions; for a
 *   session, create/update/delete/rotate/test need the owner role (else `403 scope_denied`).
 * - Test mode full: a test key sees and manages only test-mode endpoints and deliveries
 *   (`livemode: false`), which receive only test-mode events; live callers see live ones.
 * - `event_types`: closed catalogue on requests (unknown or retired name `400 invalid_request`
 *   param `event_types`, code `event_type_unknown`); empty = all; unshipped names accepted.
 * - `url`: activities/webhook-url.ts `checkEndpointUrl` (public https only, resolved on create and
 *   update; loopback only under the development switch); re-resolved before every send.
 * - Secret: `whsec_` + base64 of 24 random bytes (Standard Webhooks). Stored only encrypted
 *   (AES-256-GCM under APP_ENCRYPTION_KEY); returned only by create and rotate_secret and
 *   redacted (null) in their idempotent replays; `secret_prefix` (first 10 characters) always.
 *   Rotation keeps the replaced secret signing for 24 h (a second rotation inside that window
 *   drops the oldest at once).
 * - Delete is soft (`deleted_at`); later reads, updates and deletes answer 404; queued
 *   deliveries to it are cancelled at their next attempt.
 * - At most 16 live endpoints and 16 test endpoints per account.
 */
import crypto from 'node:crypto';
import type Router from '@koa/router';
import Joi from 'joi';
import type { EntityManager } from 'typeorm';
import { checkEndpointUrl } from '../../activities/webhooks/url';
import { startDeliveryWorkflows } from '../../activities/webhooks/dispatcher';
import { emitEvent } from '../../lib/outbox';
import { isKnownEventType, TEST_PING_EVENT_TYPE } from '../../domain/event-types';
import { DomainError } from '../../domain/errors';
import { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../../entities';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { encrypt } from '../../lib/secrets';
import type { AppState, Caller } from '../context';
import { mount } from '../operation';
import { paginate } from '../pagination';
import { listQuery } from '../schemas/common';
import {
  webhookDeliveryListOut, webhookDeliveryOut, webhookDeliveryWithAttemptsOut, webhookEndpointDeletedOut, webhookEndpointListOut,
  webhookEndpointOut, webhookEndpointWithSecretOut,
} from '../schemas/webhooks';
import { webhookDeliveryView, webhookEndpointView } from '../../views/webhook';

/** Max non-deleted endpoints per account and mode. */
export const MAX_ENDPOINTS_PER_MODE = 16;
/** How long a rotated-out secret keeps signing (spec 8), ms. */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
/** Characters of the secret shown as `secret_prefix`. */
export const SECRET_PREFIX_LENGTH = 10;

const OWNER_ONLY = ['owner'] as const;
const SWITCH = 'api_v1.webhooks';
const DELIVERY_STATUSES = ['pending', 'retrying', 'succeeded', 'failed', 'cancelled'];

/** A new Standard Webhooks signing secret: `whsec_` + base64 of 24 random bytes (32 characters). */
export function newWebhookSecret(): string {
  return `whsec_${crypto.randomBytes(24).toString('base64')}`;
}

const eventTypesSchema = Joi.array().items(Joi.string().max(100)).max(200);
const descriptionSchema = Joi.string().trim().max(500).allow('', null);

/** Validates and de-duplicates requested event types against the closed catalogue. */
function checkEventTypes(types: string[] | undefined): string[] | undefined {
  if (types === undefined) return undefined;
  for (const t of types) {
    if (!isKnownEventType(t)) {
      throw new DomainError('invalid_request', 'event_type_unknown', `Unknown event type \`${t}\` in \`event_types\`.`, { param: 'event_types', details: { event_type: t } });
    }
  }
  return [...new Set(types)];
}

const endpointNotFound = (id: string) => new DomainError('not_found', 'not_found', `No such webhook endpoint: ${id}.`, { param: 'id' });
const deliveryNotFound = (id: string) => new DomainError('not_found', 'not_found', `No such webhook delivery: ${id}.`, { param: 'id' });

/** Loads a visible (same account and mode, not deleted) endpoint, optionally locked; 404 otherwise. */
async function loadEndpoint(m: EntityManager, caller: Caller, id: string, lock = false): Promise<WebhookEndpoint> {
  const w = await m.findOne(WebhookEndpoint, {
    where: { id, account_id: caller.accountId, livemode: caller.livemode },
    ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
  });
  if (!w || w.deleted_at) throw endpointNotFound(id);
  return w;
}

async function loadDelivery(caller: Caller, id: string): Promise<WebhookDelivery> {
  const d = await db().getRepository(WebhookDelivery).findOneBy({ id, account_id: caller.accountId, livemode: caller.livemode });
  if (!d) throw deliveryNotFound(id);
  return d;
}

/** Inserts a delivery row (pending) inside `m`'s transaction. */
async function insertDelivery(m: EntityManager, a: { accountId: string; livemode: boolean; endpointId: string; eventId: string; eventType: string; replayOf?: string | null }): Promise<WebhookDelivery> {
  const d = m.create(WebhookDelivery, {
    id: newId('whd_'), account_id: a.accountId, livemode: a.livemode, endpoint_id: a.endpointId, event_id: a.eventId,
    event_type: a.eventType, status: 'pending', attempt_count: 0, replay_of: a.replayOf ?? null,
  });
  await m.save(d);
  return d;
}

/** Starts the delivery workflow after commit; a failure is left to the dispatcher's sweep. Returns the fresh row. */
async function startAndReload(d: WebhookDelivery): Promise<WebhookDelivery> {
  await startDeliveryWorkflows([{ id: d.id, account_id: d.account_id }]);
  return (await db().getRepository(WebhookDelivery).findOneBy({ id: d.id })) ?? d;
}

/** Mounts the webhook endpoint and delivery operations (see the module doc). */
export function register(r: Router<AppState>): void {
  mount(r, {
    id: 'webhook_endpoints.create', method: 'post', path: '/webhook_endpoints', scope: 'developers.write', testMode: 'full',
    switch: SWITCH, roles: [...OWNER_ONLY], successStatus: 201, response: webhookEndpointWithSecretOut, summary: 'Create a webhook endpoint; the signing secret is returned once.',
    body: Joi.object({
      url: Joi.string().max(2048).required(),
      event_types: eventTypesSchema.default([]),
      description: descriptionSchema,
    }),
    handler: async ({ caller, body, ctx }) => {
      await checkEndpointUrl(body.url);
      const url = body.url.trim();
      const eventTypes = checkEventTypes(body.event_types) ?? [];
      const secret = newWebhookSecret();
      const w = await transaction(async (m) => {
        await m.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [caller.accountId]);
        const [{ n }]: Array<{ n: number }> = await m.query(
          'SELECT count(*)::int AS n FROM webhook_endpoints WHERE account_id = $1 AND livemode = $2 AND deleted_at IS NULL', [caller.accountId, caller.livemode]);
        if (n >= MAX_ENDPOINTS_PER_MODE) {
          throw new DomainError('invalid_request', 'webhook_endpoint_limit_reached', `An account can have at most ${MAX_ENDPOINTS_PER_MODE} ${caller.livemode ? 'live' : 'test'} webhook endpoints; delete one first.`);
        }
        const row = m.create(WebhookEndpoint, {
          id: newId('whe_'), account_id: caller.accountId, livemode: caller.livemode, url, event_types: eventTypes,
          enabled: true, disabled_reason: null, description: body.description || null,
          secret_ciphertext: encrypt(secret), secret_prefix: secret.slice(0, SECRET_PREFIX_LENGTH),
          previous_secret_ciphertext: null, previous_secret_expires_at: null, consecutive_failures: 0, deleted_at: null,
        });
        return m.save(row);
      });
      ctx.state.redact.push('secret');
      return webhookEndpointView(w, { secret });
    },
  });

  mount(r, {
    id: 'webhook_endpoints.list', method: 'get', path: '/webhook_endpoints', scope: 'developers.read', testMode: 'full', switch: SWITCH,
    response: webhookEndpointListOut, summary: 'List webhook endpoints, newest first.',
    query: Joi.object({ ...listQuery, enabled: Joi.boolean() }),
    handler: async ({ caller, query }) => {
      const qb = db().getRepository(WebhookEndpoint).createQueryBuilder('w')
        .where('w.account_id = :a AND w.livemode = :l AND w.deleted_at IS NULL', { a: caller.accountId, l: caller.livemode });
      if (query.enabled !== undefined) qb.andWhere('w.enabled = :en', { en: query.enabled });
      return paginate(qb, 'w', query, (w) => webhookEndpointView(w));
    },
  });

  mount(r, {
    id: 'webhook_endpoints.get', method: 'get', path: '/webhook_endpoints/:id', scope: 'developers.read', testMode: 'full', switch: SWITCH,
    response: webhookEndpointOut, summary: 'Retrieve a webhook endpoint (never its secret).',
    handler: async ({ caller, params }) => webhookEndpointView(await loadEndpoint(db().manager, caller, params.id)),
  });

  mount(r, {
    id: 'webhook_endpoints.update', method: 'patch', path: '/webhook_endpoints/:id', scope: 'developers.write', testMode: 'full',
    switch: SWITCH, roles: [...OWNER_ONLY], response: webhookEndpointOut, summary: 'Update url, event_types, description or enabled.',
    body: Joi.object({
      url: Joi.string().max(2048),
      event_types: eventTypesSchema,
      description: descriptionSchema,
      enabled: Joi.boolean(),
    }),
    handler: async ({ caller, params, body }) => {
      if (body.url !== undefined) await checkEndpointUrl(body.url);
      const eventTypes = checkEventTypes(body.event_types);
      const w = await transaction(async (m) => {
        const row = await loadEndpoint(m, caller, params.id, true);
        if (body.url !== undefined) row.url = body.url.trim();
        if (eventTypes !== undefined) row.event_types = eventTypes;
        if (body.description !== undefined) row.description = body.description || null;
        if (body.enabled === true && !row.enabled) {
          row.enabled = true;
          row.disabled_reason = null;
          row.consecutive_failures = 0;
        } else if (body.enabled === false && row.enabled) {
          row.enabled = false;
          row.disabled_reason = 'manual';
        }
        return m.save(row);
      });
      return webhookEndpointView(w);
    },
  });

  mount(r, {
    id: 'webhook_endpoints.delete', method: 'delete', path: '/webhook_endpoints/:id', scope: 'developers.write', testMode: 'full',
    switch: SWITCH, roles: [...OWNER_ONLY], response: webhookEndpointDeletedOut, summary: 'Delete a webhook endpoint (queued deliveries are cancelled).',
    handler: async ({ caller, params }) => {
      const w = await transaction(async (m) => {
        const row = await loadEndpoint(m, caller, params.id, true);
        row.deleted_at = new Date();
        return m.save(row);
      });
      return webhookEndpointView(w, { deleted: true });
    },
  });

  mount(r, {
    id: 'webhook_endpoints.rotate_secret', method: 'post', path: '/webhook_endpoints/:id/rotate_secret', scope: 'developers.write',
    testMode: 'full', switch: SWITCH, roles: [...OWNER_ONLY],
    response: webhookEndpointWithSecretOut, summary: 'Rotate the signing secret; the old one keeps signing for 24 hours. The new secret is returned once.',
    handler: async ({ caller, params, ctx }) => {
      const secret = newWebhookSecret();
      const w = await transaction(async (m) => {
        const row = await loadEndpoint(m, caller, params.id, true);
        row.previous_secret_ciphertext = row.secret_ciphertext;
        row.previous_secret_expires_at = new Date(Date.now() + SECRET_ROTATION_OVERLAP_MS);
        row.secret_ciphertext = encrypt(secret);
        row.secret_prefix = secret.slice(0, SECRET_PREFIX_LENGTH);
        return m.save(row);
      });
      ctx.state.redact.push('secret');
      return webhookEndpointView(w, { secret });
    },
  });

  mount(r, {
    id: 'webhook_endpoints.send_test_event', method: 'post', path: '/webhook_endpoints/:id/send_test_event', scope: 'developers.write',
    testMode: 'full', switch: SWITCH, roles: [...OWNER_ONLY],
    response: webhookDeliveryOut, summary: 'Deliver a `test.ping` event to this endpoint only; returns the delivery.',
    handler: async ({ caller, params, ctx }) => {
      const d = await transaction(async (m) => {
        const w = await loadEndpoint(m, caller, params.id);
        if (!w.enabled) throw new DomainError('conflict', 'webhook_endpoint_disabled', 'The endpoint is disabled; enable it before sending a test event.');
        const eventId = await emitEvent(m, {
          accountId: caller.accountId, livemode: w.livemode, type: TEST_PING_EVENT_TYPE, objectType: 'webhook_endpoint', objectId: w.id,
          object: { id: w.id, object: 'webhook_endpoint', livemode: w.livemode, url: w.url },
          request: { id: ctx.state.requestId, idempotency_key: ctx.state.idempotencyKey },
        });
        // Delivered only here: the dispatcher never fans out test.ping; mark it dispatched now.
        await m.query('UPDATE events SET dispatched_at = now() WHERE id = $1', [eventId]);
        return insertDelivery(m, { accountId: caller.accountId, livemode: w.livemode, endpointId: w.id, eventId, eventType: TEST_PING_EVENT_TYPE });
      });
      return webhookDeliveryView(await startAndReload(d));
    },
  });

  mount(r, {
    id: 'webhook_deliveries.list', method: 'get', path: '/webhook_deliveries', scope: 'developers.read', testMode: 'full',
    response: webhookDeliveryListOut, summary: 'List webhook deliveries, newest first (filters endpoint_id, event_id, status).',
    query: Joi.object({
      ...listQuery,
      endpoint_id: Joi.string().max(255),
      event_id: Joi.string().max(255),
      status: Joi.string().valid(...DELIVERY_STATUSES),
    }),
    handler: async ({ caller, query }) => {
      const qb = db().getRepository(WebhookDelivery).createQueryBuilder('d')
        .where('d.account_id = :a AND d.livemode = :l', { a: caller.accountId, l: caller.livemode });
      if (query.endpoint_id) qb.andWhere('d.endpoint_id = :e', { e: query.endpoint_id });
      if (query.event_id) qb.andWhere('d.event_id = :ev', { ev: query.event_id });
      if (query.status) qb.andWhere('d.status = :s', { s: query.status });
      return paginate(qb, 'd', query, (d) => webhookDeliveryView(d));
    },
  });

  mount(r, {
    id: 'webhook_deliveries.get', method: 'get', path: '/webhook_deliveries/:id', scope: 'developers.read', testMode: 'full',
    response: webhookDeliveryWithAttemptsOut, summary: 'Retrieve a webhook delivery with its attempts.',
    handler: async ({ caller, params }) => {
      const d = await loadDelivery(caller, params.id);
      const attempts = await db().getRepository(WebhookAttempt).find({ where: { delivery_id: d.id }, order: { attempt_number: 'ASC' } });
      return webhookDeliveryView(d, attempts);
    },
  });

  mount(r, {
    id: 'webhook_deliveries.replay', method: 'post', path: '/webhook_deliveries/:id/replay', scope: 'developers.write', testMode: 'full',
    response: webhookDeliveryOut, summary: 'Deliver the same event to the same endpoint again as a new delivery (`replay_of`).',
    handler: async ({ caller, params }) => {
      const original = await loadDelivery(caller, params.id);
      const d = await transaction(async (m) => {
        const w = await m.findOneBy(WebhookEndpoint, { id: original.endpoint_id });
        if (!w || w.deleted_at) throw new DomainError('conflict', 'webhook_endpoint_deleted', 'The endpoint of this delivery was deleted; it cannot be replayed.');
        if (!w.enabled) throw new DomainError('conflict', 'webhook_endpoint_disabled', 'The endpoint is disabled; enable it before replaying.');
        return insertDelivery(m, {
          accountId: original.account_id, livemode: original.livemode, endpointId: original.endpoint_id,
          eventId: original.event_id, eventType: original.event_type, replayOf: original.id,
        });
      });
      return webhookDeliveryView(await startAndReload(d));
    },
  });
}
