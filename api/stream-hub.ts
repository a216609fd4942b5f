/**
 * The events stream hub (spec 6 "Stream", 4.10 `GET /events/stream`). One per API process:
 *
 * - Live push: a single subscription to channel `events` on the process's shared LISTEN
 *   connection (lib/notify.ts; `lib/outbox.ts` NOTIFYs each event id at commit). Ids that
 *   arrive together are read in one query (ordered by outbox sequence) and fanned out in-process
 *   to the open streams of the event's account and mode. Nothing is read while no stream is open.
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
import { eventsAfter, eventsByIds } from '../activities/events/queries';
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
const queued: string[] = [];
let draining = false;
let accepting = true;
/** Ids fanned out lately: a notification delivered twice never sends a frame twice. */
const seen = new Set<string>();
const SEEN_MAX = 20_000;

const accountKey = (accountId: string, livemode: boolean) => `${accountId}:${livemode ? 'live' : 'test'}`;

/** Number of open streams in this process (operations, tests). */
export function openStreamCount(): number {
  return streams.size;
}

async function wire(): Promise<void> {
  await onNotify('events', (id) => {
    if (!streams.size || !id || seen.has(id)) return;
    seen.add(id);
    if (seen.size > SEEN_MAX) for (const old of seen) { seen.delete(old); if (seen.size <= SEEN_MAX / 2) break; }
    queued.push(id);
    if (!draining) setImmediate(() => { void drain(); });
    draining = true;
  });
  await onNotify('auth_changed', () => scheduleAuthCheck());
  onListenerLost(() => closeAllStreams('listener_lost'));
}

/** Reads the queued event ids (one query per burst) and fans them out. */
async function drain(): Promise<void> {
  try {
    while (queued.length) {
      const ids = queued.splice(0, 1000);
      if (!streams.size) continue;
      const rows = await eventsByIds(ids);
      const shipped = new Map<string, ReadonlySet<string>>();
      for (const a of new Set(rows.map((r) => r.account_id))) shipped.set(a, new Set(await currentShippedEventTypes(a)));
      for (const row of rows) {
        if (!shipped.get(row.account_id)!.has(row.type)) continue;
        const targets = byAccount.get(accountKey(row.account_id, row.livemode));
        if (!targets) continue;
        for (const s of targets) deliverLive(s, row);
      }
    }
  } catch (e) {
    // A lost batch would be a silent gap: close the streams so clients resume from the database.
    logger.warn({ err: e }, 'events stream fan-out failed; closing streams for resume');
    closeAllStreams('fanout_failed');
  } finally {
    draining = false;
    if (queued.length) { draining = true; setImmediate(() => { void drain(); }); }
  }
}

function deliverLive(s: Stream, row: EventRow): void {
  if (s.closed || (s.type && row.type !== s.type)) return;
  if (s.replaying) { s.held.set(row.id, row); return; }
  if (s.recent.has(row.id)) return;
  send(s, row);
}

function send(s: Stream, row: EventRow): void {
  if (s.closed) return;
  write(s, eventFrame(row.id, row.type, JSON.stringify(eventView(row))));
}

function write(s: Stream, frame: string): void {
  if (s.closed) return;
  if (s.out.writableLength > MAX_UNSENT_BYTES) { close(s, 'slow_consumer'); return; }
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
  if (!streams.size && heartbeat) { clearInterval(heartbeat); heartbeat = null; }
}

/** Ends every open stream (server shutdown, switch off, lost LISTEN connection); after a shutdown no stream opens. */
export function closeAllStreams(reason = 'server_shutdown'): void {
  if (reason === 'server_shutdown') accepting = false;
  for (const s of [...streams]) close(s, reason);
}

function startHeartbeat(): void {
  if (heartbeat) return;
  heartbeat = setInterval(() => { void tick(); }, loadConfig().streamHeartbeatSeconds * 1000);
  heartbeat.unref();
}

async function tick(): Promise<void> {
  if (!streams.size) return;
  if (!notifyHealthy()) { closeAllStreams('listener_lost'); return; }
  let on = true;
  try { on = await isSwitchOn('api_v1.events'); } catch { /* keep streaming on a failed switch read */ }
  if (!on) { closeAllStreams('switch_off'); return; }
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
  authTimer = setTimeout(() => { authTimer = null; void recheckCredentials(); }, 25);
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
 * null when the LISTEN connection stays down for 3 s or the server is shutting down (the route answers 503).
 */
export async function openStream(ctx: Koa.ParameterizedContext, o: OpenStreamOptions): Promise<PassThrough | null> {
  if (!accepting) return null;
  if (!wired) wired = wire();
  await wired;
  if (!(await listenerUp(3000)) || !accepting) return null;
  const out = new PassThrough();
  const s: Stream = {
    caller: o.caller, key: accountKey(o.caller.accountId, o.caller.livemode), type: o.type, out,
    credential: presentedCredential(ctx.headers) ?? '', serviceAccount: ctx.get('Service-Account') || undefined, ip: ctx.ip,
    replaying: o.afterSeq !== null, held: new Map(), recent: new Map(), closed: false,
  };
  streams.add(s);
  let set = byAccount.get(s.key);
  if (!set) { set = new Set(); byAccount.set(s.key, set); }
  set.add(s);
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
  if (o.afterSeq !== null) void replay(s, o.afterSeq);
  return out;
}

/** Replays the events after `afterSeq`, then releases the held live events and goes live. */
async function replay(s: Stream, afterSeq: string): Promise<void> {
  try {
    let cursor = afterSeq;
    for (;;) {
      const rows = await eventsAfter(s.caller, cursor, s.type, REPLAY_PAGE);
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
