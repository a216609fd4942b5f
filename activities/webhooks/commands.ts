/**
 * Webhook commands (spec 2.11, 4.10, 6, 8 "Secret rotation overlap"): what the webhook routes
 * call. Each is one transaction (with its outbox rows); new deliveries, disables and deletes wake
 * the endpoint's workflow after commit (./signals.ts).
 *
 * - `url`: ./url.ts `checkEndpointUrl` (public https only, resolved on create and update;
 *   loopback only under the development switch); re-resolved before every send.
 * - Secret: `whsec_` + base64 of 24 random bytes (Standard Webhooks). Stored only encrypted
 *   (AES-256-GCM under APP_ENCRYPTION_KEY); returned only by create and rotate_secret;
 *   `secret_prefix` (first 10 characters) always. Rotation keeps the replaced secret signing for
 *   24 h (a second rotation inside that window drops the oldest at once).
 * - Delete is soft (`deleted_at`); later reads, updates and deletes answer 404; its live
 *   deliveries are cancelled by its workflow, woken after commit (so are a disabled endpoint's).
 * - At most 16 live endpoints and 16 test endpoints per account.
 * Every command takes `(scope, input)` (activities/scope.ts): the caller's account, mode and
 * request, the object id inside `input`. Endpoint and delivery status rules: domain/webhooks.ts.
 */
import crypto from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { endpointReceives, TEST_PING_EVENT_TYPE } from '../../domain/event-types';
import { invalidRequest } from '../../domain/errors';
import {
  assertCanReplay,
  assertCanSendTestEvent,
  assertEndpointCapacity,
  checkEventTypes,
  SECRET_PREFIX_LENGTH,
  previousSecretExpiresAtMs,
  WEBHOOK_DELIVERY_INITIAL_STATUS,
  webhookEndpointStatus,
} from '../../domain/webhooks';
import { WebhookDelivery, WebhookEndpoint } from '../../entities';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { emitEvent } from '../../lib/outbox';
import { scoped } from '../../lib/scoped';
import { encrypt } from '../../lib/secrets';
import { loadDelivery, loadEndpoint } from './queries';
import { wakeEndpointsOf, wakeEndpoint, type DeliveryToWake } from './signals';
import { logger } from '../../lib/logger';
import { currentShippedEventTypes } from '../../lib/switches';
import { checkEndpointUrl } from './url';
import { deleteWebhookEndpoint, disableWebhookEndpoint, enableWebhookEndpoint } from '../records/webhook-endpoints';
import type { Scope } from '../scope';

/** A new Standard Webhooks signing secret: `whsec_` + base64 of 24 random bytes (32 characters). */
export function newWebhookSecret(): string {
  return `whsec_${crypto.randomBytes(24).toString('base64')}`;
}

/** An endpoint with its full signing secret (create, rotate_secret). */
export interface EndpointWithSecret {
  endpoint: WebhookEndpoint;
  secret: string;
}

/**
 * Creates an endpoint of the scope's account and mode (enabled). Throws `400` for a refused URL
 * (url.ts), an unknown event type (`event_type_unknown`) or the 16-per-mode limit
 * (`webhook_endpoint_limit_reached`).
 */
export async function createEndpoint(
  scope: Scope,
  input: { url: string; event_types?: string[]; description?: string | null },
): Promise<EndpointWithSecret> {
  await checkEndpointUrl(input.url);
  const url = input.url.trim();
  const eventTypes = checkEventTypes(input.event_types) ?? [];
  const secret = newWebhookSecret();
  const endpoint = await transaction(async (m) => {
    await m.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [scope.accountId]);
    const mine = scoped(scope, m).sql(null, 1);
    const [{ n }]: Array<{ n: number }> = await m.query(
      `SELECT count(*)::int AS n FROM webhook_endpoints WHERE ${mine.where} AND deleted_at IS NULL`,
      mine.params,
    );
    assertEndpointCapacity(n, scope.livemode);
    const row = m.create(WebhookEndpoint, {
      id: newId('whe_'),
      account_id: scope.accountId,
      livemode: scope.livemode,
      url,
      event_types: eventTypes,
      enabled: true,
      disabled_reason: null,
      description: input.description || null,
      secret_ciphertext: encrypt(secret),
      secret_prefix: secret.slice(0, SECRET_PREFIX_LENGTH),
      previous_secret_ciphertext: null,
      previous_secret_expires_at: null,
      consecutive_failures: 0,
      deleted_at: null,
    });
    return m.save(row);
  });
  return { endpoint, secret };
}

