/**
 * The docs (ARCHITECTURE.md "api/docs/"): the served API reference, the guides, the error
 * reference, and the root of the API, all public (no key) and served by the product itself (no CDN,
 * no third-party origin):
 * - `GET /`: where the documentation is (HTML, or JSON for `Accept: application/json`; root.tsx);
 * - `GET /docs`, `GET /docs/reference/<tag>`, `GET /docs/webhooks`: the /v1 reference, server-rendered
 *   from the served document (reference.tsx); `GET /sim/docs`: the simulator's, only with the simulator on;
 * - `GET /docs/assets/<name>`: the docs' own stylesheet (assets.ts);
 * - `GET /docs/guides`, `GET /docs/guides/<name>`: the repository's `docs/guides/*.md` (guides.tsx);
 * - `GET /docs/errors`: the error reference (errors.tsx, `mountErrorReference`).
 * The router is served like the pages (api/pages/index.ts `servePages`: page headers with a CSP
 * nonce per response, HTML errors, the public-token rate limit per IP) and takes part in the 405 check.
 */
import Router from '@koa/router';
import type { AppState } from '../context';
import { sendNotFound } from '../pages/render';
import { docsAssets } from './assets';
import { mountErrorReference } from './errors';
import { mountGuides } from './guides';
import { mountReferences } from './reference';
import { mountRoot } from './root';

/** The router of the docs and the API's root (served with api/pages/index.ts `servePages`). */
export function docsRouter(opts: { simulator: boolean }): Router<AppState> {
  const r = new Router<AppState>();
  r.get('/docs/assets/:name', (ctx) => {
    const a = docsAssets().get(ctx.params.name);
    if (!a) return sendNotFound(ctx);
    ctx.status = 200;
    ctx.type = a.type;
    ctx.set('Cache-Control', ctx.query.v === a.hash ? 'public, max-age=31536000, immutable' : 'no-cache');
    ctx.set('ETag', `"${a.hash}"`);
    ctx.vary('Accept-Encoding');
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = a.gzipped;
    } else {
      ctx.body = a.body;
    }
  });
  mountRoot(r, opts);
  mountReferences(r, opts);
  mountGuides(r, opts);
  mountErrorReference(r, opts);
  return r;
}
