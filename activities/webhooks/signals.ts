/**
 * Waking webhook endpoint workflows (spec 6; workflows/webhook-endpoint.ts, workflow id = the
 * `whe_` endpoint id): after delivery rows commit (dispatcher fan-out, `send_test_event`, replay,
 * re-enabling with `replay_missed`), when an endpoint is disabled or deleted (its run cancels what
 * is live and ends), the recovery sweep of deliveries whose wake-up was lost, and the nudge of
 * endpoints whose deliveries were held while the `api_v1.webhooks_delivery` switch was off.
 * Every wake-up is signalWithStart + `deliver` (idempotent: a running run just drains again).
 * The only webhook module that imports workflows/.
 */
import type { EntityManager } from 'typeorm';
import { DELIVERY_SWITCH, LIVE_DELIVERY_STATUSES } from '../../domain/webhooks';
import { db, transaction } from '../../lib/db';
import { logger } from '../../lib/logger';
import { isSwitchOn } from '../../lib/switches';
import { signalWithStart } from '../../temporal/client';
import { deliverSignal, webhookEndpointWorkflow } from '../../workflows/webhook-endpoint';

/** Age after which a delivery whose endpoint was never woken for it is woken again by the sweep, seconds. */
export const SWEEP_AFTER_SECONDS = 10;
/** Wake-up calls in flight at once. */
export const WAKE_CONCURRENCY = 16;
/** Held endpoints nudged per pass. */
export const NUDGE_BATCH = 500;

/** A delivery row whose endpoint workflow must be woken. */
export interface DeliveryToStart { id: string; account_id: string; endpoint_id: string }

/** Signals `deliver` to endpoint `endpointId`'s workflow, starting it when no run is open. Throws when Temporal refuses. */
export async function wakeEndpoint(endpointId: string, accountId: string): Promise<void> {
  await signalWithStart(webhookEndpointWorkflow, {
    workflowId: endpointId, args: [{ endpointId }], accountId, signal: deliverSignal, signalArgs: [],
  });
}

/**
 * Wakes the endpoint workflow of each distinct endpoint among `rows` and records
 * `workflow_started_at` on the rows whose endpoint was woken. Failures are logged, not thrown: the
 * sweep retries rows left unmarked. Returns the delivery ids whose endpoint was woken.
 */
export async function startDeliveryWorkflows(rows: DeliveryToStart[]): Promise<string[]> {
  const woken = await wakeEndpointsOf(rows);
  if (woken.length) await markWoken(db().manager, woken);
  return woken;
}

/** Wakes each distinct endpoint among `rows` (WAKE_CONCURRENCY at once); returns the ids of the rows whose endpoint was woken. */
async function wakeEndpointsOf(rows: DeliveryToStart[]): Promise<string[]> {
  const byEndpoint = new Map<string, DeliveryToStart[]>();
  for (const r of rows) byEndpoint.set(r.endpoint_id, [...(byEndpoint.get(r.endpoint_id) ?? []), r]);
  const endpoints = [...byEndpoint.values()];
  const woken: string[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(WAKE_CONCURRENCY, endpoints.length) }, async () => {
    while (next < endpoints.length) {
      const group = endpoints[next++];
      try {
        await wakeEndpoint(group[0].endpoint_id, group[0].account_id);
        woken.push(...group.map((r) => r.id));
      } catch (e) {
        logger.warn({ err: e, endpoint_id: group[0].endpoint_id }, 'could not wake the webhook endpoint workflow; the sweep will retry');
      }
    }
  }));
  return woken;
}

/** Records `workflow_started_at` on delivery rows `ids` through `m` (the sweep's own transaction holds their row locks). */
async function markWoken(m: EntityManager, ids: string[]): Promise<void> {
  await m.query('UPDATE webhook_deliveries SET workflow_started_at = now() WHERE id = ANY($1) AND workflow_started_at IS NULL', [ids]);
}

/**
 * Wakes the endpoints of deliveries left unmarked for SWEEP_AFTER_SECONDS (a crash between commit
 * and wake-up, or Temporal briefly down; locked SKIP LOCKED so one process takes each). Returns
 * how many deliveries were covered.
 */
export async function sweepUnstarted(): Promise<number> {
  return transaction(async (m) => {
    const rows: DeliveryToStart[] = await m.query(
      `SELECT id, account_id, endpoint_id FROM webhook_deliveries
        WHERE workflow_started_at IS NULL AND created_at < now() - make_interval(secs => $1)
        ORDER BY created_at LIMIT 500 FOR UPDATE SKIP LOCKED`, [SWEEP_AFTER_SECONDS]);
    if (!rows.length) return 0;
    const woken = await wakeEndpointsOf(rows);
    if (woken.length) await markWoken(m, woken);
    return woken.length;
  });
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
    'SELECT DISTINCT endpoint_id, account_id FROM webhook_deliveries WHERE held_at IS NOT NULL LIMIT $1', [NUDGE_BATCH]);
  if (!rows.length) return 0;
  const nudged: string[] = [];
  await Promise.all(rows.map(async (r) => {
    try {
      await wakeEndpoint(r.endpoint_id, r.account_id);
      nudged.push(r.endpoint_id);
    } catch (e) {
      logger.warn({ err: e, endpoint_id: r.endpoint_id }, 'could not nudge a held webhook endpoint; it re-checks on its own');
    }
  }));
  if (nudged.length) await db().query('UPDATE webhook_deliveries SET held_at = NULL WHERE endpoint_id = ANY($1) AND held_at IS NOT NULL', [nudged]);
  return nudged.length;
}

/**
 * Worker-start recovery: wakes every endpoint that has live deliveries (a run lost with a
 * deployment, or deliveries left by the earlier one-workflow-per-delivery design). Returns how
 * many endpoints were woken; failures are logged.
 */
export async function ensureWebhookEndpointWorkflows(): Promise<number> {
  const rows: Array<{ endpoint_id: string; account_id: string }> = await db().query(
    'SELECT DISTINCT endpoint_id, account_id FROM webhook_deliveries WHERE status = ANY($1)', [LIVE_DELIVERY_STATUSES]);
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
