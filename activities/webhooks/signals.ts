/**
 * Waking webhook endpoint workflows (spec 6; contracts/webhook-endpoint.ts, workflow id = the
 * `whe_` endpoint id): after delivery rows commit (dispatcher fan-out, `send_test_event`, replay,
 * re-enabling with `replay_missed`), when an endpoint is disabled or deleted (its run cancels what
 * is live and ends), the recovery sweep of deliveries whose wake-up was lost, and the nudge of
 * endpoints whose deliveries were held while the `api_v1.webhooks_delivery` switch was off.
 * Every wake-up is signalWithStart + `deliver` (idempotent: a running run, whether it waits for a
 * retry, a hold re-check or, idle, for new deliveries, just drains again; only when no run is open is
 * one started), one per endpoint per call whatever the number of deliveries.
 * The only webhook module that starts or signals a workflow.
 */
import { webhookEndpointContract } from '../../contracts/webhook-endpoint';
import { DELIVERY_SWITCH, LIVE_DELIVERY_STATUSES, WEBHOOK_DELIVERY_INITIAL_STATUS } from '../../domain/webhooks';
import { db } from '../../lib/db';
import { logger } from '../../lib/logger';
import { isSwitchOn } from '../../lib/switches';
import { startOrSignal } from '../../temporal/client';

/** Age after which a never-attempted delivery gets its endpoint woken again by the sweep, seconds. */
export const SWEEP_AFTER_SECONDS = 10;
/** Wake-up calls in flight at once. */
export const WAKE_CONCURRENCY = 16;
/** Held endpoints nudged per pass. */
export const NUDGE_BATCH = 500;
/** Endpoints the sweep wakes per pass. */
export const SWEEP_BATCH = 500;

/** A delivery row whose endpoint workflow must be woken. */
export interface DeliveryToWake {
  id: string;
  account_id: string;
  endpoint_id: string;
}

/** Signals `deliver` to endpoint `endpointId`'s workflow, starting it when no run is open. Throws when Temporal refuses. */
export async function wakeEndpoint(endpointId: string, accountId: string): Promise<void> {
  await startOrSignal(webhookEndpointContract, { id: endpointId, accountId }, webhookEndpointContract.signals.update);
}

/**
 * Wakes the endpoint workflow of each distinct endpoint among `rows`, once per endpoint however many
 * of its deliveries `rows` holds (WAKE_CONCURRENCY calls at once). Failures are logged, not thrown: the sweep wakes endpoints whose deliveries stay
 * unattempted. Returns the endpoint ids woken.
 */
export async function wakeEndpointsOf(rows: Array<Omit<DeliveryToWake, 'id'>>): Promise<string[]> {
  const endpoints = [...new Map(rows.map((r) => [r.endpoint_id, r])).values()];
  const woken: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(WAKE_CONCURRENCY, endpoints.length) }, async () => {
      while (next < endpoints.length) {
        const r = endpoints[next++];
        try {
          await wakeEndpoint(r.endpoint_id, r.account_id);
          woken.push(r.endpoint_id);
        } catch (e) {
          logger.warn({ err: e, endpoint_id: r.endpoint_id }, 'could not wake the webhook endpoint workflow; the sweep will retry');
        }
      }
    }),
  );
  return woken;
}

/**
 * Wakes the endpoints of deliveries still `pending` (never attempted) and not held
 * SWEEP_AFTER_SECONDS after creation: a wake-up lost between commit and signal (a crash, Temporal
 * briefly down), or an endpoint with a backlog (a spare signal costs it one drain call). No row is
 * written on the fan-out's hot path for this. Returns how many endpoints were woken.
 */
export async function sweepUnstarted(): Promise<number> {
  const rows: Array<Omit<DeliveryToWake, 'id'>> = await db().query(
    `SELECT DISTINCT endpoint_id, account_id FROM webhook_deliveries
      WHERE status = $3 AND held_at IS NULL AND created_at < now() - make_interval(secs => $1) LIMIT $2`,
    [SWEEP_AFTER_SECONDS, SWEEP_BATCH, WEBHOOK_DELIVERY_INITIAL_STATUS],
  );
  return rows.length ? (await wakeEndpointsOf(rows)).length : 0;
}

/**
 * Signals `deliver` to the endpoints of deliveries held while the delivery switch was off (rows
 * carry `held_at`; up to NUDGE_BATCH endpoints per call) once it is on, and clears the
 * mark. Returns how many endpoints were nudged (0 while the switch is off).
 */
export async function nudgeHeld(): Promise<number> {
  if (!(await isSwitchOn(DELIVERY_SWITCH))) return 0;
  // No lock: two dispatchers nudging one endpoint cost one extra drain, nothing else.
  const rows: Array<{ endpoint_id: string; account_id: string }> = await db().query(
    'SELECT DISTINCT endpoint_id, account_id FROM webhook_deliveries WHERE held_at IS NOT NULL LIMIT $1',
    [NUDGE_BATCH],
  );
  if (!rows.length) return 0;
  const nudged: string[] = [];
  await Promise.all(
    rows.map(async (r) => {
      try {
        await wakeEndpoint(r.endpoint_id, r.account_id);
        nudged.push(r.endpoint_id);
      } catch (e) {
        logger.warn({ err: e, endpoint_id: r.endpoint_id }, 'could not nudge a held webhook endpoint; it re-checks on its own');
      }
    }),
  );
  if (nudged.length)
    await db().query('UPDATE webhook_deliveries SET held_at = NULL WHERE endpoint_id = ANY($1) AND held_at IS NOT NULL', [nudged]);
  return nudged.length;
}

/**
 * Worker-start recovery: wakes every endpoint that has live deliveries (LIVE_DELIVERY_STATUSES,
 * the delivery table's open set: a run lost with a deployment, or deliveries left by the earlier
 * one-workflow-per-delivery design). Returns how many endpoints were woken; failures are logged.
 */
export async function ensureWebhookEndpointWorkflows(): Promise<number> {
  const rows: Array<{ endpoint_id: string; account_id: string }> = await db().query(
    'SELECT DISTINCT endpoint_id, account_id FROM webhook_deliveries WHERE status = ANY($1)',
    [LIVE_DELIVERY_STATUSES],
  );
  let woken = 0;
  for (const r of rows) {
    try {
      await wakeEndpoint(r.endpoint_id, r.account_id);
      woken += 1;
    } catch (e) {
      logger.warn({ err: e, endpoint_id: r.endpoint_id }, 'recovery could not wake a webhook endpoint');
    }
  }
  return woken;
}
