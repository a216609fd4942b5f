/**
 * Webhook delivery activities (spec 4.10 webhook rows, 6) and the endpoint URL rule.
 *
 * One delivery = one event to one endpoint, driven by workflows/webhook-delivery.ts, which owns
 * the retry schedule. `attemptDelivery` makes one signed HTTP POST (Standard Webhooks:
 * `webhook-id`, `webhook-timestamp`, `webhook-signature`) and records it; it never retries by
 * itself. Signing secrets are decrypted only inside the activity, never passed through
 * workflow history.
 */
import net from 'node:net';
import { Webhook } from 'standardwebhooks';
import { request } from 'undici';
import type { EntityManager } from 'typeorm';
import { ENDPOINT_DISABLED_EVENT_TYPE } from '../domain/event-types';
import { DomainError } from '../domain/errors';
import { EventRow, WebhookDelivery, WebhookEndpoint } from '../entities';
import { eventView } from '../api/views/event';
import { webhookEndpointView } from '../api/views/webhook';
import { isSwitchOn } from '../api/switches';
import { loadConfig } from '../lib/config';
import { db, transaction } from '../lib/db';
import { newId } from '../lib/ids';
import { logger } from '../lib/logger';
import { decrypt } from '../lib/secrets';
import { emitEvent } from './outbox';

/** Total time budget of one HTTP attempt (connect, headers, body), ms. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Characters of the response body kept on the attempt row. */
export const RESPONSE_EXCERPT_CHARS = 500;
/**
 * Auto-disable threshold: when a delivery exhausts its retry schedule while the endpoint has at
 * least this many failed attempts in a row (across all its deliveries; any 2xx resets the count),
 * the endpoint is disabled with `disabled_reason: auto_disabled_repeated_failures` and a
 * `webhook_endpoint.disabled` event is emitted.
 */
export const AUTO_DISABLE_CONSECUTIVE_FAILURES = 20;
/** Switch gating actual delivery (spec 6): off = attempts are held, never lost. */
export const DELIVERY_SWITCH = 'api_v1.webhooks_delivery';

// ---------------------------------------------------------------------------------------------
// Endpoint URL rule
// ---------------------------------------------------------------------------------------------

