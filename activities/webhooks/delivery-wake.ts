/**
 * In-flight wake-ups for a running drain (decision 0080): once the transaction that
 * created deliveries has committed, the dispatcher wakes the drains of their endpoints in its own
 * process directly and the others by `pg_notify('webhook_deliveries', '<endpoint id>,...')`
 * (`announceDeliveries`), and a drain that has
 * sent everything it took waits here for a short while for its endpoint's next deliveries instead
 * of returning to its workflow; so a steady stream goes out without a workflow round trip per
 * batch. Missing a notification (this process has no LISTEN connection, the connection is lost, a
 * race before the waiter is armed) only costs the wait: the dispatcher also signals the endpoint's
 * workflow, which calls the drain again.
 *
 * A drain that is sending in this process (`markDrainReading`) needs no signal either: it
 * reads its endpoint's deliveries again before it returns (a further round, or the summary whose
 * `due` makes its workflow drain again at once), so a delivery committed before that read is never
 * left behind; without this, every dispatch pass during a round cost the workflow a signal and a
 * workflow task.
 */
import { auxDb } from '../../lib/db';
import { onNotify } from '../../lib/notify';

/** The NOTIFY channel. */
export const DELIVERIES_CHANNEL = 'webhook_deliveries';
/** NOTIFY payloads stay under PostgreSQL's 8,000-byte limit. */
const PAYLOAD_MAX = 7000;

const waiters = new Map<string, Set<() => void>>();
/** Drains in progress in this process that will still read their endpoint's deliveries, by endpoint (a count: drains may overlap). */
const reading = new Map<string, number>();
let subscribed: Promise<void> | null = null;

function subscribe(): Promise<void> {
  subscribed ??= onNotify(DELIVERIES_CHANNEL, (payload) => {
    wakeLocal(payload.split(','));
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
  const wake = () => {
    woke = true;
    resolveWoken?.();
  };
  let set = waiters.get(endpointId);
  if (!set) {
    set = new Set();
    waiters.set(endpointId, set);
  }
  set.add(wake);
  const cancel = () => {
    const s = waiters.get(endpointId);
    s?.delete(wake);
    if (s && s.size === 0) waiters.delete(endpointId);
  };
  const wait = (ms: number) =>
    new Promise<boolean>((resolve) => {
      if (woke) {
        cancel();
        resolve(true);
        return;
      }
      const timer = setTimeout(() => {
        cancel();
        resolve(false);
      }, ms);
      resolveWoken = () => {
        clearTimeout(timer);
        cancel();
        resolve(true);
      };
    });
  return { wait, cancel };
}

/**
 * Marks a drain of `endpointId` in progress in this process until the returned function is called
 * (once; later calls do nothing). The drain calls it before the last read of its deliveries (the
 * summary): until then a delivery committed for the endpoint is read by the drain itself, so
 * `announceDeliveries` counts the endpoint as taken and the dispatcher does not signal its workflow.
 */
export function markDrainReading(endpointId: string): () => void {
  reading.set(endpointId, (reading.get(endpointId) ?? 0) + 1);
  let open = true;
  return () => {
    if (!open) return;
    open = false;
    const n = (reading.get(endpointId) ?? 1) - 1;
    if (n > 0) reading.set(endpointId, n);
    else reading.delete(endpointId);
  };
}

/**
 * After the dispatcher's transaction committed: wakes the drains of `endpointIds` waiting in this
 * process at once, and those of other worker processes by `pg_notify('webhook_deliveries', ...)` on
 * an autocommit connection (payloads chunked under 8,000 bytes). Not inside the dispatching
 * transaction: a NOTIFY there would take PostgreSQL's notify-queue lock in that commit and
 * serialize it with every other notifying commit. Returns the endpoints whose drain was woken here
 * or is sending here (`markDrainReading`): such a drain reads its due deliveries again before it
 * returns, so the dispatcher need not signal their workflows. Never throws: a lost wake-up only
 * costs the wait.
 */
export async function announceDeliveries(endpointIds: string[]): Promise<Set<string>> {
  const unique = [...new Set(endpointIds)];
  const woken = wakeLocal(unique);
  for (const id of unique) if (reading.has(id)) woken.add(id);
  const remote = unique.filter((id) => !woken.has(id));
  let chunk: string[] = [];
  let size = 0;
  const send = async () => {
    if (chunk.length)
      await auxDb()
        .query('SELECT pg_notify($1, $2)', [DELIVERIES_CHANNEL, chunk.join(',')])
        .catch(() => undefined);
    chunk = [];
    size = 0;
  };
  for (const id of remote) {
    if (size + id.length + 1 > PAYLOAD_MAX) await send();
    chunk.push(id);
    size += id.length + 1;
  }
  await send();
  return woken;
}

/** Wakes the drains waiting in this process for `ids`; returns the ids that had one. */
function wakeLocal(ids: Iterable<string>): Set<string> {
  const woken = new Set<string>();
  for (const id of ids) {
    const set = waiters.get(id);
    if (!set) continue;
    waiters.delete(id);
    for (const wake of set) wake();
    woken.add(id);
  }
  return woken;
}
