/**
 * Housekeeping run by the worker every 10 minutes: forgets idempotency records older than their
 * 24-hour replay window (spec 8: "forgotten after"), rate-limit rows whose window has ended and
 * request logs older than their 30-day retention (spec 4.10 request logs).
 * Deletes in batches so a large backlog never holds long locks. Returns the rows removed.
 */
import { IDEMPOTENCY_TTL_SECONDS } from '../../domain/idempotency';
import { REQUEST_LOG_RETENTION_DAYS } from '../../domain/request-logs';
import { db } from '../../lib/db';

const BATCH = 5000;

/** One pass; safe to run concurrently on several workers. */
export async function purgeExpired(): Promise<{ idempotency: number; rateLimits: number; requestLogs: number }> {
  let idempotency = 0;
  for (;;) {
    const r: [unknown[], number] = await db().query(
      `DELETE FROM idempotency_records WHERE ctid IN (
         SELECT ctid FROM idempotency_records WHERE created_at < now() - make_interval(secs => $1) LIMIT $2)`,
      [IDEMPOTENCY_TTL_SECONDS, BATCH]);
    idempotency += r[1];
    if (r[1] < BATCH) break;
  }
  const rl: [unknown[], number] = await db().query('DELETE FROM rate_limits WHERE expire IS NOT NULL AND expire < $1', [Date.now() - 60_000]);
  let requestLogs = 0;
  for (;;) {
    const r: [unknown[], number] = await db().query(
      `DELETE FROM request_logs WHERE ctid IN (
         SELECT ctid FROM request_logs WHERE created_at < now() - make_interval(days => $1) LIMIT $2)`,
      [REQUEST_LOG_RETENTION_DAYS, BATCH]);
    requestLogs += r[1];
    if (r[1] < BATCH) break;
  }
  return { idempotency, rateLimits: rl[1], requestLogs };
}

/** Starts the periodic pass; returns a stop function. */
export function startHousekeeping(everyMs = 10 * 60_000, log: (m: Record<string, unknown>, msg: string) => void = () => undefined): () => void {
  const tick = () => { purgeExpired().then((r) => log(r, 'housekeeping pass')).catch((e) => log({ err: e }, 'housekeeping pass failed')); };
  const t = setInterval(tick, everyMs);
  t.unref();
  tick();
  return () => clearInterval(t);
}