const BLOCKED = new net.BlockList();
for (const [a, p] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) BLOCKED.addSubnet(a, p, 'ipv4');
// IPv4 rules also match IPv4-mapped IPv6 (::ffff:a.b.c.d), so no ::ffff:0:0/96 rule (it would match every IPv4).
for (const [a, p] of [['::', 128], ['::1', 128], ['64:ff9b::', 96], ['100::', 64], ['2001:db8::', 32],
  ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) BLOCKED.addSubnet(a, p, 'ipv6');

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1']);

function badUrl(code: string, message: string): DomainError {
  return new DomainError('invalid_request', code, message, { param: 'url' });
}

/**
 * Checks a webhook endpoint URL (spec 4.10 `url`); returns the parsed URL or throws
 * `400 invalid_request` with `param: 'url'` and code `url_invalid` (malformed, credentials,
 * fragment, over 2048 characters), `url_not_https` or `url_destination_forbidden` (localhost,
 * single-label or internal names, private/loopback/link-local/reserved IP literals, the
 * platform's own payer host).
 * `allowLoopback` (default: env `WEBHOOKS_ALLOW_LOOPBACK=true`, dev and tests only) also admits
 * `http` or `https` to 127.0.0.1, localhost and [::1].
 * This is the single place to harden (DNS resolution and re-resolution before each send are a
 * later issue); it is called on create/update and again before every attempt.
 */
export function checkEndpointUrl(raw: unknown, opts: { allowLoopback?: boolean } = {}): URL {
  const allowLoopback = opts.allowLoopback ?? loadConfig().webhooksAllowLoopback;
  if (typeof raw !== 'string' || raw.trim() === '') throw badUrl('url_invalid', '`url` must be an absolute https URL.');
  const s = raw.trim();
  if (s.length > 2048) throw badUrl('url_invalid', '`url` must be at most 2048 characters.');
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    throw badUrl('url_invalid', '`url` must be an absolute https URL.');
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw badUrl('url_not_https', '`url` must use https.');
  if (u.username || u.password) throw badUrl('url_invalid', '`url` must not carry credentials.');
  if (u.hash) throw badUrl('url_invalid', '`url` must not carry a fragment.');
  const host = u.hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  if (allowLoopback && LOOPBACK_NAMES.has(host)) return u;
  if (u.protocol !== 'https:') throw badUrl('url_not_https', '`url` must use https.');
  const family = net.isIP(host);
  if (family !== 0) {
    if (BLOCKED.check(host, family === 4 ? 'ipv4' : 'ipv6')) {
      throw badUrl('url_destination_forbidden', '`url` must point to a public address, not a private, loopback, link-local or reserved one.');
    }
    return u;
  }
  if (!host.includes('.') || host === 'localhost' || /\.(localhost|local|internal|localdomain|home\.arpa)$/.test(host)) {
    throw badUrl('url_destination_forbidden', '`url` must name a public host.');
  }
  let platformHost: string | null = null;
  try { platformHost = new URL(loadConfig().payerHost).hostname.toLowerCase(); } catch { /* unset */ }
  if (platformHost && host === platformHost) throw badUrl('url_destination_forbidden', '`url` must not point at this platform.');
  return u;
}

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

const FINAL = new Set(['succeeded', 'failed', 'cancelled']);

interface HttpResult { statusCode: number | null; error: string | null; latencyMs: number; excerpt: string | null; retryable: boolean }

/**
 * Activity: one HTTP attempt (number `attemptNumber`, 1-based) of delivery `deliveryId`.
 * POSTs the event envelope (api/views/event.ts) as JSON with the Standard Webhooks headers:
 * `webhook-id` = the event id (the same on every attempt and on replays, so receivers can
 * de-duplicate and recognise a replay), `webhook-timestamp` (Unix seconds),
 * `webhook-signature` (`v1,<base64 HMAC-SHA256>`; during a rotation overlap two space-separated
 * entries, new secret first). 10 s timeout; redirects are not followed (3xx = failure).
 * Records a `webhook_attempts` row and updates the delivery (status, attempt_count,
 * last_status_code, last_error, next_attempt_at = now + `nextRetryInMs` when retrying,
 * delivered_at) and the endpoint's consecutive failure count (auto-disable, see
 * AUTO_DISABLE_CONSECUTIVE_FAILURES). `nextRetryInMs` null means this is the last attempt.
 * Never sends while the `api_v1.webhooks_delivery` switch is off (`held`), nor to a disabled or
 * deleted endpoint (the delivery becomes `cancelled`). Throws only on database errors.
 */
export async function attemptDelivery(deliveryId: string, attemptNumber: number, opts: { nextRetryInMs?: number | null } = {}): Promise<AttemptResult> {
  const nextRetryInMs = opts.nextRetryInMs ?? null;
  const repo = db().getRepository(WebhookDelivery);
  const d = await repo.findOneBy({ id: deliveryId });
  if (!d) return { outcome: 'cancelled', ok: false, retryable: false, statusCode: null, error: 'delivery_not_found' };
  if (FINAL.has(d.status)) return { outcome: 'done', ok: d.status === 'succeeded', retryable: false, statusCode: d.last_status_code, error: null };
  const prior: Array<{ status_code: number | null; error: string | null }> = await db().query(
    'SELECT status_code, error FROM webhook_attempts WHERE delivery_id = $1 AND attempt_number = $2', [deliveryId, attemptNumber]);
  if (prior[0]) {
    // This attempt already went out (a restarted run): report it rather than sending twice.
    const ok = isSuccess(prior[0].status_code);
    return { outcome: ok ? 'succeeded' : nextRetryInMs === null ? 'failed' : 'retrying', ok, retryable: !ok, statusCode: prior[0].status_code, error: prior[0].error };
  }
  if (!(await isSwitchOn(DELIVERY_SWITCH))) return { outcome: 'held', ok: false, retryable: true, statusCode: null, error: 'delivery_switched_off' };

  const endpoint = await db().getRepository(WebhookEndpoint).findOneBy({ id: d.endpoint_id });
  if (!endpoint || endpoint.deleted_at || !endpoint.enabled) {
    await cancelDelivery(deliveryId, endpoint?.deleted_at ? 'endpoint_deleted' : 'endpoint_disabled');
    return { outcome: 'cancelled', ok: false, retryable: false, statusCode: null, error: 'endpoint_unavailable' };
  }
  const event = await db().getRepository(EventRow).findOneBy({ id: d.event_id });
  if (!event) {
    await cancelDelivery(deliveryId, 'event_not_found');
    return { outcome: 'cancelled', ok: false, retryable: false, statusCode: null, error: 'event_not_found' };
  }

  let http: HttpResult;
  try {
    const url = checkEndpointUrl(endpoint.url);
    http = await send(url, endpoint, event);
  } catch (e) {
    const msg = e instanceof DomainError ? e.message : String((e as Error)?.message ?? e);
    http = { statusCode: null, error: `url_rejected: ${msg}`.slice(0, 500), latencyMs: 0, excerpt: null, retryable: false };
  }
  const ok = isSuccess(http.statusCode);
  const outcome: AttemptResult['outcome'] = ok ? 'succeeded' : (http.retryable && nextRetryInMs !== null ? 'retrying' : 'failed');
  await transaction((m) => recordAttempt(m, d, endpoint, attemptNumber, http, outcome, nextRetryInMs));
  return { outcome, ok, retryable: !ok && http.retryable, statusCode: http.statusCode, error: http.error };
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
    if (FINAL.has(d.status)) return 'done';
    const endpoint = await m.findOneBy(WebhookEndpoint, { id: d.endpoint_id });
    if (!endpoint) return 'cancelled';
    const outcome = nextRetryInMs === null ? 'failed' : 'retrying';
    await recordAttempt(m, d, endpoint, attemptNumber,
      { statusCode: null, error: `attempt_error: ${error}`.slice(0, 500), latencyMs: 0, excerpt: null, retryable: true }, outcome, nextRetryInMs);
    return outcome;
  });
}

