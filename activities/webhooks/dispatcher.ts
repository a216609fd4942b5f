/**
 * Outbox dispatcher (spec 6; ARCHITECTURE.md "Data flow" 6): turns new `events` rows into
 * `webhook_deliveries` rows and wakes the workflow of each endpoint concerned (one workflow per
 * endpoint, workflows/webhook-endpoint.ts). Runs inside each worker
 * process (worker.ts); any number of worker processes may run it at once. Starting, sweeping and
 * nudging the workflows is ./signals.ts; this module is the loop and the fan-out.
 *
 * - Wake-ups: LISTEN on channel `events` (the process's shared listener, lib/notify.ts, reconnected on
 *   error) plus a 1 s fallback poll.
 * - A pass, in one transaction: lock up to 500 undispatched events (`ORDER BY seq ... FOR UPDATE
 *   SKIP LOCKED`, so concurrent dispatchers never take the same event), insert a delivery for
 *   every enabled, non-deleted endpoint of the same account and livemode subscribed to the type
 *   (never for catalogued-but-unshipped types, never for `test.ping`; the partial unique index
 *   (endpoint_id, event_id) makes a repeat harmless), mark the events dispatched. After commit,
 *   start the workflows (start unless running, workflow id = delivery id) and set
 *   `workflow_started_at`.
 * - Sweep: deliveries still never attempted 10 s after creation (a crash between commit and
 *   wake-up, or Temporal briefly down) get their endpoint woken again. A wake-up is idempotent,
 *   and the drain only sends live deliveries.
 * - Nudge: while `api_v1.webhooks_delivery` is off, endpoint workflows hold (nothing sent, nothing
 *   lost) and mark due rows `held_at`. Once the switch is on, each pass signals `deliver` to the
 *   endpoints of held rows and clears the mark, so the backlog goes out at once rather than at each
 *   workflow's next hold re-check.
 */
import { offNotify, onNotify, startNotifyListener } from '../../lib/notify';
import { endpointReceives } from '../../domain/event-types';
import { currentShippedEventTypes } from '../../lib/switches';
import { WEBHOOK_DELIVERY_INITIAL_STATUS } from '../../domain/webhooks';
import { loadConfig } from '../../lib/config';
import { transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { logger } from '../../lib/logger';
import { type DeliveryToStart, nudgeHeld, startDeliveryWorkflows, sweepUnstarted } from './signals';

/** Events taken per pass. */
export const DISPATCH_BATCH = 500;
/** Fallback poll interval, ms. */
export const DISPATCH_POLL_MS = 1000;
/**
 * One dispatch pass (see module doc). Returns how many events were dispatched and how many
 * deliveries were created; `hasMore` when a full batch was taken (run again at once).
 */
export async function dispatchOnce(): Promise<{ events: number; deliveries: number; hasMore: boolean }> {
  const { created, events } = await transaction(async (m) => {
    const evs: Array<{ id: string; account_id: string; livemode: boolean; type: string }> = await m.query(
      `SELECT id, account_id, livemode, type FROM events WHERE dispatched_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`, [DISPATCH_BATCH]);
    if (evs.length === 0) return { created: [] as DeliveryToStart[], events: 0 };
    const ids = evs.map((e) => e.id);
    const candidates: Array<{ event_id: string; endpoint_id: string; event_types: string[] }> = await m.query(
      `SELECT e.id AS event_id, w.id AS endpoint_id, w.event_types
         FROM events e JOIN webhook_endpoints w
           ON w.account_id = e.account_id AND w.livemode = e.livemode AND w.enabled AND w.deleted_at IS NULL
        WHERE e.id = ANY($1)`, [ids]);
    const byId = new Map(evs.map((e) => [e.id, e]));
    const shipped = new Map<string, ReadonlySet<string>>();
    for (const a of new Set(evs.map((e) => e.account_id))) shipped.set(a, new Set(await currentShippedEventTypes(a)));
    const rows = candidates.flatMap((c) => {
      const ev = byId.get(c.event_id)!;
      return endpointReceives(c.event_types, ev.type, shipped.get(ev.account_id)) ? [{ id: newId('whd_'), ev, endpointId: c.endpoint_id }] : [];
    });
    const created: DeliveryToStart[] = [];
    for (let i = 0; i < rows.length; i += 500) {
      const chunk = rows.slice(i, i + 500);
      const inserted: DeliveryToStart[] = await m.query(
        `INSERT INTO webhook_deliveries(id, account_id, livemode, endpoint_id, event_id, event_type, status)
         SELECT t.*, $7::text FROM unnest($1::text[], $2::text[], $3::boolean[], $4::text[], $5::text[], $6::text[])
                AS t(id, account_id, livemode, endpoint_id, event_id, event_type)
         ON CONFLICT DO NOTHING RETURNING id, account_id, endpoint_id`,
        [chunk.map((r) => r.id), chunk.map((r) => r.ev.account_id), chunk.map((r) => r.ev.livemode), chunk.map((r) => r.endpointId),
          chunk.map((r) => r.ev.id), chunk.map((r) => r.ev.type), WEBHOOK_DELIVERY_INITIAL_STATUS]);
      created.push(...inserted);
    }
    await m.query('UPDATE events SET dispatched_at = now() WHERE id = ANY($1)', [ids]);
    return { created, events: evs.length };
  });
  if (created.length) await startDeliveryWorkflows(created);
  return { events, deliveries: created.length, hasMore: events === DISPATCH_BATCH };
}

/**
 * Starts the dispatcher in this process (LISTEN `events` + 1 s poll + sweep). Returns a stop
 * function that ends the listener and the poll and waits for the pass in progress.
 * Requires `initDb()` first and DATABASE_URL for the LISTEN connection.
 */
export async function startDispatcher(): Promise<() => Promise<void>> {
  const url = loadConfig().databaseUrl;
  if (!url) throw new Error('DATABASE_URL is required for the dispatcher');
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;
  let lastSweep = 0;
  let failedPasses = 0;

  const pass = async (): Promise<void> => {
    do {
      again = false;
      try {
        const r = await dispatchOnce();
        if (r.hasMore) again = true;
        if (Date.now() - lastSweep >= DISPATCH_POLL_MS) {
          lastSweep = Date.now();
          await sweepUnstarted();
          await nudgeHeld();
        }
        if (failedPasses > 0) logger.info({ failed_passes: failedPasses }, 'webhook dispatch recovered');
        failedPasses = 0;
      } catch (e) {
        failedPasses += 1;
        // Log the first failure and then once a minute (one pass per second) while the outage lasts.
        if (!stopped && failedPasses % 60 === 1) logger.error({ err: e, failed_passes: failedPasses }, 'webhook dispatch pass failed');
      }
    } while (again && !stopped);
  };
  const wake = (): void => {
    if (stopped) return;
    if (running) { again = true; return; }
    running = pass().finally(() => { running = null; });
  };

  // Wake-ups ride the process's shared LISTEN connection (lib/notify.ts); the poll covers gaps.
  await startNotifyListener(url);
  await onNotify('events', wake);
  const poll = setInterval(wake, DISPATCH_POLL_MS);
  wake();

  return async () => {
    stopped = true;
    clearInterval(poll);
    offNotify('events', wake);
    if (running) await running;
  };
}
