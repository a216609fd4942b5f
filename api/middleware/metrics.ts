/**
 * HTTP metrics (decision 0085): after each answer, one update of
 * `payments_http_requests_total` and `payments_http_request_duration_seconds` by operation id (the
 * spec operation matched by the router; else the area: `page`, `docs`, `sim`, `health`, `metrics`,
 * `unmatched` for an unknown /v1 path, `other`), status class and caller kind; plus the outcomes
 * read off the answer: an idempotent replay (`Idempotent-Replayed: true`) or an idempotency refusal
 * (409 `idempotency_key_reused` / `idempotency_failed`), a rate-limit refusal (429), a dependency
 * out (503 `temporarily_unavailable`). In-memory increments only: nothing waits on the request path.
 * Mounted in api/app.ts outside the error envelope, so errors are counted with their final status.
 */
import type Koa from 'koa';
import {
  dependencyRefusals,
  httpRequestDuration,
  httpRequests,
  idempotencyOutcomes,
  rateLimitRefusals,
  statusClass,
} from '../../lib/metrics';
import type { AppState } from '../context';
import { REGISTRY } from '../operation/registry';

let byRoute: Map<string, { id: string; isPublic: boolean }> | null = null;

/** The operation registered for `METHOD /v1/route/:template` (built once, after the routers are mounted). */
function operationOf(method: string, route: string): { id: string; isPublic: boolean } | undefined {
  if (!byRoute || byRoute.size !== REGISTRY.length) {
    byRoute = new Map(
      REGISTRY.map((d) => [`${d.method.toUpperCase()} /v1${d.path}`, { id: d.id, isPublic: (d.callers ?? []).includes('public_token') }]),
    );
  }
  return byRoute.get(`${method} ${route}`);
}

/** The label for a request no operation matched: its area by the first path segment. */
function areaOf(path: string): string {
  if (path === '/v1' || path.startsWith('/v1/')) return 'unmatched';
  if (path.startsWith('/sim/') || path === '/sim') return 'sim';
  if (path === '/healthz' || path === '/readyz') return 'health';
  if (path === '/metrics') return 'metrics';
  if (path === '/' || path.startsWith('/docs')) return 'docs';
  if (
    path.startsWith('/pay/') ||
    path.startsWith('/p/') ||
    path.startsWith('/payroll/') ||
    path.startsWith('/sandbox') ||
    path.startsWith('/assets/')
  )
    return 'page';
  return 'other';
}

/**
 * Koa middleware recording the request's metrics once it is answered (module doc). `routeOf` names
 * the route template a request matches when the router did not get to set it (a refusal by a
 * router-level middleware: authentication, rate limit).
 */
export function httpMetrics(routeOf: (ctx: Koa.ParameterizedContext<AppState>) => string | undefined): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    const t0 = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const matched = (ctx as unknown as { _matchedRoute?: string })._matchedRoute;
      let op = typeof matched === 'string' ? operationOf(ctx.method, matched) : undefined;
      if (!op && ctx.path.startsWith('/v1/')) {
        const route = routeOf(ctx);
        if (route) op = operationOf(ctx.method, route);
      }
      const operation = op?.id ?? areaOf(ctx.path);
      const callerKind = ctx.state.caller?.kind ?? (op?.isPublic ? 'public_token' : 'anonymous');
      const status = ctx.status;
      const cls = statusClass(status);
      httpRequests.inc({ operation, status_class: cls, caller_kind: callerKind });
      httpRequestDuration.observe({ operation, status_class: cls }, Number(process.hrtime.bigint() - t0) / 1e9);
      if (status === 429) rateLimitRefusals.inc({ caller_kind: callerKind });
      if (ctx.response.get('Idempotent-Replayed') === 'true') idempotencyOutcomes.inc({ operation, outcome: 'replayed' });
      if (status === 409 || status === 503) {
        const code = (ctx.body as { error?: { code?: unknown } } | null)?.error?.code;
        if (code === 'idempotency_key_reused') idempotencyOutcomes.inc({ operation, outcome: 'key_reused' });
        else if (code === 'idempotency_failed') idempotencyOutcomes.inc({ operation, outcome: 'failed' });
        else if (code === 'temporarily_unavailable' && status === 503 && ctx.response.get('Retry-After')) dependencyRefusals.inc();
      }
    }
  };
}
