/**
 * The endpoint drain activity (spec 4.10, 6; workflows/webhook-endpoint.ts): one call sends every
 * due delivery of one webhook endpoint, up to DRAIN_BATCH, with at most DRAIN_CONCURRENCY requests
 * in flight, and records the results in batched transactions (./record.ts). Rounds:
 * once every delivery it took has been sent, a call takes the deliveries that became due
 * meanwhile (oldest first, never one it already took, DRAIN_BATCH in all) until REFILL_FOR_MS after
 * its start, re-checking first that the endpoint is still enabled and the switch on; when none is
 * due yet it waits up to IDLE_WAIT_MS for the dispatcher's notification (./delivery-wake.ts); so a
 * steady stream goes out without a workflow round trip and a summary per batch. While a call sends,
 * the dispatcher in its process does not signal the endpoint's workflow either (`markDrainReading`):
 * the call reads the deliveries committed meanwhile in a further round or in its summary (`due`). The endpoint workflow
 * owns when to call it; the retry schedule lives on the rows (`next_attempt_at`, computed from
 * domain/webhook-schedule.ts), so a restarted workflow or worker loses nothing.
 *
 * Clock: the workflow passes its own time (`nowMs`); the activity advances it by the real time it
 * has run. Due means `next_attempt_at` null (never attempted) or at or before that clock. Under the
 * time-skipping test server the schedule therefore follows skipped time.
 *
 * Each request is one signed POST (Standard Webhooks: `webhook-id` = the event id on every attempt
 * and replay, `webhook-timestamp`, `webhook-signature` `v1,<base64 HMAC-SHA256>`, two entries during
 * a rotation overlap, new secret first) of the event envelope (views/event.ts), 10 s budget,
 * redirects not followed (./http.ts). The URL rule is checked once per call (./url.ts): a refusal
 * fails the due deliveries at once (`url_rejected`); the guarded agent re-resolves the host on every
 * new connection. Signing secrets are decrypted only here, never passed through workflow history.
 *
 * At least once: a crash between a send and its write re-sends that attempt on the next call (same
 * `webhook-id`; receivers de-duplicate by it). Nothing is sent while the `api_v1.webhooks_delivery`
 * switch is off (due deliveries get `held_at`), nor to a disabled or deleted endpoint (its live
 * deliveries become `cancelled` and the summary says `closed`).
 */
import { Context } from '@temporalio/activity';
import crypto from 'node:crypto';
import type { DrainSummary, FailingDelivery } from '../../contracts/webhook-endpoint';
import { DomainError } from '../../domain/errors';
import { attemptOutcome } from '../../domain/webhook-schedule';
import { assertDeliveryWrite, DELIVERY_SWITCH, LIVE_DELIVERY_STATUSES, previousSecretSigns } from '../../domain/webhooks';
import { EventRow } from '../../entities';
import { db } from '../../lib/db';
import { newId } from '../../lib/ids';
import { decrypt } from '../../lib/secrets';
import { isSwitchOn } from '../../lib/switches';
import { inTraceOf } from '../../lib/tracing';
import { eventView } from '../../views/event';
import { type HttpResult, isSuccess, postWebhook } from './http';
import { cancelLiveDeliveries } from '../records/webhook-deliveries';
import { type AttemptRecord, recordAttempts } from './record';
import { parseEndpointUrl } from './url';
import { armDeliveryWake, markDrainReading } from './delivery-wake';
import { webhookAttemptDuration, webhookAttempts, webhookDeliveryLag } from '../../lib/metrics';

/** Deliveries taken per call. */
export const DRAIN_BATCH = 2000;
/** Requests in flight per endpoint. */
export const DRAIN_CONCURRENCY = 64;
/** How long after its start a call still takes a further round of deliveries that became due meanwhile, ms. */
export const REFILL_FOR_MS = 5_000;
/**
 * How long a call that has sent everything it took waits for the endpoint's next deliveries (the
 * dispatcher's notification, ./delivery-wake.ts) before it returns to the workflow, ms.
 */
export const IDLE_WAIT_MS = 500;
/** Results written per transaction (a partial batch is written when the sends run dry). */
export const RECORD_BATCH = 250;
/** Interval of the drain's own heartbeats, ms (the endpoint workflow's heartbeat timeout is 10 s). */
export const HEARTBEAT_EVERY_MS = 2_000;
/** Failing deliveries listed in a summary. */
export const FAILING_LISTED = 5;

