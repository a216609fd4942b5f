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
 * Reads: activities/request-logs/queries.ts.
 */
import type Router from '@koa/router';
import Joi from '../schemas/joi';
import { apiKeyUsage, requestLogsQuery, requestLogSummary } from '../../activities/request-logs/queries';
import { REQUEST_LOG_RETENTION_DAYS } from '../../domain/request-logs';
import type { AppState } from '../context';
import { mount } from '../operation';
import { paginate, wantsExpand } from '../../lib/pagination';
import { listQuery } from '../schemas/common';
import { listEnvelope } from '../../views/schema';
import { apiKeyUsageResponse, apiKeyUsageView, requestLogResponse, requestLogView, statusClassesResponse } from '../../views/request-log';

const iso = Joi.string().isoDate();

/** Mounts the request-log reads (see the module doc). */
export function register(router: Router<AppState>): void {
  mount(router, {
    id: 'request_logs.list',
    method: 'get',
    path: '/request_logs',
    scope: 'developers.read',
    testMode: 'full',
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
    response: listEnvelope(
      requestLogResponse,
      Joi.object({ total: Joi.number().integer().min(0).required(), by_status_class: statusClassesResponse.required() }),
    ),
    handler: async ({ scope, query }) => {
      const qb = requestLogsQuery(scope, query);
      const page = await paginate(qb.clone(), 'r', query, requestLogView);
      if (!wantsExpand(query.expand, 'summary')) return page;
      return { ...page, summary: await requestLogSummary(scope, query) };
    },
  });

  mount(router, {
    id: 'api_keys.get_usage',
    method: 'get',
    path: '/api_keys/:id/usage',
    scope: 'developers.read',
    testMode: 'full',
    summary: "An API key's request counts, status classes, latency and daily traffic over the last `days` days.",
    query: Joi.object({ days: Joi.number().integer().min(1).max(REQUEST_LOG_RETENTION_DAYS).default(REQUEST_LOG_RETENTION_DAYS) }),
    response: apiKeyUsageResponse,
    handler: async ({ scope, params, query }) => apiKeyUsageView(await apiKeyUsage(scope, { id: params.id, days: query.days })),
  });
}
