/**
 * Builds the Koa application (ARCHITECTURE.md "Data flow" 1): request id -> request log -> error envelope ->
 * [pages (HTML, api/pages/), docs and the root (api/docs/)] -> versioning -> body parsing -> [health, OpenAPI document, public token routes (payer, payroll recipient) | simulator] -> authentication -> rate limit
 * -> per-operation authorization, validation and idempotency (api/operation/: authorize.ts, validate.ts, idempotency.ts, tied by mount.ts) -> thin handlers.
 */
import crypto from 'node:crypto';
import Router from '@koa/router';
import Koa from 'koa';
import { DomainError } from '../domain/errors';
import { loadConfig } from '../lib/config';
import { logger } from '../lib/logger';
import { runInRequest } from '../lib/request-context';
import { METRICS_CONTENT_TYPE, metricsText } from '../lib/metrics';
import { traceRequest } from '../lib/tracing';
import { randomToken } from '../lib/secrets';
import type { AppState } from './context';
import { authenticate } from './middleware/auth';
import { errorEnvelope } from './middleware/errors';
import { httpMetrics } from './middleware/metrics';
import { requestLog } from './middleware/request-log';
import { parseJsonBody, refuseUnservedMethods, rejectNulCharacters } from './middleware/input';
import { rateLimitAuthenticated, rateLimitByIp } from './middleware/rate-limit';
import { memoizeRouteMatch } from './middleware/route-match';
import { LATEST_VERSION } from '../domain/versioning';
import { applyCallerDefaultVersion, pinRequestedVersion } from './middleware/version';
import { simulatorRouter } from './routes/simulator';
import { mountAreas, publicRouters as publicRoutersOf } from './routes';
import { openApiDocument } from './openapi';
import { pagesRouter, servePages } from './pages';
import { docsRouter } from './docs';
import { Lifecycle } from './lifecycle';

/**
 * Creates the app; `opts.simulator` defaults to SIMULATOR_ENABLED; `opts.lifecycle` is the
 * instance's readiness and draining state (api/lifecycle.ts; `startApi` passes the server's own).
 */