interface EndpointRow {
  id: string;
  url: string;
  enabled: boolean;
  deleted_at: Date | null;
  secret_ciphertext: string;
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: Date | null;
}

interface DueRow {
  id: string;
  status: string;
  attempt_count: number;
  event: EventRow | null;
}

/** What one call did, by outcome (DrainSummary's counts). */
type Counts = Pick<DrainSummary, 'sent' | 'succeeded' | 'retrying' | 'failed' | 'cancelled'>;

/**
 * Activity: drains endpoint `endpointId` at workflow time `nowMs` (epoch ms) as described in the
 * module doc. Returns the DrainSummary (contracts/webhook-endpoint.ts). Throws only on database errors (the workflow's retry
 * policy repeats the call; attempts already written are not sent again).
 */
export async function drainEndpoint(endpointId: string, nowMs: number): Promise<DrainSummary> {
  const wallStart = Date.now();
  const clock = (): number => nowMs + (Date.now() - wallStart);
  const counts: Counts = { sent: 0, succeeded: 0, retrying: 0, failed: 0, cancelled: 0 };
  const w: EndpointRow | undefined = (
    await db().query(
      `SELECT id, url, enabled, deleted_at, secret_ciphertext, previous_secret_ciphertext, previous_secret_expires_at
       FROM webhook_endpoints WHERE id = $1`,
      [endpointId],
    )
  )[0];
  if (!w || w.deleted_at || !w.enabled) {
    const reason = !w ? 'endpoint_not_found' : w.deleted_at ? 'endpoint_deleted' : 'endpoint_disabled';
    counts.cancelled = await cancelLiveDeliveries(endpointId, reason);
    return { state: 'closed', closedReason: reason, ...counts, live: 0, due: 0, nextDueAtMs: null, failing: [] };
  }
  if (!(await isSwitchOn(DELIVERY_SWITCH))) {
    // Marked so the dispatcher can nudge this endpoint the moment the switch is on again.
    await db().query(
      `UPDATE webhook_deliveries SET held_at = now()
        WHERE endpoint_id = $1 AND status = ANY($2) AND held_at IS NULL AND (next_attempt_at IS NULL OR next_attempt_at <= $3)`,
      [endpointId, LIVE_DELIVERY_STATUSES, new Date(clock())],
    );
    return { state: 'held', closedReason: null, ...counts, ...(await summarize(endpointId, clock())) };
  }

  // From here until the summary this call reads the endpoint's deliveries again before it returns, so
  // the dispatcher in this process need not signal the workflow for one committed meanwhile (./delivery-wake.ts).
  const doneReading = markDrainReading(endpointId);
  try {
    await sendDue(w, wallStart, clock, counts);
  } finally {
    doneReading();
  }
  return { state: 'open', closedReason: null, ...counts, ...(await summarize(endpointId, clock())) };
}

/**
 * The open part of a call to endpoint `w` (see drainEndpoint) that started at wall time `wallStart`:
 * sends the due deliveries in rounds and writes their attempts; adds to `counts`.
 */
