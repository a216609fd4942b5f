/**
 * Request-log persistence (spec 4.10 `GET /request_logs`, `GET /api_keys/{id}/usage`): one
 * multi-row INSERT per batch (arrays through `unnest`, so a batch is a single statement with 16
 * parameters whatever its size). Rows carry no request or response bodies.
 */
import { db } from '../../lib/db';

/** One request as recorded (latency in whole milliseconds; `account_id` null when unauthenticated). */
export interface RequestLogRow {
  id: string;
  account_id: string | null;
  livemode: boolean | null;
  caller_type: string | null;
  api_key_id: string | null;
  user_id: string | null;
  method: string;
  path: string;
  status: number;
  latency_ms: number;
  idempotency_key: string | null;
  error_type: string | null;
  error_code: string | null;
  api_version: string | null;
  ip: string | null;
  created_at: Date;
}

/**
 * Inserts `rows` in one statement; a repeated id is ignored (a retried batch never duplicates: it
 * carries the same `created_at`, part of the partitioned table's key, migration 1764620000000). The
 * same statement adds the rows it inserted to `request_log_counts` (migration 1764640000000; the
 * summary's counts), in key order so two concurrent batches never wait on each other in a circle.
 */
export async function insertRequestLogs(rows: RequestLogRow[]): Promise<void> {
  if (!rows.length) return;
  const col = <K extends keyof RequestLogRow>(k: K) => rows.map((r) => r[k]);
  await db().query(
    `WITH inserted AS (
       INSERT INTO request_logs(id, account_id, livemode, caller_type, api_key_id, user_id, method, path, status, latency_ms,
                                idempotency_key, error_type, error_code, api_version, ip, created_at)
       SELECT * FROM unnest($1::text[], $2::text[], $3::boolean[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                            $9::int[], $10::int[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::timestamptz[])
       ON CONFLICT (id, created_at) DO NOTHING
       RETURNING account_id, livemode, api_key_id, method, status, created_at
     )
     INSERT INTO request_log_counts AS c (account_id, livemode, hour, api_key_id, method, status, n)
     SELECT account_id, livemode, date_trunc('hour', created_at, 'UTC'), coalesce(api_key_id, ''), method, status, count(*)
       FROM inserted WHERE account_id IS NOT NULL AND livemode IS NOT NULL
      GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6
     ON CONFLICT (account_id, livemode, hour, api_key_id, method, status) DO UPDATE SET n = c.n + EXCLUDED.n`,
    [
      col('id'),
      col('account_id'),
      col('livemode'),
      col('caller_type'),
      col('api_key_id'),
      col('user_id'),
      col('method'),
      col('path'),
      col('status'),
      col('latency_ms'),
      col('idempotency_key'),
      col('error_type'),
      col('error_code'),
      col('api_version'),
      col('ip'),
      rows.map((r) => r.created_at.toISOString()),
    ],
  );
}
