/**
 * Writing webhook attempts (spec 4.10 webhook rows, 6): a batch of attempt results of one endpoint
 * in one transaction (attempt rows, delivery statuses through the delivery's record, the endpoint's
 * failure streak and auto-disable through the endpoint's record: activities/records/). Called by
 * the drain activity (./drain.ts) only. Status rules: domain/webhooks.ts; schedule and streak:
 * domain/webhook-schedule.ts.
 */
import type { EntityManager } from 'typeorm';
import { attemptResult, failureStreakChange } from '../../domain/webhook-schedule';
import { AUTO_DISABLE_CONSECUTIVE_FAILURES } from '../../domain/webhooks';
import { transaction } from '../../lib/db';
import { recordDeliveryOutcomes } from '../records/webhook-deliveries';
import { autoDisableWebhookEndpoint } from '../records/webhook-endpoints';
import { type HttpResult, isSuccess } from './http';

/** One finished attempt, ready to be written. */
export interface AttemptRecord {
  /** The attempt row's id (`wha_`), minted when the POST finished: a retried write of the same attempt is recognised by it. */
  id: string;
  deliveryId: string;
  /** 1-based attempt number assumed when the delivery was taken (its `attempt_count` + 1); the write may number it higher. */
  attempt: number;
  http: HttpResult;
  /** When the POST finished on the drain's clock (workflow time, epoch ms): the retry schedule counts from it. */
  finishedAtMs: number;
}

/** An attempt as written: its final number, the status it leaves and when the next attempt is due. */
interface NumberedAttempt extends AttemptRecord {
  outcome: 'succeeded' | 'retrying' | 'failed';
  nextAttemptAt: Date | null;
}

/**
 * Writes `records` (attempts of endpoint `endpointId`, in completion order) in one transaction:
 * the `webhook_attempts` rows, each delivery's status, attempt count, last status/error,
 * `next_attempt_at` and `delivered_at` (only while the delivery is still live: a delivery made
 * final meanwhile is left alone), and the endpoint's consecutive failure count. When a delivery
 * ends `failed` and the count reaches AUTO_DISABLE_CONSECUTIVE_FAILURES the endpoint is disabled
 * with `webhook_endpoint.disabled`. Returns whether the endpoint is still enabled afterwards.
 * Throws on database errors only.
 *
 * Attempts are numbered here (decision 0086): a record whose id is already written (a retried
 * write) is skipped; one whose assumed number another drain has written meanwhile (a drain Temporal
 * retried after a missed heartbeat while the first still ran) takes the next free number under
 * its delivery's row lock, and its status and retry time follow that number. So every POST is one
 * attempt row and the delivery's status is the last write's.
 */
export async function recordAttempts(endpointId: string, records: AttemptRecord[]): Promise<{ enabled: boolean }> {
  if (records.length === 0) return { enabled: true };
  return transaction(async (m) => {
    const numbered = await writeAttemptRows(m, records);
    if (numbered.length === 0) return { enabled: true };
    await recordDeliveryOutcomes(
      m,
      numbered.map((r) => ({
        deliveryId: r.deliveryId,
        outcome: r.outcome,
        attempt: r.attempt,
        statusCode: r.http.statusCode,
        error: r.http.error,
        nextAttemptAt: r.nextAttemptAt,
      })),
    );
    // A renumbered attempt (overlapping drains): the count follows the rows even on a delivery made
    // final meanwhile, whose status was left alone above.
    const assumed = new Map(records.map((r) => [r.id, r.attempt]));
    const counts = new Map<string, number>();
    for (const r of numbered)
      if (r.attempt !== assumed.get(r.id)) counts.set(r.deliveryId, Math.max(r.attempt, counts.get(r.deliveryId) ?? 0));
    if (counts.size > 0) {
      await m.query(
        `UPDATE webhook_deliveries d SET attempt_count = t.n FROM unnest($1::text[], $2::int[]) AS t(id, n)
          WHERE d.id = t.id AND d.attempt_count < t.n`,
        [[...counts.keys()], [...counts.values()]],
      );
    }
    const { reset, failures } = failureStreakChange(numbered.map((r) => r.outcome));
    if (!reset && failures === 0) return { enabled: true };
    // TypeORM answers UPDATE ... RETURNING with [rows, rowCount].
    const [rows]: [Array<{ consecutive_failures: number }>, number] = await m.query(
      `UPDATE webhook_endpoints SET consecutive_failures = CASE WHEN $2 THEN 0 ELSE consecutive_failures END + $3
        WHERE id = $1 AND NOT ($2 AND $3 = 0 AND consecutive_failures = 0) RETURNING consecutive_failures`,
      [endpointId, reset, failures],
    );
    const streak = rows[0]?.consecutive_failures ?? 0;
    if (numbered.some((r) => r.outcome === 'failed') && streak >= AUTO_DISABLE_CONSECUTIVE_FAILURES) {
      return { enabled: !(await autoDisableWebhookEndpoint(m, endpointId)) };
    }
    return { enabled: true };
  });
}

