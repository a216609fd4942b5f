/**
 * In-flight wake-ups for a running drain (issue 27 item 5; decision 0080): the dispatcher sends
 * `pg_notify('webhook_deliveries', '<endpoint id>,<endpoint id>,...')` inside the transaction that
 * creates deliveries (so it is heard at commit, never for a rolled-back row), and a drain that has
 * sent everything it took waits here for a short while for its endpoint's next deliveries instead
 * of returning to its workflow; so a steady stream goes out without a workflow round trip per
 * batch. Missing a notification (this process has no LISTEN connection, the connection is lost, a
 * race before the waiter is armed) only costs the wait: the dispatcher also signals the endpoint's
 * workflow, which calls the drain again.
 */
import type { EntityManager } from 'typeorm';
import { onNotify } from '../../lib/notify';

/** The NOTIFY channel. */
export const DELIVERIES_CHANNEL = 'webhook_deliveries';
/** NOTIFY payloads stay under PostgreSQL's 8,000-byte limit. */
const PAYLOAD_MAX = 7000;

const waiters = new Map<string, Set<() => void>>();
let subscribed: Promise<void> | null = null;

function subscribe(): Promise<void> {
  subscribed ??= onNotify(DELIVERIES_CHANNEL, (payload) => {
    for (const id of payload.split(',')) {
      const set = waiters.get(id);
      if (!set) continue;
      waiters.delete(id);
      for (const wake of set) wake();
    }
  });
  return subscribed;
}

/**
 * Arms a wait for `endpointId`'s next deliveries before the caller looks for them (so one created
 * in between is not missed); `wait(ms)` resolves true when a notification named the endpoint,
 * false after `ms` milliseconds. Call `cancel()` when not waiting.
 */
export async function armDeliveryWake(endpointId: string): Promise<{ wait: (ms: number) => Promise<boolean>; cancel: () => void }> {
  await subscribe();
  let woke = false;
  let resolveWoken: (() => void) | null = null;
  const wake = () => { woke = true; resolveWoken?.(); };
  let set = waiters.get(endpointId);
  if (!set) { set = new Set(); waiters.set(endpointId, set); }
  set.add(wake);
  const cancel = () => {
    const s = waiters.get(endpointId);
    s?.delete(wake);
    if (s && s.size === 0) waiters.delete(endpointId);
  };
  const wait = (ms: number) => new Promise<boolean>((resolve) => {
    if (woke) { cancel(); resolve(true); return; }
    const timer = setTimeout(() => { cancel(); resolve(false); }, ms);
    resolveWoken = () => { clearTimeout(timer); cancel(); resolve(true); };
  });
  return { wait, cancel };
}

/** Inside the dispatcher's transaction `m`: tells running drains of `endpointIds` that deliveries were created (heard at commit). */
export async function notifyDeliveriesCreated(m: EntityManager, endpointIds: string[]): Promise<void> {
  const unique = [...new Set(endpointIds)];
  let chunk: string[] = [];
  let size = 0;
  const send = async () => { if (chunk.length) await m.query('SELECT pg_notify($1, $2)', [DELIVERIES_CHANNEL, chunk.join(',')]); chunk = []; size = 0; };
  for (const id of unique) {
    if (size + id.length + 1 > PAYLOAD_MAX) await send();
    chunk.push(id);
    size += id.length + 1;
  }
  await send();
}
