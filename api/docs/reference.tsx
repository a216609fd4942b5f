/**
 * The API references (issue 23): `GET /docs` draws the served `/v1/openapi.json` (operations, schemas
 * and the OpenAPI 3.1 top-level `webhooks`), `GET /sim/docs` the simulator's `/sim/openapi.json`
 * (mounted only with the simulator on). The renderer is Swagger UI from the npm package
 * `swagger-ui-dist`, served by the product (api/docs/assets.ts): the page is a small server-rendered
 * document whose only scripts are the renderer's bundle and its initializer (api/docs/assets/
 * reference.js), both carrying the response's CSP nonce. Without JavaScript the page says where the
 * JSON document is.
 */
import type Router from '@koa/router';
import type Koa from 'koa';
import type { AppState } from '../context';
import { localeFor } from '../pages/i18n';
import { pageContext, sendPage } from '../pages/render';
import { docsAssetUrl } from './assets';
import { DocsNav } from './frame';

/** The pages' words the frame shares (skip link, SANDBOX banner); the docs are in English. */
const COPY = localeFor('en-US').copy;

/** What one reference page draws. */
interface ReferenceSpec { path: string; specUrl: string; title: string }

/** The /v1 reference. */
const API_REFERENCE: ReferenceSpec = { path: '/docs', specUrl: '/v1/openapi.json', title: 'API reference · Payments Platform API' };
/** The simulator's reference. */
const SIM_REFERENCE: ReferenceSpec = { path: '/sim/docs', specUrl: '/sim/openapi.json', title: 'Simulator reference · Payments Platform API' };

/** The reference document around Swagger UI. */
function ReferencePage(p: { spec: ReferenceSpec; nonce: string; sandbox: boolean; simulator: boolean }) {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>{p.spec.title}</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href={docsAssetUrl('swagger-ui.css')} nonce={p.nonce} />
        <link rel="stylesheet" href={docsAssetUrl('docs.css')} nonce={p.nonce} />
        <script src={docsAssetUrl('swagger-ui-bundle.js')} nonce={p.nonce} defer />
        <script src={docsAssetUrl('reference.js')} nonce={p.nonce} defer />
      </head>
      <body class="docs-reference">
        <a class="skip" href="#main">{COPY.skipToContent}</a>
        {p.sandbox ? <div class="sandbox-banner" role="note"><strong>{COPY.sandboxTag}</strong> {COPY.sandboxBanner}</div> : null}
        <header><DocsNav current={p.spec.path} simulator={p.simulator} /></header>
        {/* Not a <main>: Swagger UI draws its own (`<main id="operations">`), and a page has one. */}
        <div id="main" tabIndex={-1}>
          <noscript>
            <p class="noscript">The reference is drawn with JavaScript. The document itself is <a href={p.spec.specUrl}>{p.spec.specUrl}</a>.</p>
          </noscript>
          <div id="swagger-ui" data-spec-url={p.spec.specUrl} />
        </div>
      </body>
    </html>
  );
}

function serveReference(spec: ReferenceSpec, simulator: boolean): (ctx: Koa.Context) => void {
  return (ctx) => {
    const page = pageContext(ctx);
    sendPage(ctx, <ReferencePage spec={spec} nonce={page.nonce} sandbox={page.sandbox} simulator={simulator} />);
  };
}

/** Mounts `GET /docs` and, with the simulator on, `GET /sim/docs`. */
export function mountReferences(r: Router<AppState>, opts: { simulator: boolean }): void {
  r.get(API_REFERENCE.path, serveReference(API_REFERENCE, opts.simulator));
  if (opts.simulator) r.get(SIM_REFERENCE.path, serveReference(SIM_REFERENCE, opts.simulator));
}