async function sendDue(w: EndpointRow, wallStart: number, clock: () => number, counts: Counts): Promise<void> {
  const endpointId = w.id;
  const due = await loadDue(endpointId, clock());
  const orphans = due.filter((d) => !d.event).map((d) => d.id);
  await cancelLiveDeliveries(endpointId, 'event_not_found', orphans);
  counts.cancelled = orphans.length;
  const work = due.filter((d) => d.event);
  if (work.length > 0) {
    const sender = endpointSender(w);
    let enabled = true;
    // A cancelled call (Temporal gave up on it after a missed heartbeat and retries it elsewhere, or
    // the worker is shutting down) starts no further POST: it writes what it sent and returns.
    const go = (): boolean => enabled && !cancelled();
    let pending: AttemptRecord[] = [];
    let writing: Promise<void> = Promise.resolve();
    const flush = (): void => {
      const batch = pending;
      pending = [];
      writing = writing.then(async () => {
        const r = await recordAttempts(endpointId, batch);
        if (!r.enabled) enabled = false;
        heartbeat();
      });
      // Awaited below; this handler only keeps a failed write from being an unhandled rejection when
      // the loop throws first (PostgreSQL restarted mid-drain): the activity fails and is retried.
      writing.catch(() => undefined);
    };
    const taken = new Set(due.map((d) => d.id));
    // A heartbeat every HEARTBEAT_EVERY_MS as well as after each write: a drain whose receivers all
    // hang for the full request budget still reports in, so a short heartbeat timeout is safe.
    const beat = setInterval(heartbeat, HEARTBEAT_EVERY_MS);
    try {
      // Rounds (module doc): each sends what it took, DRAIN_CONCURRENCY at a time; the next takes what
      // became due meanwhile, never a delivery this call already took.
      for (let round = work; round.length > 0 && go();) {
        let next = 0;
        await Promise.all(
          Array.from({ length: Math.min(DRAIN_CONCURRENCY, round.length) }, async () => {
            while (next < round.length && go()) {
              const d = round[next++];
              const attempt = d.attempt_count + 1;
              // Tracing on: the POST is a span of the trace that wrote the event (events.trace_parent), linked to this drain's.
              const http = await inTraceOf(
                d.event!.trace_parent,
                'webhook.deliver',
                {
                  'payments.webhook_delivery_id': d.id,
                  'payments.event_id': d.event!.id,
                  'payments.webhook_endpoint_id': endpointId,
                  'payments.attempt': attempt,
                },
                () => sender(d.event!),
              );
              const outcome = attemptOutcome(isSuccess(http.statusCode), http.retryable, attempt);
              assertDeliveryWrite(d.status, outcome);
              pending.push({ id: newId('wha_'), deliveryId: d.id, attempt, http, finishedAtMs: clock() });
              counts.sent += 1;
              counts[outcome] += 1;
              observeAttempt(outcome, http.latencyMs, outcome === 'succeeded' ? d.event!.created_at : null);
              if (pending.length >= RECORD_BATCH) flush();
            }
          }),
        );
        // Each round's results are written when it ends, as a call's were: a further round never delays them.
        if (pending.length > 0) flush();
        // Nothing new yet: wait up to IDLE_WAIT_MS for the dispatcher's notification (./delivery-wake.ts)
        // rather than return to the workflow, while the call may still take rounds.
        let fresh: DueRow[] = [];
        while (go() && taken.size < DRAIN_BATCH && Date.now() - wallStart < REFILL_FOR_MS && (await stillOpen(endpointId))) {
          const wake = await armDeliveryWake(endpointId);
          fresh = (await loadDue(endpointId, clock())).filter((d) => !taken.has(d.id)).slice(0, DRAIN_BATCH - taken.size);
          if (fresh.length > 0) {
            wake.cancel();
            break;
          }
          if (!(await wake.wait(Math.min(IDLE_WAIT_MS, REFILL_FOR_MS - (Date.now() - wallStart))))) break;
        }
        if (fresh.length === 0) break;
        for (const d of fresh) taken.add(d.id);
        counts.cancelled += await cancelLiveDeliveries(
          endpointId,
          'event_not_found',
          fresh.filter((d) => !d.event).map((d) => d.id),
        );
        round = fresh.filter((d) => d.event);
      }
      if (pending.length > 0) flush();
      await writing;
    } finally {
      clearInterval(beat);
    }
  }
}

/** Counts one attempt in the webhook metrics (lib/metrics.ts); `eventCreatedAt` (a success) adds the commit-to-receipt lag. */
function observeAttempt(outcome: 'succeeded' | 'retrying' | 'failed', latencyMs: number, eventCreatedAt: Date | null): void {
  webhookAttempts.inc({ outcome });
  webhookAttemptDuration.observe({ outcome }, latencyMs / 1000);
  if (eventCreatedAt) webhookDeliveryLag.observe(Math.max(0, Date.now() - new Date(eventCreatedAt).getTime()) / 1000);
}

/** Whether the endpoint is still enabled and not deleted and the delivery switch still on (checked before each further round). */
async function stillOpen(endpointId: string): Promise<boolean> {
  const [r]: Array<{ open: boolean }> = await db().query(
    'SELECT enabled AND deleted_at IS NULL AS open FROM webhook_endpoints WHERE id = $1',
    [endpointId],
  );
  return Boolean(r?.open) && (await isSwitchOn(DELIVERY_SWITCH));
}

/** Due live deliveries of the endpoint, oldest first, with their events (null when the event is gone). */
async function loadDue(endpointId: string, atMs: number): Promise<DueRow[]> {
  const rows: Array<Record<string, any>> = await db().query(
    `SELECT d.id AS d_id, d.status AS d_status, d.attempt_count AS d_attempt_count,
            e.id, e.livemode, e.type, e.object_type, e.object_id, e.data, e.request_id, e.idempotency_key, e.api_version, e.created_at, e.seq, e.trace_parent
       FROM webhook_deliveries d LEFT JOIN events e ON e.id = d.event_id
      WHERE d.endpoint_id = $1 AND d.status = ANY($2) AND (d.next_attempt_at IS NULL OR d.next_attempt_at <= $3)
      ORDER BY d.created_at, d.id LIMIT $4`,
    [endpointId, LIVE_DELIVERY_STATUSES, new Date(atMs), DRAIN_BATCH],
  );
  return rows.map(({ d_id, d_status, d_attempt_count, ...e }) => ({
    id: d_id,
    status: d_status,
    attempt_count: d_attempt_count,
    event: e.id ? Object.assign(new EventRow(), e) : null,
  }));
}

