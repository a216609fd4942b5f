/**
 * Request-log reads (spec 4.10 `GET /request_logs`, `GET /api_keys/{id}/usage`): the caller's
 * recorded requests (a test-mode caller sees only test-mode ones) and one key's usage. Rows are
 * written by ./commands.ts (the request-log buffer) and kept REQUEST_LOG_RETENTION_DAYS days.
 */
import type { SelectQueryBuilder } from 'typeorm';
import { DomainError } from '../../domain/errors';
import { ApiKey, RequestLog } from '../../entities';
import { db } from '../../lib/db';
import { accountWide } from '../../lib/scoped';
import type { ApiKeyUsage, StatusClasses } from '../../views/request-log';
import type { AccountScope } from '../scope';

/**
 * Filters of `GET /request_logs`: `status` a code (`404`) or a class (`4xx`); `since` / `until`
 * ISO-8601 (`created_at` >= since, < until); `livemode` only for live callers.
 */
export interface RequestLogFilters {
  api_key?: string;
  method?: string;
  status?: number | string;
  path?: string;
  livemode?: boolean;
  since?: string;
  until?: string;
}

function classes(row: Record<string, number | string>): StatusClasses {
  return { '2xx': Number(row.c2 ?? 0), '3xx': Number(row.c3 ?? 0), '4xx': Number(row.c4 ?? 0), '5xx': Number(row.c5 ?? 0) };
}

const CLASS_SQL = `count(*) FILTER (WHERE r.status >= 200 AND r.status < 300) AS c2,
  count(*) FILTER (WHERE r.status >= 300 AND r.status < 400) AS c3,
  count(*) FILTER (WHERE r.status >= 400 AND r.status < 500) AS c4,
  count(*) FILTER (WHERE r.status >= 500) AS c5`;

/**
 * The scope's request logs matching `q` (alias `r`); the caller paginates it (newest first). A
 * live scope reads both modes (narrowed by `q.livemode`), a test-mode scope only test-mode rows:
 * `400 livemode_boundary` (param `livemode`) when it asks for live rows.
 */
export function requestLogsQuery(scope: AccountScope, requestLogFilters: RequestLogFilters): SelectQueryBuilder<RequestLog> {
  const caller = scope;
  const qb = accountWide(caller.accountId).query(RequestLog, 'r');
  if (!caller.livemode) {
    if (requestLogFilters.livemode === true)
      throw new DomainError('invalid_request', 'livemode_boundary', 'A test-mode key reads only test-mode request logs.', {
        param: 'livemode',
      });
    qb.andWhere('r.livemode = false');
  } else if (requestLogFilters.livemode !== undefined) qb.andWhere('r.livemode = :l', { l: requestLogFilters.livemode });
  if (requestLogFilters.api_key) qb.andWhere('r.api_key_id = :k', { k: requestLogFilters.api_key });
  if (requestLogFilters.method) qb.andWhere('r.method = :m', { m: requestLogFilters.method });
  if (requestLogFilters.path) qb.andWhere('r.path = :p', { p: requestLogFilters.path });
  if (requestLogFilters.status !== undefined) {
    const s = String(requestLogFilters.status);
    if (/^[1-5]xx$/.test(s)) {
      const lo = Number(s[0]) * 100;
      qb.andWhere('r.status >= :lo AND r.status < :hi', { lo, hi: lo + 100 });
    } else qb.andWhere('r.status = :s', { s: Number(s) });
  }
  if (requestLogFilters.since) qb.andWhere('r.created_at >= :since', { since: new Date(requestLogFilters.since).toISOString() });
  if (requestLogFilters.until) qb.andWhere('r.created_at < :until', { until: new Date(requestLogFilters.until).toISOString() });
  return qb;
}

/** Counts by status class over every row of `qb` (a requestLogsQuery): the scan the counts are checked against. */
export async function requestLogSummaryByScan(qb: SelectQueryBuilder<RequestLog>): Promise<RequestLogSummary> {
  const row = await qb.select('count(*)', 'total').addSelect(CLASS_SQL).getRawOne<Record<string, string>>();
  return { total: Number(row?.total ?? 0), by_status_class: classes(row ?? {}) };
}

/** `summary` of `GET /request_logs?expand=summary`: every matching row and its status classes. */
export interface RequestLogSummary {
  total: number;
  by_status_class: StatusClasses;
}

const HOUR_MS = 3_600_000;

/**
 * `GET /request_logs?expand=summary` (spec 4.10): the same numbers as `requestLogSummaryByScan`
 * over `requestLogsQuery(scope, q)`, without a scan of the account's rows (decision 0077): whole
 * UTC hours inside `since`..`until` are summed from `request_log_counts` (migration 1764640000000,
 * kept by the batch insert), and only the part hours at the window's edges are counted from rows
 * (at most two hours of the account's rows). A `path` filter (not a key of the counts) or a window
 * inside one or two hours is counted from rows. Throws as requestLogsQuery does.
 */