/**
 * Updates url, event_types, description and/or enabled of a visible endpoint (404 otherwise).
 * Enabling clears `disabled_reason`, `disabled_at` and the failure streak, and with `replay_missed`
 * queues the events the endpoint missed since `disabled_at` (idempotent: a repeat finds it enabled
 * and queues nothing); disabling sets `disabled_reason: manual` and `disabled_at`. Throws `400`
 * like createEndpoint for url and event types, and `parameter_invalid` param `replay_missed`
 * without `enabled: true`.
 */
export async function updateEndpoint(
  scope: Scope,
  input: { id: string; url?: string; event_types?: string[]; description?: string | null; enabled?: boolean; replay_missed?: boolean },
): Promise<{ endpoint: WebhookEndpoint; replayed: MissedReplay | null }> {
  if (input.url !== undefined) await checkEndpointUrl(input.url);
  const eventTypes = checkEventTypes(input.event_types);
  if (input.replay_missed && input.enabled !== true) {
    throw invalidRequest(
      'parameter_invalid',
      '`replay_missed` goes with `enabled: true` (it replays what a disabled endpoint missed).',
      'replay_missed',
    );
  }
  const out: { replayed: MissedReplay | null } = { replayed: null };
  const endpoint = await transaction(async (m) => {
    const row = await loadEndpoint(m, scope, input.id, true);
    if (input.url !== undefined) row.url = input.url.trim();
    if (eventTypes !== undefined) row.event_types = eventTypes;
    if (input.description !== undefined) row.description = input.description || null;
    const status = webhookEndpointStatus(row);
    if (input.enabled === true && status !== 'enabled') {
      // Queued before the move: the missed events are those since the row's `disabled_at`.
      if (input.replay_missed && row.disabled_at) out.replayed = await queueMissed(m, row, row.disabled_at);
      return enableWebhookEndpoint(m, row);
    } else if (input.enabled === true && input.replay_missed) {
      out.replayed = { since: null, deliveries: [] };
    } else if (input.enabled === false && status !== 'disabled') {
      return disableWebhookEndpoint(m, row, { reason: 'manual' });
    }
    return m.save(row);
  });
  if (out.replayed && out.replayed.deliveries.length > 0) await wakeEndpointsOf(out.replayed.deliveries);
  else if (!endpoint.enabled) await wakeQuietly(endpoint);
  return { endpoint, replayed: out.replayed };
}

/** What re-enabling with `replay_missed` queued: the events since `since` the endpoint missed, as new deliveries. */
export interface MissedReplay {
  since: Date | null;
  deliveries: DeliveryToWake[];
}

/**
 * Queues a delivery to `w` of every event of its account and mode created since `since` that it
 * receives (shipped types it subscribes to, never `test.ping`) and has no delivery of yet, inside
 * `m`. The partial unique index (endpoint_id, event_id) makes a repeat harmless, so the call is
 * idempotent. Events are taken in outbox order, at most 10,000 (older ones stay replayable per
 * delivery from the event list).
 */
async function queueMissed(m: EntityManager, w: WebhookEndpoint, since: Date): Promise<MissedReplay> {
  const shipped = new Set(await currentShippedEventTypes(w.account_id));
  const own = scoped({ accountId: w.account_id, livemode: w.livemode }, m).sql('e', 1);
  const events: Array<{ id: string; type: string }> = await m.query(
    `SELECT e.id, e.type FROM events e
      WHERE ${own.where} AND e.created_at >= $3
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = $4 AND d.event_id = e.id AND d.replay_of IS NULL)
      ORDER BY e.seq LIMIT 10000`,
    [...own.params, since, w.id],
  );
  const rows = events
    .filter((e) => endpointReceives(w.event_types, e.type, shipped))
    .map((e) => ({ id: newId('whd_'), eventId: e.id, type: e.type }));
  if (rows.length === 0) return { since, deliveries: [] };
  const inserted: Array<{ id: string }> = await m.query(
    `INSERT INTO webhook_deliveries (id, account_id, livemode, endpoint_id, event_id, event_type, status)
     SELECT r.id, $1, $2, $3, r.event_id, r.type, $4 FROM jsonb_to_recordset($5::jsonb) AS r(id text, event_id text, type text)
     ON CONFLICT DO NOTHING RETURNING id`,
    [
      w.account_id,
      w.livemode,
      w.id,
      WEBHOOK_DELIVERY_INITIAL_STATUS,
      JSON.stringify(rows.map((r) => ({ id: r.id, event_id: r.eventId, type: r.type }))),
    ],
  );
  return { since, deliveries: inserted.map((r) => ({ id: r.id, account_id: w.account_id, endpoint_id: w.id })) };
}

/** Soft-deletes a visible endpoint (404 otherwise); returns the row as deleted. */
export async function deleteEndpoint(scope: Scope, input: { id: string }): Promise<WebhookEndpoint> {
  const endpoint = await transaction(async (m) => {
    const row = await loadEndpoint(m, scope, input.id, true);
    return deleteWebhookEndpoint(m, row);
  });
  await wakeQuietly(endpoint);
  return endpoint;
}