function isSuccess(status: number | null): boolean {
  return status !== null && status >= 200 && status < 300;
}

async function cancelDelivery(deliveryId: string, reason: string): Promise<void> {
  await db().query(
    `UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL, last_error = $2, updated_at = now()
      WHERE id = $1 AND status NOT IN ('succeeded','failed','cancelled')`, [deliveryId, reason]);
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
  const started = performance.now();
  const elapsed = () => Math.max(0, Math.round(performance.now() - started));
  try {
    const res = await request(url, {
      method: 'POST', headers, body: payload, maxRedirections: 0,
      headersTimeout: WEBHOOK_TIMEOUT_MS, bodyTimeout: WEBHOOK_TIMEOUT_MS, signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    });
    const excerpt = await readExcerpt(res.body);
    const status = res.statusCode;
    let error: string | null = null;
    if (status >= 300 && status < 400) {
      const loc = res.headers.location;
      error = `redirect_not_followed${loc ? `: ${String(Array.isArray(loc) ? loc[0] : loc).slice(0, 200)}` : ''}`;
    } else if (!isSuccess(status)) error = `http_status_${status}`;
    return { statusCode: status, error, latencyMs: elapsed(), excerpt, retryable: true };
  } catch (e) {
    return { statusCode: null, error: classifyError(e), latencyMs: elapsed(), excerpt: null, retryable: true };
  }
}