export async function requestLogSummary(scope: AccountScope, requestLogFilters: RequestLogFilters): Promise<RequestLogSummary> {
  const all = requestLogsQuery(scope, requestLogFilters);
  if (requestLogFilters.path) return requestLogSummaryByScan(all);
  const since = requestLogFilters.since ? new Date(requestLogFilters.since) : null;
  const until = requestLogFilters.until ? new Date(requestLogFilters.until) : null;
  const lo = since ? new Date(Math.ceil(since.getTime() / HOUR_MS) * HOUR_MS) : null;
  const hi = until ? new Date(Math.floor(until.getTime() / HOUR_MS) * HOUR_MS) : null;
  if (lo && hi && lo >= hi) return requestLogSummaryByScan(all);

  const own = accountWide(scope.accountId).sql(null, 1);
  const params: unknown[] = [...own.params];
  const where = [own.where];
  const add = (sql: string, v: unknown) => {
    params.push(v);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (!scope.livemode) where.push('livemode = false');
  else if (requestLogFilters.livemode !== undefined) add('livemode = ?', requestLogFilters.livemode);
  if (requestLogFilters.api_key) add('api_key_id = ?', requestLogFilters.api_key);
  if (requestLogFilters.method) add('method = ?', requestLogFilters.method);
  if (requestLogFilters.status !== undefined) {
    const st = String(requestLogFilters.status);
    if (/^[1-5]xx$/.test(st)) {
      add('status >= ?', Number(st[0]) * 100);
      add('status < ?', Number(st[0]) * 100 + 100);
    } else add('status = ?', Number(st));
  }
  if (lo) add('hour >= ?', lo.toISOString());
  if (hi) add('hour < ?', hi.toISOString());
  const rows: Array<{ status: number; n: string }> = await db().query(
    `SELECT status, sum(n)::text AS n FROM request_log_counts WHERE ${where.join(' AND ')} GROUP BY status`,
    params,
  );
  const out: RequestLogSummary = { total: 0, by_status_class: { '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0 } };
  for (const r of rows) {
    const n = Number(r.n);
    out.total += n;
    const cls = r.status >= 500 ? '5xx' : r.status >= 400 ? '4xx' : r.status >= 300 ? '3xx' : r.status >= 200 ? '2xx' : null;
    if (cls) out.by_status_class[cls] += n;
  }
  const edges: Array<[string | undefined, string | undefined]> = [];
  if (since && lo && since < lo) edges.push([requestLogFilters.since, lo.toISOString()]);
  if (until && hi && hi < until) edges.push([hi.toISOString(), requestLogFilters.until]);
  for (const [from, to] of edges) {
    const e = await requestLogSummaryByScan(requestLogsQuery(scope, { ...requestLogFilters, since: from, until: to }));
    out.total += e.total;
    for (const k of Object.keys(out.by_status_class) as Array<keyof StatusClasses>) out.by_status_class[k] += e.by_status_class[k];
  }
  return out;
}

/**
 * `GET /api_keys/{id}/usage`: totals, status classes, latency percentiles (ms) and UTC daily
 * counts of key `input.id` over the `input.days` days before now. `404 not_found` (param `id`) for
 * a key the scope cannot see (a test-mode scope sees only test-mode keys).
 */
export async function apiKeyUsage(scope: AccountScope, input: { id: string; days: number }): Promise<ApiKeyUsage> {
  const caller = scope;
  const { id: keyId, days } = input;
  const key = await accountWide(caller.accountId).findOne(ApiKey, { id: keyId, ...(caller.livemode ? {} : { livemode: false }) });
  if (!key) throw new DomainError('not_found', 'not_found', `No such API key: ${keyId}.`, { param: 'id' });
  const end = new Date();
  const start = new Date(end.getTime() - days * 86_400_000);
  const own = accountWide(caller.accountId).sql('r', 2);
  const args = [key.id, ...own.params, start.toISOString()];
  const [tot]: Array<Record<string, string>> = await db().query(
    `SELECT count(*) AS total, ${CLASS_SQL},
            percentile_disc(0.5) WITHIN GROUP (ORDER BY r.latency_ms) AS p50,
            percentile_disc(0.95) WITHIN GROUP (ORDER BY r.latency_ms) AS p95,
            max(r.created_at) AS last
       FROM request_logs r WHERE r.api_key_id = $1 AND ${own.where} AND r.created_at >= $3`,
    args,
  );
  const daily: Array<{ date: string; requests: string; errors: string }> = await db().query(
    `SELECT to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS date, count(*) AS requests,
            count(*) FILTER (WHERE r.status >= 400) AS errors
       FROM request_logs r WHERE r.api_key_id = $1 AND ${own.where} AND r.created_at >= $3
      GROUP BY 1 ORDER BY 1`,
    args,
  );
  return {
    keyId: key.id,
    livemode: key.livemode,
    start,
    end,
    total: Number(tot.total),
    classes: classes(tot),
    p50: tot.p50 === null ? null : Number(tot.p50),
    p95: tot.p95 === null ? null : Number(tot.p95),
    lastRequestAt: tot.last ? new Date(tot.last) : null,
    daily: daily.map((d) => ({ date: d.date, requests: Number(d.requests), errors: Number(d.errors) })),
  };
}