/**
 * After an endpoint was disabled or deleted: wakes its workflow so its live deliveries are
 * cancelled now and the run ends. Best effort (logged): a run that misses it finds the endpoint
 * closed at its next drain.
 */
async function wakeQuietly(w: WebhookEndpoint): Promise<void> {
  try {
    await wakeEndpoint(w.id, w.account_id);
  } catch (e) {
    logger.warn({ err: e, endpoint_id: w.id }, 'could not wake the webhook endpoint workflow after a disable or delete');
  }
}

/** Rotates the signing secret of a visible endpoint (404 otherwise); the replaced one keeps signing for SECRET_ROTATION_OVERLAP_MS. */
export async function rotateEndpointSecret(scope: Scope, input: { id: string }): Promise<EndpointWithSecret> {
  const secret = newWebhookSecret();
  const endpoint = await transaction(async (m) => {
    const row = await loadEndpoint(m, scope, input.id, true);
    row.previous_secret_ciphertext = row.secret_ciphertext;
    row.previous_secret_expires_at = new Date(previousSecretExpiresAtMs(Date.now()));
    row.secret_ciphertext = encrypt(secret);
    row.secret_prefix = secret.slice(0, SECRET_PREFIX_LENGTH);
    return m.save(row);
  });
  return { endpoint, secret };
}

/**
 * Emits a `test.ping` event for a visible endpoint (404 otherwise) and delivers it to that
 * endpoint only (the dispatcher never fans out test.ping); the scope's request (id and
 * idempotency key) is recorded on the event. Throws `409 webhook_endpoint_disabled` when disabled.
 * Returns the new delivery as stored after its endpoint was woken.
 */
export async function sendTestEvent(scope: Scope, input: { id: string }): Promise<WebhookDelivery> {
  const d = await transaction(async (m) => {
    const w = await loadEndpoint(m, scope, input.id);
    assertCanSendTestEvent(w);
    const eventId = await emitEvent(m, {
      accountId: scope.accountId,
      livemode: w.livemode,
      type: TEST_PING_EVENT_TYPE,
      objectType: 'webhook_endpoint',
      objectId: w.id,
      object: { id: w.id, object: 'webhook_endpoint', livemode: w.livemode, url: w.url },
      request: scope.request,
    });
    // Delivered only here: the dispatcher never fans out test.ping; mark it dispatched now.
    await m.query('UPDATE events SET dispatched_at = now() WHERE id = $1', [eventId]);
    return insertDelivery(m, {
      accountId: scope.accountId,
      livemode: w.livemode,
      endpointId: w.id,
      eventId,
      eventType: TEST_PING_EVENT_TYPE,
    });
  });
  return startAndReload(d);
}

/**
 * Delivers the event of a visible delivery (404 otherwise) to the same endpoint again, as a new
 * delivery with `replay_of` (the original is not changed). Throws `409
 * webhook_endpoint_deleted` / `webhook_endpoint_disabled` (domain/webhooks.ts assertCanReplay).
 */
export async function replayDelivery(scope: Scope, input: { id: string }): Promise<WebhookDelivery> {
  const original = await loadDelivery(scope, input);
  const d = await transaction(async (m) => {
    assertCanReplay(await m.findOneBy(WebhookEndpoint, { id: original.endpoint_id }));
    return insertDelivery(m, {
      accountId: original.account_id,
      livemode: original.livemode,
      endpointId: original.endpoint_id,
      eventId: original.event_id,
      eventType: original.event_type,
      replayOf: original.id,
    });
  });
  return startAndReload(d);
}

/** Inserts a delivery row (`pending`) inside `m`'s transaction. */
async function insertDelivery(
  m: EntityManager,
  a: { accountId: string; livemode: boolean; endpointId: string; eventId: string; eventType: string; replayOf?: string | null },
): Promise<WebhookDelivery> {
  const d = m.create(WebhookDelivery, {
    id: newId('whd_'),
    account_id: a.accountId,
    livemode: a.livemode,
    endpoint_id: a.endpointId,
    event_id: a.eventId,
    event_type: a.eventType,
    status: WEBHOOK_DELIVERY_INITIAL_STATUS,
    attempt_count: 0,
    replay_of: a.replayOf ?? null,
  });
  await m.save(d);
  return d;
}

/** Wakes the endpoint workflow after commit; a failure is left to the dispatcher's sweep. Returns the fresh row. */
async function startAndReload(d: WebhookDelivery): Promise<WebhookDelivery> {
  await wakeEndpointsOf([{ account_id: d.account_id, endpoint_id: d.endpoint_id }]);
  return (await db().getRepository(WebhookDelivery).findOneBy({ id: d.id })) ?? d;
}
