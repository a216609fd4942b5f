/**
 * Starting and signalling webhook delivery workflows (spec 6; workflows/webhook-delivery.ts,
 * workflow id = the `whd_` delivery id): the start after a delivery row commits (dispatcher
 * fan-out, `send_test_event`, replay), the recovery sweep of deliveries whose start was lost, and
 * the `deliver` nudge of deliveries held while the `api_v1.webhooks_delivery` switch was off.
 * The only webhook module that imports workflows/.
 */
import { DELIVERY_SWITCH } from '../../domain/webhooks';
import { db, transaction } from '../../lib/db';
import { logger } from '../../lib/logger';
import { isSwitchOn } from '../../lib/switches';
import { signalWithStart, startIfAbsent } from '../../temporal/client';
import { deliverSignal, webhookDeliveryWorkflow } from '../../workflows/webhook-delivery';

/** Age after which an unstarted delivery is started again by the sweep, seconds. */
export const SWEEP_AFTER_SECONDS = 10;
/** Workflow start calls in flight at once per dispatcher. */
export const START_CONCURRENCY = 64;
/** Held deliveries nudged per pass. */
export const NUDGE_BATCH = 500;

/** A delivery row whose workflow must be started. */
export interface DeliveryToStart { id: string; account_id: string }

/**
 * Starts the delivery workflow of each row unless already running (workflow id = delivery id; a
 * plain start, one history event fewer than signal-with-start) and records `workflow_started_at`. Failures are logged, not thrown: the sweep
 * retries rows left unstarted. Returns the ids started.
 */
export async function startDeliveryWorkflows(rows: DeliveryToStart[]): Promise<string[]> {
  const started: string[] = [];
  // At most START_CONCURRENCY start calls in flight: a fan-out burst must not swamp the server.
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(START_CONCURRENCY, rows.length) }, async () => {
    while (next < rows.length) {
      const r = rows[next++];
      try {
        await startIfAbsent(webhookDeliveryWorkflow, { workflowId: r.id, args: [{ deliveryId: r.id }], accountId: r.account_id }, { eager: true });
        started.push(r.id);
      } catch (e) {
        logger.warn({ err: e, delivery_id: r.id }, 'could not start webhook delivery workflow; the sweep will retry');
      }
    }
  }));
  if (started.length) {
    await db().query('UPDATE webhook_deliveries SET workflow_started_at = now() WHERE id = ANY($1) AND workflow_started_at IS NULL', [started]);
  }
  return started;
}

/** Starts workflows of deliveries left unstarted for SWEEP_AFTER_SECONDS (a crash between commit and start, or Temporal briefly down; locked SKIP LOCKED so one process restarts each). Returns how many were started. */
export async function sweepUnstarted(): Promise<number> {
  return transaction(async (m) => {
    const rows: DeliveryToStart[] = await m.query(
      `SELECT id, account_id FROM webhook_deliveries
        WHERE workflow_started_at IS NULL AND created_at < now() - make_interval(secs => $1)
        ORDER BY created_at LIMIT 100 FOR UPDATE SKIP LOCKED`, [SWEEP_AFTER_SECONDS]);
    if (!rows.length) return 0;
    const started: string[] = [];
    for (const r of rows) {
      try {
        await startIfAbsent(webhookDeliveryWorkflow, { workflowId: r.id, args: [{ deliveryId: r.id }], accountId: r.account_id });
        started.push(r.id);
      } catch (e) {
        logger.warn({ err: e, delivery_id: r.id }, 'sweep could not start webhook delivery workflow');
        break; // Temporal is likely down: try again on the next pass
      }
    }
    if (started.length) await m.query('UPDATE webhook_deliveries SET workflow_started_at = now() WHERE id = ANY($1)', [started]);
    return started.length;
  });
}

/**
 * Signals `deliver` to deliveries held while the delivery switch was off (their rows carry `held_at`; SKIP LOCKED, up to NUDGE_BATCH per call), once
 * it is on. Returns how many were nudged (0 while the switch is off).
 */
export async function nudgeHeld(): Promise<number> {
  if (!(await isSwitchOn(DELIVERY_SWITCH))) return 0;
  return transaction(async (m) => {
    const rows: DeliveryToStart[] = await m.query(
      `SELECT id, account_id FROM webhook_deliveries WHERE held_at IS NOT NULL ORDER BY held_at LIMIT $1 FOR UPDATE SKIP LOCKED`, [NUDGE_BATCH]);
    if (!rows.length) return 0;
    const nudged: string[] = [];
    await Promise.all(rows.map(async (r) => {
      try {
        await signalWithStart(webhookDeliveryWorkflow, { workflowId: r.id, args: [{ deliveryId: r.id }], accountId: r.account_id, signal: deliverSignal, signalArgs: [] });
        nudged.push(r.id);
      } catch (e) {
        logger.warn({ err: e, delivery_id: r.id }, 'could not nudge a held webhook delivery; it re-checks on its own');
      }
    }));
    if (nudged.length) await m.query('UPDATE webhook_deliveries SET held_at = NULL WHERE id = ANY($1)', [nudged]);
    return nudged.length;
  });
}