/** First RESPONSE_EXCERPT_CHARS characters of a response body; reads at most 4 KiB, then drops the rest. */
async function readExcerpt(body: AsyncIterable<Buffer> & { destroy?: () => void }): Promise<string | null> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      total += chunk.length;
      if (total >= 4096) break; // leaving the loop destroys the stream
    }
  } catch {
    /* body timed out or was cut: keep what arrived */
  } finally {
    body.destroy?.();
  }
  if (total === 0) return null;
  return Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_EXCERPT_CHARS);
}

function classifyError(e: unknown): string {
  const err = e as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err?.code ?? err?.cause?.code;
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError' || code === 'UND_ERR_HEADERS_TIMEOUT'
    || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_ABORTED') return 'timeout';
  return `connection_error: ${code ?? err?.message ?? String(e)}`.slice(0, 500);
}

/** Writes the attempt row and the delivery/endpoint state after one attempt, inside `m`'s transaction. */
async function recordAttempt(m: EntityManager, d: WebhookDelivery, endpoint: WebhookEndpoint, attemptNumber: number, http: HttpResult,
  outcome: AttemptResult['outcome'], nextRetryInMs: number | null): Promise<void> {
  await m.query(
    `INSERT INTO webhook_attempts(id, delivery_id, attempt_number, status_code, error, latency_ms, response_excerpt)
     VALUES ($1,$2,$3,$4,$5,$6,$7) ON CONFLICT (delivery_id, attempt_number) DO NOTHING`,
    [newId('wha_'), d.id, attemptNumber, http.statusCode, http.error, http.latencyMs, http.excerpt]);
  const succeeded = outcome === 'succeeded';
  await m.query(
    `UPDATE webhook_deliveries SET status = $2, attempt_count = GREATEST(attempt_count, $3), last_status_code = $4, last_error = $5,
            next_attempt_at = CASE WHEN $2 = 'retrying' THEN now() + make_interval(secs => $6::float8 / 1000) ELSE NULL END,
            delivered_at = CASE WHEN $2 = 'succeeded' THEN now() ELSE delivered_at END,
            workflow_started_at = COALESCE(workflow_started_at, now()), updated_at = now()
      WHERE id = $1 AND status NOT IN ('succeeded','failed','cancelled')`,
    [d.id, outcome, attemptNumber, http.statusCode, succeeded ? null : http.error, nextRetryInMs ?? 0]);
  if (succeeded) {
    await m.query('UPDATE webhook_endpoints SET consecutive_failures = 0 WHERE id = $1 AND consecutive_failures <> 0', [endpoint.id]);
    return;
  }
  // TypeORM answers UPDATE ... RETURNING with [rows, rowCount].
  const [rows]: [Array<{ consecutive_failures: number }>, number] = await m.query(
    'UPDATE webhook_endpoints SET consecutive_failures = consecutive_failures + 1 WHERE id = $1 RETURNING consecutive_failures', [endpoint.id]);
  const failures = rows[0]?.consecutive_failures ?? 0;
  if (outcome === 'failed' && failures >= AUTO_DISABLE_CONSECUTIVE_FAILURES) await autoDisable(m, endpoint.id);
}

/** Disables an endpoint after repeated failures and emits `webhook_endpoint.disabled` (spec 2.11, 6). No-op if already disabled or deleted. */
async function autoDisable(m: EntityManager, endpointId: string): Promise<void> {
  const w = await m.findOne(WebhookEndpoint, { where: { id: endpointId }, lock: { mode: 'pessimistic_write' } });
  if (!w || !w.enabled || w.deleted_at) return;
  w.enabled = false;
  w.disabled_reason = 'auto_disabled_repeated_failures';
  await m.save(w);
  await emitEvent(m, {
    accountId: w.account_id, livemode: w.livemode, type: ENDPOINT_DISABLED_EVENT_TYPE,
    objectType: 'webhook_endpoint', objectId: w.id, object: webhookEndpointView(w),
  });
  logger.warn({ endpoint_id: w.id, account_id: w.account_id }, 'webhook endpoint auto-disabled after repeated failures');
}
