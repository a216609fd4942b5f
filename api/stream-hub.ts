/**
 * The events stream hub (spec 6 "Stream", 4.10 `GET /events/stream`). One per API process:
 *
 * - Live push: a gap-safe tail of the outbox (activities/events/tail.ts), read when channel
 *   `events` says something committed (the process's shared LISTEN connection, lib/notify.ts;
 *   lib/outbox.ts announces after commit), every TAIL_POLL_MS while streams are open (a hint lost
 *   with a crashed writer), and again after TAIL_GAP_RETRY_MS while a gap holds it back. Rows come
 *   in outbox order, each once, and are fanned out in-process to the open streams of the event's
 *   account and mode. Nothing is read while no stream is open; the first stream after an idle
 *   spell starts the tail at the newest event (a stream without `Last-Event-ID` is live only).
 * - Resume: a stream opened with a `Last-Event-ID` first replays the events after that id from the
 *   database (pages of 500, outbox order) while live events are held back, then releases the held
 *   ones (ids already replayed are skipped), then goes live. A stream never sends the same id twice.
 * - Heartbeats: a comment frame every STREAM_HEARTBEAT_SECONDS on every stream. Each tick also
 *   closes every stream when the `api_v1.events` switch is off or the LISTEN connection is down
 *   (clients reconnect with `Last-Event-ID` and replay what they missed; while the switch is off
 *   the reconnect is refused with 503).
 * - Credentials: on `auth_changed` (DB triggers on keys, sessions, memberships) each stream's
 *   credential is authenticated again; a revoked or expired key or session closes its stream.
 * - Slow consumers: a stream with more than 1 MiB unsent is closed (the client resumes).
 * - Shutdown: `closeAllStreams()` ends every stream so the HTTP server can close.
 */
import { PassThrough } from 'node:stream';
import type Koa from 'koa';
import { commentFrame, eventFrame, retryFrame } from '../domain/sse';
import type { EventRow } from '../entities';
import { eventsAfter } from '../activities/events/queries';
import { OutboxTail } from '../activities/events/tail';
import { loadConfig } from '../lib/config';
import { logger } from '../lib/logger';
import { notifyHealthy, onListenerLost, onNotify } from '../lib/notify';
import type { Caller } from './context';
import { authenticateKey, authenticateSession, presentedCredential } from './middleware/auth';
import { currentShippedEventTypes, isSwitchOn } from '../lib/switches';
import { eventView } from '../views/event';

const REPLAY_PAGE = 500;
const MAX_UNSENT_BYTES = 1024 * 1024;
/** How long ids sent by a replay are remembered to drop a late live copy, ms. */
const RECENT_MS = 60_000;
/** Client reconnection delay sent in the `retry:` field, ms. */
export const STREAM_RETRY_MS = 1000;

interface Stream {
  caller: Caller;
  key: string;
  type: string | null;
  out: PassThrough;
  credential: string;
  serviceAccount: string | undefined;
  ip: string;
  replaying: boolean;
  held: Map<string, EventRow>;
  recent: Map<string, number>;
  closed: boolean;
}

const streams = new Set<Stream>();
const byAccount = new Map<string, Set<Stream>>();
let wired: Promise<void> | null = null;
let heartbeat: NodeJS.Timeout | null = null;
let accepting = true;
/** The live tail; null while no stream is open (the next open starts it at the newest event). */
let tail: OutboxTail | null = null;
let tailStarting: Promise<OutboxTail> | null = null;
let reading = false;
let readAgain = false;
let tailPoll: NodeJS.Timeout | null = null;
/** Poll interval of the tail while streams are open, ms (the notification usually comes first). */
export const TAIL_POLL_MS = 250;
/** First re-read delay while a gap in the outbox sequence holds the tail back, ms; doubles per blocked read up to TAIL_POLL_MS. */
export const TAIL_GAP_RETRY_MS = 5;
let blockedReads = 0;

const accountKey = (accountId: string, livemode: boolean) => `${accountId}:${livemode ? 'live' : 'test'}`;

async function wire(): Promise<void> {
  await onNotify('events', () => wake());
  await onNotify('auth_changed', () => scheduleAuthCheck());
  onListenerLost(() => closeAllStreams('listener_lost'));
}

