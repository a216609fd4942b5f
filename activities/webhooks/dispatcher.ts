/**
 * Outbox dispatcher (spec 6; ARCHITECTURE.md "Data flow" 6): turns new `events` rows into
 * `webhook_deliveries` rows and wakes the workflow of each endpoint concerned (one workflow per
 * endpoint, workflows/webhook-endpoint.ts). Runs inside each worker
 * process (worker.ts); any number of worker processes may run it at once. Starting, sweeping and
 * nudging the workflows is ./signals.ts; this module is the loop and the fan-out.
 *
 * - Wake-ups: LISTEN on channel `events` (the process's shared listener, lib/notify.ts, reconnected on
 *   error) plus a 1 s fallback poll.
 * - A pass, in one transaction: lock the durable cursor (`outbox_cursors` row `webhooks`, FOR
 *   UPDATE SKIP LOCKED, so one dispatcher works at a time and the others skip the pass), read up
 *   to 500 events after it through the gap-safe tail (activities/events/tail.ts: strictly in `seq`
 *   order, never past a number an open transaction may still commit), insert a delivery for every
 *   enabled, non-deleted endpoint of the same account and livemode subscribed to the type (never
 *   for catalogued-but-unshipped types, never for `test.ping`, never for rows written already
 *   dispatched; the partial unique index (endpoint_id, event_id) makes a repeat harmless), and
 *   move the cursor. No event row is updated. After commit, wake the drains of the endpoints
 *   concerned that wait for deliveries (./delivery-wake.ts: they take the new deliveries at once),
 *   leave alone those whose drain is sending in this process (it reads them before it returns),
 *   and signal the workflows of the others, one `deliver` per endpoint per pass however many
 *   deliveries it got (a run waiting for new deliveries is woken; one is started only when none is
 *   open).
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
import { type DeliveryToWake, nudgeHeld, wakeEndpointsOf, sweepUnstarted } from './signals';
import type { EntityManager } from 'typeorm';
import type { EventRow } from '../../entities';
import { OutboxTail, type TailState } from '../events/tail';
import { announceDeliveries } from './delivery-wake';

/** Events taken per pass. */
export const DISPATCH_BATCH = 500;
/** Fallback poll interval, ms. */
export const DISPATCH_POLL_MS = 1000;
/** The dispatcher's row in `outbox_cursors`. */
export const DISPATCH_CURSOR = 'webhooks';
/** First re-pass delay while a gap in the outbox sequence holds the cursor back, ms; doubles per blocked pass. */
export const DISPATCH_GAP_RETRY_MS = 5;
/** Longest re-pass delay while blocked, ms (a long transaction holding a number must not make the dispatcher spin). */
export const DISPATCH_GAP_RETRY_MAX_MS = 200;

/**
 * One dispatch pass (see module doc). Returns how many events were passed and how many deliveries
 * were created; `hasMore` when a full batch was taken (run again at once); `blocked` when a gap in
 * the outbox sequence held the cursor back (run again shortly); `busy` when another dispatcher
 * holds the cursor.
 */
export async function dispatchOnce(): Promise<{ events: number; deliveries: number; hasMore: boolean; blocked: boolean; busy: boolean }> {
  const { created, events, blocked, busy } = await transaction(async (m) => {
    const [cursor]: TailState[] = await m.query(
      `SELECT seq::text, wait_up_to::text, wait_xmax::text FROM outbox_cursors WHERE name = $1 FOR UPDATE SKIP LOCKED`,
      [DISPATCH_CURSOR],
    );
    if (!cursor) return { created: [] as DeliveryToWake[], events: 0, blocked: false, busy: true };
    const tail = OutboxTail.fromState(cursor);
    const read = await tail.read(DISPATCH_BATCH, m, 'e.id, e.account_id, e.livemode, e.type, e.dispatched_at');
    // Rows marked dispatched at write time (`send_test_event`'s test.ping) are delivered by their writer.
    const evs = read.rows.filter((e) => e.dispatched_at === null);
    const created = evs.length ? await fanOut(m, evs) : [];
    const next = tail.state;
    if (next.seq !== cursor.seq || next.wait_up_to !== cursor.wait_up_to || next.wait_xmax !== cursor.wait_xmax) {
      await m.query('UPDATE outbox_cursors SET seq = $2, wait_up_to = $3, wait_xmax = $4, updated_at = now() WHERE name = $1', [
        DISPATCH_CURSOR,
        next.seq,
        next.wait_up_to,
        next.wait_xmax,
      ]);
    }
    return { created, events: read.rows.length, blocked: read.blocked, busy: false };
  });
  if (created.length) {
    // A drain woken or sending here takes its new deliveries itself; the other endpoints' workflows are signalled.
    const taken = await announceDeliveries(created.map((d) => d.endpoint_id));
    const rest = created.filter((d) => !taken.has(d.endpoint_id));
    if (rest.length) await wakeEndpointsOf(rest);
  }
  return { events, deliveries: created.length, hasMore: events === DISPATCH_BATCH, blocked, busy };
}