/** The status and retry time of record `r` as attempt number `attempt`. */
function asAttempt(r: AttemptRecord, attempt: number): NumberedAttempt {
  const { outcome, nextAttemptAtMs } = attemptResult(isSuccess(r.http.statusCode), r.http.retryable, attempt, r.finishedAtMs);
  return { ...r, attempt, outcome, nextAttemptAt: nextAttemptAtMs === null ? null : new Date(nextAttemptAtMs) };
}

/**
 * Inserts the attempt rows `rows` under their numbers; returns the ids of those written (a clash on
 * the number per delivery writes nothing for that row).
 * The partition key is the delivery's creation time (migration 1764620000000): the join fills it
 * and writes no attempt of an unknown delivery (the table has no foreign key).
 */
async function insertAttempts(m: EntityManager, rows: NumberedAttempt[]): Promise<Set<string>> {
  // TypeORM answers INSERT ... RETURNING with the rows.
  const inserted: Array<{ id: string }> = await m.query(
    `INSERT INTO webhook_attempts(id, delivery_id, attempt_number, status_code, error, latency_ms, response_excerpt, delivery_created_at)
     SELECT t.id, t.delivery_id, t.attempt_number, t.status_code, t.error, t.latency_ms, t.response_excerpt, d.created_at
       FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::text[], $6::int[], $7::text[])
            AS t(id, delivery_id, attempt_number, status_code, error, latency_ms, response_excerpt)
       JOIN webhook_deliveries d ON d.id = t.delivery_id
     ON CONFLICT (delivery_id, attempt_number, delivery_created_at) DO NOTHING RETURNING id`,
    [
      rows.map((r) => r.id),
      rows.map((r) => r.deliveryId),
      rows.map((r) => r.attempt),
      rows.map((r) => r.http.statusCode),
      rows.map((r) => r.http.error),
      rows.map((r) => r.http.latencyMs),
      rows.map((r) => r.http.excerpt),
    ],
  );
  return new Set(inserted.map((r) => r.id));
}

/**
 * Writes the attempt rows of `records` inside transaction `m` (see recordAttempts) and returns
 * those written with their final number, status and retry time, in completion order.
 * Common case: each row goes in under the number assumed when its delivery was taken. A row whose
 * number was taken (unique per delivery) is either a retried write (its id is already there:
 * skipped) or another drain's overlapping POST: that delivery is locked (id order, so writers never
 * deadlock) and the row takes the number after the highest written, up to three tries.
 */
async function writeAttemptRows(m: EntityManager, records: AttemptRecord[]): Promise<NumberedAttempt[]> {
  const final = new Map<string, NumberedAttempt>();
  let pending = records.map((r) => asAttempt(r, r.attempt));
  for (let tries = 0; pending.length > 0 && tries < 3; tries += 1) {
    const written = await insertAttempts(m, pending);
    for (const r of pending) if (written.has(r.id)) final.set(r.id, r);
    const clashed = pending.filter((r) => !written.has(r.id));
    if (clashed.length === 0) break;
    const already: Array<{ id: string }> = await m.query('SELECT id FROM webhook_attempts WHERE id = ANY($1)', [clashed.map((r) => r.id)]);
    const retried = new Set(already.map((a) => a.id));
    const rest = clashed.filter((r) => !retried.has(r.id));
    if (rest.length === 0) break;
    const deliveryIds = [...new Set(rest.map((r) => r.deliveryId))];
    const top: Array<{ id: string; top: number | null }> = await m.query(
      `SELECT d.id, (SELECT max(a.attempt_number) FROM webhook_attempts a WHERE a.delivery_id = d.id AND a.delivery_created_at = d.created_at) AS top
         FROM (SELECT id, created_at FROM webhook_deliveries WHERE id = ANY($1) ORDER BY id FOR UPDATE) d`,
      [deliveryIds],
    );
    const next = new Map(top.map((t) => [t.id, t.top ?? 0]));
    pending = [];
    for (const r of rest) {
      if (!next.has(r.deliveryId)) continue; // the delivery is gone: nothing to attach the attempt to
      const n = next.get(r.deliveryId)! + 1;
      next.set(r.deliveryId, n);
      pending.push(asAttempt(r, n));
    }
  }
  return records.filter((r) => final.has(r.id)).map((r) => final.get(r.id)!);
}
