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

async function connect(): Promise<void> {
  if (!url || closed) return;
  const c = new Client({ connectionString: url });
  c.on('notification', (n) => handlers.get(n.channel)?.forEach((h) => h(n.payload ?? '')));
  c.on('error', (e) => {
    logger.warn({ err: e }, 'notify listener lost its connection');
    up = false;
    client = null;
    lostHandlers.forEach((h) => h());
    setTimeout(() => { connecting = connect().catch(() => undefined); }, 1000);
  });
  await c.connect();
  for (const ch of handlers.keys()) await c.query(`LISTEN "${ch}"`);
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

/** Closes the listener (shutdown, tests). */
export async function stopNotifyListener(): Promise<void> {
  closed = true;
  up = false;
  url = null;
  await client?.end().catch(() => undefined);
  client = null;
}