/** Inserts a delivery of each event for every enabled endpoint of its account and mode that receives it, inside `m`. Returns the rows inserted. */
async function fanOut(m: EntityManager, evs: Array<Pick<EventRow, 'id' | 'account_id' | 'livemode' | 'type'>>): Promise<DeliveryToWake[]> {
  const candidates: Array<{ event_id: string; endpoint_id: string; event_types: string[] }> = await m.query(
    `SELECT e.id AS event_id, w.id AS endpoint_id, w.event_types
       FROM unnest($1::text[], $2::text[], $3::boolean[]) AS e(id, account_id, livemode)
       JOIN webhook_endpoints w ON w.account_id = e.account_id AND w.livemode = e.livemode AND w.enabled AND w.deleted_at IS NULL`,
    [evs.map((e) => e.id), evs.map((e) => e.account_id), evs.map((e) => e.livemode)],
  );
  if (candidates.length === 0) return [];
  const byId = new Map(evs.map((e) => [e.id, e]));
  const shipped = new Map<string, ReadonlySet<string>>();
  for (const a of new Set(candidates.map((c) => byId.get(c.event_id)!.account_id)))
    shipped.set(a, new Set(await currentShippedEventTypes(a)));
  const rows = candidates.flatMap((c) => {
    const ev = byId.get(c.event_id)!;
    return endpointReceives(c.event_types, ev.type, shipped.get(ev.account_id))
      ? [{ id: newId('whd_'), ev, endpointId: c.endpoint_id }]
      : [];
  });
  const created: DeliveryToWake[] = [];
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500);
    const inserted: DeliveryToWake[] = await m.query(
      `INSERT INTO webhook_deliveries(id, account_id, livemode, endpoint_id, event_id, event_type, status)
       SELECT t.*, $7::text FROM unnest($1::text[], $2::text[], $3::boolean[], $4::text[], $5::text[], $6::text[])
              AS t(id, account_id, livemode, endpoint_id, event_id, event_type)
       ON CONFLICT DO NOTHING RETURNING id, account_id, endpoint_id`,
      [
        chunk.map((r) => r.id),
        chunk.map((r) => r.ev.account_id),
        chunk.map((r) => r.ev.livemode),
        chunk.map((r) => r.endpointId),
        chunk.map((r) => r.ev.id),
        chunk.map((r) => r.ev.type),
        WEBHOOK_DELIVERY_INITIAL_STATUS,
      ],
    );
    created.push(...inserted);
  }
  return created;
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
  let blockedPasses = 0;

  const pass = async (): Promise<void> => {
    do {
      again = false;
      try {
        const r = await dispatchOnce();
        if (r.hasMore) again = true;
        blockedPasses = r.blocked ? blockedPasses + 1 : 0;
        if (r.blocked && !r.hasMore) {
          setTimeout(wake, Math.min(DISPATCH_GAP_RETRY_MAX_MS, DISPATCH_GAP_RETRY_MS * 2 ** Math.min(blockedPasses - 1, 8))).unref();
        }
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
    if (running) {
      again = true;
      return;
    }
    running = pass().finally(() => {
      running = null;
    });
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
