/**
 * Housekeeping run by the worker at start and every 10 minutes: forgets idempotency records older
 * than their 24-hour replay window (spec 8: "forgotten after") and rate-limit rows whose window has
 * ended (batched DELETEs of small, short-lived rows), then runs the partition manager
 * (./partitions.ts): request logs past their 30-day retention (spec 4.10 request logs) and webhook
 * attempts past theirs go by dropping whole daily partitions, never by DELETE, so writers never
 * wait on a purge (docs/decisions/0078-retention-by-partition-drop.md). Events are kept: nothing
 * here deletes them.
 */
import { IDEMPOTENCY_TTL_SECONDS } from '../../domain/idempotency';
import { db } from '../../lib/db';
import { maintainAllPartitions, type PartitionPass } from './partitions';

const BATCH = 5000;

/** What one pass removed: rows of each kind (request logs and webhook attempts: rows of the dropped partitions), and the partition manager's report per table. */
export interface PurgeResult {
  idempotency: number;
  rateLimits: number;
  requestLogs: number;
  webhookAttempts: number;
  partitions: Record<string, PartitionPass>;
}

/** One pass; safe to run concurrently on several workers (the partition manager takes turns by advisory lock). */
export async function purgeExpired(): Promise<PurgeResult> {
  let idempotency = 0;
  for (;;) {
    const r: [unknown[], number] = await db().query(
      `DELETE FROM idempotency_records WHERE ctid IN (
         SELECT ctid FROM idempotency_records WHERE created_at < now() - make_interval(secs => $1) LIMIT $2)`,
      [IDEMPOTENCY_TTL_SECONDS, BATCH],
    );
    idempotency += r[1];
    if (r[1] < BATCH) break;
  }
  const rl: [unknown[], number] = await db().query('DELETE FROM rate_limits WHERE expire IS NOT NULL AND expire < $1', [
    Date.now() - 60_000,
  ]);
  const partitions = await maintainAllPartitions();
  return {
    idempotency,
    rateLimits: rl[1],
    partitions,
    requestLogs: partitions.request_logs?.rowsDropped ?? 0,
    webhookAttempts: partitions.webhook_attempts?.rowsDropped ?? 0,
  };
}

/** Starts the periodic pass; returns a stop function. */
export function startHousekeeping(
  everyMs = 10 * 60_000,
  log: (m: Record<string, unknown>, msg: string) => void = () => undefined,
): () => void {
  const tick = () => {
    purgeExpired()
      .then((r) => log({ ...r }, 'housekeeping pass'))
      .catch((e) => log({ err: e }, 'housekeeping pass failed'));
  };
  const t = setInterval(tick, everyMs);
  t.unref();
  tick();
  return () => clearInterval(t);
}
