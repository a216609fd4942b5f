/**
 * One PostgreSQL LISTEN connection per process, shared by subscribers (auth cache invalidation,
 * the events stream). Reconnects with backoff; `healthy()` is false while disconnected so callers
 * that depend on notifications (caches) can stop trusting them.
 */
import { Client } from 'pg';
import { logger } from './logger';

type Handler = (payload: string) => void;
const handlers = new Map<string, Set<Handler>>();
const lostHandlers = new Set<() => void>();
let client: Client | null = null;
let connecting: Promise<void> | null = null;
let url: string | null = null;
let up = false;
let closed = false;

let retryTimer: NodeJS.Timeout | null = null;

/** Schedules one reconnection attempt (never two at once), backing off to at most 10 s. */
function scheduleReconnect(delayMs: number): void {
  if (retryTimer || closed) return;
  retryTimer = setTimeout(() => {
    retryTimer = null;
    connecting = connect().catch((e) => {
      logger.warn({ err: e }, 'notify listener could not reconnect');
      scheduleReconnect(Math.min(delayMs * 2, 10_000));
    });
  }, delayMs);
  retryTimer.unref();
}

async function connect(): Promise<void> {
  if (!url || closed) return;
  const c = new Client({ connectionString: url });
  let lost = false;
  c.on('notification', (n) => {
    if (!lost) handlers.get(n.channel)?.forEach((h) => h(n.payload ?? ''));
  });
  // A connection may report several errors (and 'end'); only the first one counts, so a single
  // replacement connection is made (two would deliver every notification twice).
  const onLost = (e?: unknown) => {
    if (lost) return;
    lost = true;
    if (closed || (client !== c && client !== null)) return;
    logger.warn({ err: e }, 'notify listener lost its connection');
    up = false;
    client = null;
    lostHandlers.forEach((h) => h());
    c.end().catch(() => undefined);
    scheduleReconnect(1000);
  };
  c.on('error', onLost);
  c.on('end', () => {
    if (client === c) onLost(new Error('connection ended'));
  });
  await c.connect();
  for (const ch of handlers.keys()) await c.query(`LISTEN "${ch}"`);
  if (closed || lost) {
    await c.end().catch(() => undefined);
    return;
  }
  client = c;
  up = true;
}

/** Starts the listener for `databaseUrl` (idempotent). */
export async function startNotifyListener(databaseUrl: string): Promise<void> {
  if (url) return connecting ?? undefined;
  url = databaseUrl;
  closed = false;
  connecting = connect();
  await connecting;
}

/** Subscribes `handler` to `channel`; LISTENs on first subscription. */
export async function onNotify(channel: string, handler: Handler): Promise<void> {
  let set = handlers.get(channel);
  if (!set) {
    set = new Set();
    handlers.set(channel, set);
    if (client) await client.query(`LISTEN "${channel}"`);
  }
  set.add(handler);
}

/** Removes a subscription. */
export function offNotify(channel: string, handler: Handler): void {
  handlers.get(channel)?.delete(handler);
}

/**
 * Calls `fn` whenever the LISTEN connection is lost: notifications sent until it is back are
 * gone, so subscribers that must not miss any (the events stream) resynchronise from the database.
 */
export function onListenerLost(fn: () => void): void {
  lostHandlers.add(fn);
}

/** True while the LISTEN connection is up (notifications can be trusted). */
export function notifyHealthy(): boolean {
  return up;
}

/**
 * Closes the listener (shutdown, tests). Subscribers registered with `onListenerLost` are told, as
 * for a lost connection: no notification reaches them from now on (open streams end, caches stop
 * trusting themselves).
 */
export async function stopNotifyListener(): Promise<void> {
  closed = true;
  if (retryTimer) {
    clearTimeout(retryTimer);
    retryTimer = null;
  }
  const wasUp = up;
  up = false;
  url = null;
  const c = client;
  client = null;
  if (wasUp) lostHandlers.forEach((h) => h());
  await c?.end().catch(() => undefined);
}
