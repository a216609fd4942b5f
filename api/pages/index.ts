/**
 * The pages a person opens (ARCHITECTURE.md "api/pages/"), on the payer host:
 * - `/pay/<plk_token>` and `/p/<short_code>`: the payer's page (api/pages/payer/);
 * - `/payroll/<prk_token>`: the payroll recipient's page (api/pages/recipient/);
 * - `/sandbox/...`: the sandbox's hosted provider pages (api/pages/sandbox/), only with the simulator on;
 * - `/assets/...`: their stylesheet and script.
 * Built on the same commands as the public-token routes (no privileged path). Every response gets
 * the page headers (api/pages/security.ts), the public-token rate limit of the API per client IP,
 * and HTML errors: an unknown, malformed, replaced or test-mode token renders one identical 404.
 * Forms post `application/x-www-form-urlencoded` (koa-body), so every step works without JavaScript;
 * the script only adds the live refresh, copy buttons, countdowns and a browser wallet.
 */
import Router from '@koa/router';
import type Koa from 'koa';
import compose from 'koa-compose';
import { koaBody } from 'koa-body';
import { isDomainError } from '../../domain/errors';
import { logger } from '../../lib/logger';
import type { AppState } from '../context';
import { rateLimitByIp } from '../middleware/rate-limit';
import { assets } from './assets';
import { mountPayerPages } from './payer/routes';
import { mountRecipientPages } from './recipient/routes';
import { sendFailure, sendNotFound, sendTooMany } from './render';
import { mountSandboxPages } from './sandbox/routes';
import { pageHeaders } from './security';

/** The router of every page (also handed to the method check of api/app.ts). */
export function pagesRouter(opts: { simulator: boolean }): Router<AppState> {
  const r = new Router<AppState>();
  r.get('/assets/:name', (ctx) => {
    const a = assets().get(ctx.params.name);
    if (!a) return sendNotFound(ctx);
    ctx.type = a.type;
    ctx.set('Cache-Control', ctx.query.v === a.hash ? 'public, max-age=31536000, immutable' : 'no-cache');
    ctx.set('ETag', `"${a.hash}"`);
    ctx.body = a.body;
  });
  mountPayerPages(r);
  mountRecipientPages(r);
  if (opts.simulator) mountSandboxPages(r);
  return r;
}

/** HTML for every failure of a page: 404 page, 429 with `Retry-After`, else a failure page with the request id. */
function pageErrors(): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) sendNotFound(ctx);
    } catch (e) {
      if (isDomainError(e) && e.type === 'not_found') return sendNotFound(ctx);
      if (isDomainError(e) && e.type === 'rate_limit_error') return sendTooMany(ctx, Number(e.details?.retry_after_seconds ?? 1));
      const status = isDomainError(e) && e.status >= 400 ? e.status : 500;
      if (status >= 500)
        logger.error(
          { err: e, request_id: ctx.state.requestId, path: ctx.path.replace(/\/(plk|prk)_[A-Za-z0-9]+/, '/$1_…') },
          'page failed',
        );
      sendFailure(ctx, status, ctx.state.requestId);
    }
  };
}

/**
 * Koa middleware serving the pages of `router` (mount it before the JSON body parser, which refuses
 * form bodies): headers, HTML errors, the public-token rate limit, form parsing, then the router.
 * Requests the router does not serve pass through untouched.
 */
export function servePages(router: Router<AppState>): Koa.Middleware<AppState> {
  const chain = compose<Koa.ParameterizedContext<AppState>>([
    pageHeaders() as Koa.Middleware<AppState>,
    pageErrors(),
    rateLimitByIp('public_token'),
    koaBody({ json: false, text: false, multipart: false, urlencoded: true, formLimit: '16kb' }) as unknown as Koa.Middleware<AppState>,
    router.routes() as unknown as Koa.Middleware<AppState>,
  ]);
  return async (ctx, next) => {
    if (!router.match(ctx.path, ctx.method).route) return next();
    return chain(ctx, next);
  };
}