export function buildApp(opts: { simulator?: boolean; lifecycle?: Lifecycle } = {}): Koa<AppState> {
  const cfg = loadConfig();
  const lifecycle = opts.lifecycle ?? new Lifecycle();
  const app = new Koa<AppState>({ proxy: false });
  app.use(lifecycle.closeWhileDraining());

  app.use(async (ctx, next) => {
    ctx.state.requestId = randomToken('req_', 24);
    ctx.state.caller = null;
    ctx.state.idempotencyKey = null;
    ctx.state.redact = [];
    ctx.state.version = LATEST_VERSION;
    ctx.set('Request-Id', ctx.state.requestId);
    const traced = traceRequest(ctx.state.requestId, ctx.method); // null when tracing is off
    try {
      // The request id for code far from the handler (logger, Temporal starts: lib/request-context.ts).
      await runInRequest({ requestId: ctx.state.requestId }, next);
    } finally {
      ctx.set('Service-Version', ctx.state.version);
      const route = (ctx as { _matchedRoute?: string })._matchedRoute;
      traced?.(route);
      // An access line at debug level (LOG_LEVEL=debug); with tracing on it carries the trace id too.
      if (logger.isLevelEnabled('debug'))
        logger.debug({ request_id: ctx.state.requestId, method: ctx.method, route, status: ctx.status }, 'request');
    }
  });
  // Outside the error envelope: records the final status of every /v1 request, errors included.
  // Public routers (spec 5 rule 5): payer sessions (`plk_`), payroll recipient sessions (`prk_`), and the credential-free eligibility read.
  const publicRouters = publicRoutersOf();
  const open = new Router<AppState>();
  // The pages a person opens (api/pages/: the payer's, the payroll recipient's and the sandbox's hosted pages), HTML.
  const pages = pagesRouter({ simulator: opts.simulator ?? cfg.simulatorEnabled });
  // The docs (api/docs/: `/`, the API reference, guides, error reference), HTML, public, served like the pages.
  const docs = docsRouter({ simulator: opts.simulator ?? cfg.simulatorEnabled });
  const routers: Router<AppState>[] = [open, pages, docs, ...publicRouters];
  const isPublic = (ctx: Koa.ParameterizedContext<AppState>) => publicRouters.some((p) => p.match(ctx.path, ctx.method).route);
  app.use(requestLog(isPublic));
  if (cfg.metrics.enabled) app.use(httpMetrics((ctx) => routeTemplateOf(routers, ctx)));
  app.use(errorEnvelope());
  // 405 with `Allow` (or 404) before anything else reads the request (api/middleware/input.ts): an
  // unserved method is refused whatever its headers say.
  app.use(refuseUnservedMethods(() => routers));
  // Pages parse their own form bodies and render their own errors as HTML (before the JSON parser).
  app.use(servePages(pages));
  app.use(servePages(docs));
  app.use(pinRequestedVersion());
  // Our own JSON parser (api/middleware/input.ts): 413, UTF-8, depth, `__proto__` and NUL refusals in the envelope.
  app.use(parseJsonBody());
  app.use(rejectNulCharacters());

  // Liveness (answers while the process runs) and readiness (api/lifecycle.ts: PostgreSQL and
  // Temporal answer and the instance is not draining), for a load balancer or an orchestrator.
  open.get('/healthz', (ctx) => {
    ctx.body = { ok: true };
  });
  open.get('/readyz', async (ctx) => {
    const r = await lifecycle.readiness();
    ctx.set('Cache-Control', 'no-store');
    if (r.status !== 'ready') {
      ctx.status = 503;
      ctx.set('Retry-After', '5');
    }
    ctx.body = r;
  });
  // Metrics on the public port answer only to the scrape token (decision 0085): 404 to anyone
  // else, merchant credentials included; the worker's and an internal listener need none (METRICS_PORT).
  open.get('/metrics', async (ctx) => {
    if (!scrapeTokenMatches(ctx.get('Authorization'), cfg.metrics.token)) {
      throw new DomainError('not_found', 'not_found', `No route for ${ctx.method} ${ctx.path}.`);
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.type = METRICS_CONTENT_TYPE;
    ctx.body = await metricsText();
  });
  // The contract document, public (spec-independent; generated from the operation registry).
  open.get('/v1/openapi.json', (ctx) => {
    ctx.body = openApiDocument();
  });
  open.get('/.well-known/:name', () => {
    throw new DomainError('not_found', 'not_found', 'No public OAuth authorization server exists; authenticate with a business key.');
  });
  app.use(open.routes());

  app.use(rateLimitPublicPaths(isPublic));
  for (const p of publicRouters) {
    app.use(p.routes());
    app.use(p.allowedMethods());
  }

  if (opts.simulator ?? cfg.simulatorEnabled) {
    const sim = simulatorRouter();
    routers.push(sim);
    app.use(sim.routes());
    app.use(sim.allowedMethods());
  }

  const v1 = new Router<AppState>({ prefix: '/v1' });
  routers.push(v1);
  v1.use(authenticate());
  v1.use(applyCallerDefaultVersion());
  v1.use(rateLimitAuthenticated());
  mountAreas(v1);
  app.use(v1.routes());
  app.use(v1.allowedMethods());
  // Every router is asked about the same request several times (public check, 405 check, dispatch): one match each.
  for (const r of routers) memoizeRouteMatch(r);
  return app;
}

/** The template (`/v1/payment_links/:id`) of the route `ctx` matches on one of `routers`, if any (memoized matches). */
function routeTemplateOf(routers: Router<AppState>[], ctx: Koa.ParameterizedContext<AppState>): string | undefined {
  for (const r of routers) {
    const layer = r
      .match(ctx.path, ctx.method)
      .pathAndMethod.filter((l) => l.methods.length > 0)
      .pop();
    if (typeof layer?.path === 'string') return layer.path;
  }
  return undefined;
}

/** Whether `authorization` is `Bearer <token>` for the configured scrape token (constant time); false when none is configured. */
function scrapeTokenMatches(authorization: string, token: string | null): boolean {
  if (!token) return false;
  const given = Buffer.from(authorization.startsWith('Bearer ') ? authorization.slice(7) : '');
  const want = Buffer.from(token);
  return given.length === want.length && crypto.timingSafeEqual(given, want);
}

function rateLimitPublicPaths(isPublic: (ctx: Koa.ParameterizedContext<AppState>) => boolean): Koa.Middleware<AppState> {
  const limit = rateLimitByIp('public_token');
  return async (ctx: Koa.ParameterizedContext<AppState>, next: Koa.Next) => {
    if (isPublic(ctx)) return limit(ctx, next);
    return next();
  };
}
