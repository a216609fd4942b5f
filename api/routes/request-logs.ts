/**
 * Developers area, request logs (spec 4.10): `GET /request_logs` and `GET /api_keys/{id}/usage`,
 * scope `developers.read`, business keys and dashboard sessions, reachable in test mode (spec 1
 * rule 5: request-log and API-key reads; a test-mode caller sees only test-mode requests and
 * keys). Rows are written by the request-log buffer (api/middleware/request-log.ts) and become
 * readable within one flush interval (~250 ms). Only authenticated requests belong to an account.
 *
 * List filters: `api_key` (key id), `method`, `status` (a code like `404` or a class `4xx`),
 * `path` (exact), `livemode` (live callers only; a test-mode caller asking for live rows is
 * `400 livemode_boundary`), `since` / `until` (ISO-8601, `created_at` >= since and < until).
 * `expand=summary` adds counts by status class over every matching row.
 * Usage: `days` (1..30, default 30; logs are kept 30 days) of totals, status classes, latency
 * percentiles and daily counts; an unknown key is `404`.
 */
import type Router from '@koa/router';
import Joi from 'joi';
import type { SelectQueryBuilder } from 'typeorm';
import { DomainError } from '../../domain/errors';
import { ApiKey, RequestLog } from '../../entities';
import { REQUEST_LOG_RETENTION_DAYS } from '../../activities/housekeeping/purge';
import { db } from '../../lib/db';
import type { AppState, Caller } from '../context';
import { mount } from '../operation';
import { paginate, wantsExpand } from '../pagination';
import { listQuery } from '../schemas/common';
import { listEnvelope } from '../../views/schema';
import { apiKeyUsageResponse, apiKeyUsageView, requestLogResponse, requestLogView, statusClassesResponse, type StatusClasses } from '../../views/request-log';


const iso = Joi.string().isoDate();

function applyFilters(qb: SelectQueryBuilder<RequestLog>, caller: Caller, q: Record<string, any>): void {
  qb.where('r.account_id = :a', { a: caller.accountId });
  if (!caller.livemode) {
    if (q.livemode === true) throw new DomainError('invalid_request', 'livemode_boundary', 'A test-mode key reads only test-mode request logs.', { param: 'livemode' });
    qb.andWhere('r.livemode = false');
  } else if (q.livemode !== undefined) qb.andWhere('r.livemode = :l', { l: q.livemode });
  if (q.api_key) qb.andWhere('r.api_key_id = :k', { k: q.api_key });
  if (q.method) qb.andWhere('r.method = :m', { m: q.method });
  if (q.path) qb.andWhere('r.path = :p', { p: q.path });
  if (q.status !== undefined) {
    const s = String(q.status);
    if (/^[1-5]xx$/.test(s)) {
      const lo = Number(s[0]) * 100;
      qb.andWhere('r.status >= :lo AND r.status < :hi', { lo, hi: lo + 100 });
    } else qb.andWhere('r.status = :s', { s: Number(s) });
  }
  if (q.since) qb.andWhere('r.created_at >= :since', { since: new Date(q.since).toISOString() });
  if (q.until) qb.andWhere('r.created_at < :until', { until: new Date(q.until).toISOString() });
}

function classes(row: Record<string, number | string>): StatusClasses {
  return { '2xx': Number(row.c2 ?? 0), '3xx': Number(row.c3 ?? 0), '4xx': Number(row.c4 ?? 0), '5xx': Number(row.c5 ?? 0) };
}

const CLASS_SQL = `count(*) FILTER (WHERE r.status >= 200 AND r.status < 300) AS c2,
  count(*) FILTER (WHERE r.status >= 300 AND r.status < 400) AS c3,
  count(*) FILTER (WHERE r.status >= 400 AND r.status < 500) AS c4,
  count(*) FILTER (WHERE r.status >= 500) AS c5`;

/** Mounts the request-log reads (see the module doc). */
export function register(r: Router<AppState>): void {
  mount(r, {
    id: 'request_logs.list', method: 'get', path: '/request_logs', scope: 'developers.read', testMode: 'full',
    summary: 'List recorded API requests, newest first.',
    query: Joi.object({
      ...listQuery,
      api_key: Joi.string().max(64),
      method: Joi.string().uppercase().valid('GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'HEAD', 'OPTIONS'),
      status: Joi.alternatives(Joi.number().integer().min(100).max(599), Joi.string().pattern(/^[1-5]xx$/)),
      path: Joi.string().max(1000),
      livemode: Joi.boolean(),
      since: iso,
      until: iso,
    }),
    response: listEnvelope(requestLogResponse, Joi.object({ total: Joi.number().integer().min(0).required(), by_status_class: statusClassesResponse.required() })),
    handler: async ({ caller, query }) => {
      const qb = db().getRepository(RequestLog).createQueryBuilder('r');
      applyFilters(qb, caller, query);
      const page = await paginate(qb.clone(), 'r', query, requestLogView);
      if (!wantsExpand(query.expand, 'summary')) return page;
      const row = await qb.select('count(*)', 'total').addSelect(CLASS_SQL).getRawOne<Record<string, string>>();
      return { ...page, summary: { total: Number(row?.total ?? 0), by_status_class: classes(row ?? {}) } };
    },
  });

  mount(r, {
    id: 'api_keys.get_usage', method: 'get', path: '/api_keys/:id/usage', scope: 'developers.read', testMode: 'full',
    summary: "An API key's request counts, status classes, latency and daily traffic over the last `days` days.",
    query: Joi.object({ days: Joi.number().integer().min(1).max(REQUEST_LOG_RETENTION_DAYS).default(REQUEST_LOG_RETENTION_DAYS) }),
    response: apiKeyUsageResponse,
    handler: async ({ caller, params, query }) => {
      const key = await db().getRepository(ApiKey).findOneBy({ id: params.id, account_id: caller.accountId, ...(caller.livemode ? {} : { livemode: false }) });
      if (!key) throw new DomainError('not_found', 'not_found', `No such API key: ${params.id}.`, { param: 'id' });
      const end = new Date();
      const start = new Date(end.getTime() - query.days * 86_400_000);
      const args = [key.id, caller.accountId, start.toISOString()];
      const [tot]: Array<Record<string, string>> = await db().query(
        `SELECT count(*) AS total, ${CLASS_SQL},
                percentile_disc(0.5) WITHIN GROUP (ORDER BY r.latency_ms) AS p50,
                percentile_disc(0.95) WITHIN GROUP (ORDER BY r.latency_ms) AS p95,
                max(r.created_at) AS last
           FROM request_logs r WHERE r.api_key_id = $1 AND r.account_id = $2 AND r.created_at >= $3`, args);
      const daily: Array<{ date: string; requests: string; errors: string }> = await db().query(
        `SELECT to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS date, count(*) AS requests,
                count(*) FILTER (WHERE r.status >= 400) AS errors
           FROM request_logs r WHERE r.api_key_id = $1 AND r.account_id = $2 AND r.created_at >= $3
          GROUP BY 1 ORDER BY 1`, args);
      return apiKeyUsageView({
        keyId: key.id, livemode: key.livemode, start, end, total: Number(tot.total), classes: classes(tot),
        p50: tot.p50 === null ? null : Number(tot.p50), p95: tot.p95 === null ? null : Number(tot.p95),
        lastRequestAt: tot.last ? new Date(tot.last) : null,
        daily: daily.map((d) => ({ date: d.date, requests: Number(d.requests), errors: Number(d.errors) })),
      });
    },
  });
}