/** Starts the tail at the newest event unless it runs; with the poll timer. */
async function ensureTail(): Promise<void> {
  if (tail) return;
  tailStarting ??= OutboxTail.atHead();
  try {
    tail = await tailStarting;
  } finally {
    tailStarting = null;
  }
  tailPoll ??= setInterval(wake, TAIL_POLL_MS);
  tailPoll.unref();
}

/** Reads the tail now (or once more after the read in progress). */
function wake(): void {
  if (!streams.size || !tail) return;
  if (reading) {
    readAgain = true;
    return;
  }
  reading = true;
  void readTail();
}

/** Reads the tail until it is caught up and fans the rows out; closes every stream if a read fails. */
async function readTail(): Promise<void> {
  let blocked = false;
  try {
    do {
      readAgain = false;
      if (!tail || !streams.size) break;
      const r = await tail.read();
      blocked = r.blocked;
      await fanOut(r.rows);
      if (r.rows.length >= 1000) readAgain = true;
    } while (readAgain);
  } catch (e) {
    // A lost batch would be a silent gap: close the streams so clients resume from the database.
    logger.warn({ err: e }, 'events stream fan-out failed; closing streams for resume');
    closeAllStreams('fanout_failed');
  } finally {
    reading = false;
    blockedReads = blocked ? blockedReads + 1 : 0;
    if (blocked) setTimeout(wake, Math.min(TAIL_POLL_MS, TAIL_GAP_RETRY_MS * 2 ** Math.min(blockedReads - 1, 8))).unref();
  }
}

/** Sends each row to the open streams of its account and mode (shipped types only). */
async function fanOut(rows: EventRow[]): Promise<void> {
  const shipped = new Map<string, ReadonlySet<string>>();
  for (const row of rows) {
    const targets = byAccount.get(accountKey(row.account_id, row.livemode));
    if (!targets) continue;
    if (!shipped.has(row.account_id)) shipped.set(row.account_id, new Set(await currentShippedEventTypes(row.account_id)));
    if (!shipped.get(row.account_id)!.has(row.type)) continue;
    for (const s of targets) deliverLive(s, row);
  }
}

function deliverLive(s: Stream, row: EventRow): void {
  if (s.closed || (s.type && row.type !== s.type)) return;
  if (s.replaying) {
    s.held.set(row.id, row);
    return;
  }
  if (s.recent.has(row.id)) return;
  send(s, row);
}

function send(s: Stream, row: EventRow): void {
  if (s.closed) return;
  write(s, eventFrame(row.id, row.type, JSON.stringify(eventView(row))));
}

function write(s: Stream, frame: string): void {
  if (s.closed) return;
  if (s.out.writableLength > MAX_UNSENT_BYTES) {
    close(s, 'slow_consumer');
    return;
  }
  s.out.write(frame);
}

function close(s: Stream, reason: string): void {
  if (s.closed) return;
  s.closed = true;
  streams.delete(s);
  const set = byAccount.get(s.key);
  set?.delete(s);
  if (set && !set.size) byAccount.delete(s.key);
  if (!s.out.writableEnded) {
    s.out.write(commentFrame(`closing: ${reason}`));
    s.out.end();
  }
  if (!streams.size) {
    if (heartbeat) {
      clearInterval(heartbeat);
      heartbeat = null;
    }
    if (tailPoll) {
      clearInterval(tailPoll);
      tailPoll = null;
    }
    tail = null;
  }
}

/** Ends every open stream (server shutdown, switch off, lost LISTEN connection); after a shutdown no stream opens. */
export function closeAllStreams(reason = 'server_shutdown'): void {
  if (reason === 'server_shutdown') accepting = false;
  for (const s of [...streams]) close(s, reason);
}

function startHeartbeat(): void {
  if (heartbeat) return;
  heartbeat = setInterval(() => {
    void tick();
  }, loadConfig().streamHeartbeatSeconds * 1000);
  heartbeat.unref();
}

async function tick(): Promise<void> {
  if (!streams.size) return;
  if (!notifyHealthy()) {
    closeAllStreams('listener_lost');
    return;
  }
  let on = true;
  try {
    on = await isSwitchOn('api_v1.events');
  } catch {
    /* keep streaming on a failed switch read */
  }
  if (!on) {
    closeAllStreams('switch_off');
    return;
  }
  const now = Date.now();
  const frame = commentFrame(`heartbeat ${new Date(now).toISOString()}`);
  for (const s of streams) {
    for (const [id, at] of s.recent) if (now - at > RECENT_MS) s.recent.delete(id);
    write(s, frame);
  }
}