/** What the endpoint has left after a call (see DrainSummary), in one round trip. */
async function summarize(endpointId: string, atMs: number): Promise<Pick<DrainSummary, 'live' | 'due' | 'nextDueAtMs' | 'failing'>> {
  const [row]: Array<{ live: number; due: number; next_due: Date | null; failing: FailingDelivery[] | null }> = await db().query(
    `SELECT count(*)::int AS live,
            count(*) FILTER (WHERE next_attempt_at IS NULL OR next_attempt_at <= $3)::int AS due,
            min(next_attempt_at) FILTER (WHERE next_attempt_at > $3) AS next_due,
            (SELECT json_agg(json_build_object('id', f.id, 'attempts', f.attempt_count,
                       'nextAttemptAtMs', (extract(epoch FROM f.next_attempt_at) * 1000)::bigint, 'lastError', f.last_error))
               FROM (SELECT id, attempt_count, next_attempt_at, last_error FROM webhook_deliveries
                      WHERE endpoint_id = $1 AND status = 'retrying' ORDER BY next_attempt_at LIMIT $4) f) AS failing
       FROM webhook_deliveries WHERE endpoint_id = $1 AND status = ANY($2)`,
    [endpointId, LIVE_DELIVERY_STATUSES, new Date(atMs), FAILING_LISTED],
  );
  return { live: row.live, due: row.due, nextDueAtMs: row.next_due ? row.next_due.getTime() : null, failing: row.failing ?? [] };
}

/**
 * A sender for one endpoint: the URL checked and the secrets decrypted once; each call signs and
 * POSTs one event and never throws (a refused URL answers `url_rejected`, not retryable).
 */
function endpointSender(w: EndpointRow): (event: EventRow) => Promise<HttpResult> {
  let url: URL;
  try {
    url = parseEndpointUrl(w.url);
  } catch (e) {
    const msg = e instanceof DomainError ? e.message : String((e as Error)?.message ?? e);
    const refused: HttpResult = {
      statusCode: null,
      error: `url_rejected: ${msg}`.slice(0, 500),
      latencyMs: 0,
      excerpt: null,
      retryable: false,
    };
    return async () => refused;
  }
  const now = Date.now();
  const signers = [signer(decrypt(w.secret_ciphertext))];
  if (w.previous_secret_ciphertext && previousSecretSigns(w.previous_secret_expires_at?.getTime() ?? null, now)) {
    signers.push(signer(decrypt(w.previous_secret_ciphertext)));
  }
  return (event) => {
    const payload = JSON.stringify(eventView(event));
    const at = new Date();
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'PaymentsPlatform-Webhooks/1.0',
      'webhook-id': event.id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signers.map((sign) => sign(event.id, at, payload)).join(' '),
    };
    return postWebhook(url, headers, payload);
  };
}

/**
 * The Standard Webhooks signature of one message with secret `whsec_<base64 key>`:
 * `v1,<base64 HMAC-SHA256(key, "<id>.<unix seconds>.<payload>")>`, the same string as
 * `standardwebhooks`' `Webhook.sign`, computed with node:crypto (that package hashes in JavaScript,
 * a measurable share of the drain's CPU at thousands of deliveries per second).
 */
function signer(secret: string): (id: string, at: Date, payload: string) => string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  if (key.length === 0) throw new Error("Secret can't be empty.");
  return (id, at, payload) =>
    `v1,${crypto
      .createHmac('sha256', key)
      .update(`${id}.${Math.floor(at.getTime() / 1000)}.${payload}`)
      .digest('base64')}`;
}

/** Whether this call, running as an activity, was cancelled (a direct call outside a worker never is). */
function cancelled(): boolean {
  try {
    return Context.current().cancellationSignal.aborted;
  } catch {
    return false;
  }
}

/** Heartbeats when running as an activity (a direct call outside a worker has no context). */
function heartbeat(): void {
  try {
    Context.current().heartbeat();
  } catch {
    /* not inside an activity */
  }
}