let authTimer: NodeJS.Timeout | null = null;
function scheduleAuthCheck(): void {
  if (authTimer || !streams.size) return;
  authTimer = setTimeout(() => {
    authTimer = null;
    void recheckCredentials();
  }, 25);
}

/** Authenticates every stream's credential again; closes streams whose caller is gone. */
async function recheckCredentials(): Promise<void> {
  for (const s of [...streams]) {
    try {
      const c = s.credential.startsWith('sk_')
        ? await authenticateKey(s.credential, s.ip)
        : await authenticateSession(s.credential, s.serviceAccount);
      if (c.accountId !== s.caller.accountId || c.livemode !== s.caller.livemode) close(s, 'credential_changed');
    } catch {
      close(s, 'credential_revoked');
    }
  }
}

/** Waits up to `ms` for the LISTEN connection; false when it is still down. */
async function listenerUp(ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!notifyHealthy()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

export interface OpenStreamOptions {
  caller: Caller;
  /** Only this event type (already validated against the catalogue), or every shipped type. */
  type: string | null;
  /** Outbox sequence of the `Last-Event-ID` event: replay strictly after it; null = live only. */
  afterSeq: string | null;
}

/**
 * Opens a stream for `ctx` (sets the SSE headers) and returns the body to hand to Koa. Returns
 * null when the LISTEN connection stays down for 3 s, the outbox tail cannot start, or the server is
 * shutting down (the route answers 503).
 */
export async function openStream(ctx: Koa.ParameterizedContext, openStreamOptions: OpenStreamOptions): Promise<PassThrough | null> {
  if (!accepting) return null;
  if (!wired) wired = wire();
  await wired;
  if (!(await listenerUp(3000)) || !accepting) return null;
  const out = new PassThrough();
  const s: Stream = {
    caller: openStreamOptions.caller,
    key: accountKey(openStreamOptions.caller.accountId, openStreamOptions.caller.livemode),
    type: openStreamOptions.type,
    out,
    credential: presentedCredential(ctx.headers) ?? '',
    serviceAccount: ctx.get('Service-Account') || undefined,
    ip: ctx.ip,
    replaying: openStreamOptions.afterSeq !== null,
    held: new Map(),
    recent: new Map(),
    closed: false,
  };
  streams.add(s);
  let set = byAccount.get(s.key);
  if (!set) {
    set = new Set();
    byAccount.set(s.key, set);
  }
  set.add(s);
  try {
    await ensureTail();
  } catch (e) {
    logger.warn({ err: e }, 'events stream could not start the outbox tail');
    close(s, 'tail_unavailable');
    return null;
  }
  startHeartbeat();

  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.req.socket.setKeepAlive(true);
  ctx.set('Content-Type', 'text/event-stream; charset=utf-8');
  ctx.set('Cache-Control', 'no-cache, no-transform');
  ctx.set('Connection', 'keep-alive');
  ctx.set('X-Accel-Buffering', 'no');
  const onGone = () => close(s, 'client_closed');
  ctx.res.once('close', onGone);
  out.once('error', onGone);

  out.write(retryFrame(STREAM_RETRY_MS));
  out.write(commentFrame('stream open'));
  if (openStreamOptions.afterSeq !== null) void replay(s, openStreamOptions.afterSeq);
  return out;
}

/** Replays the events after `afterSeq`, then releases the held live events and goes live. */
async function replay(s: Stream, afterSeq: string): Promise<void> {
  try {
    let cursor = afterSeq;
    for (;;) {
      const rows = await eventsAfter(s.caller, { after_seq: cursor, type: s.type, limit: REPLAY_PAGE });
      const now = Date.now();
      for (const row of rows) {
        if (s.closed) return;
        s.held.delete(row.id);
        if (now - row.created_at.getTime() < RECENT_MS) s.recent.set(row.id, now);
        send(s, row);
      }
      if (rows.length < REPLAY_PAGE) break;
      cursor = String(rows[rows.length - 1].seq);
    }
    const held = [...s.held.values()].sort((x, y) => (BigInt(x.seq) < BigInt(y.seq) ? -1 : 1));
    s.held.clear();
    s.replaying = false;
    for (const row of held) if (!s.recent.has(row.id)) send(s, row);
  } catch (e) {
    logger.warn({ err: e }, 'events stream replay failed; closing the stream for resume');
    close(s, 'replay_failed');
  }
}
