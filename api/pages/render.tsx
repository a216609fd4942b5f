/**
 * Rendering a page: preact's server renderer turns a typed component tree into HTML,
 * escaping every text and attribute value; the caller's Koa context gets the document, its status
 * and `text/html`. Also the pages every route shares: the one 404 (identical for an unknown,
 * malformed, replaced or test-mode token: no oracle), 429 and 500.
 */
import type Koa from 'koa';
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { loadConfig } from '../../lib/config';
import { Layout } from './layout';
import { localeOf, type Locale } from './i18n';

/** What every page component receives. */
export interface PageContext {
  locale: Locale;
  nonce: string;
  /** True when the simulator is on: pages are marked SANDBOX and show the sandbox buttons. */
  sandbox: boolean;
}

/** The PageContext of a request (locale from `Accept-Language`, the response's CSP nonce). */
export function pageContext(ctx: Koa.Context): PageContext {
  return { locale: localeOf(ctx), nonce: String(ctx.state.cspNonce ?? ''), sandbox: loadConfig().simulatorEnabled };
}

/** Renders `tree` (a `<Layout>` document) as the response, with `status`. */
export function sendPage(ctx: Koa.Context, tree: VNode, status = 200): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = `<!doctype html>${renderToString(tree)}`;
}

/** Renders `tree` alone (a fragment for the live refresh), no document around it. */
export function renderFragment(tree: VNode): string {
  return renderToString(tree);
}

/** The one "this link does not work" page, 404. */
export function sendNotFound(ctx: Koa.Context): void {
  const p = pageContext(ctx);
  const c = p.locale.copy;
  sendPage(
    ctx,
    <Layout locale={p.locale} nonce={p.nonce} title={c.notFound.title} sandbox={p.sandbox}>
      <section class="card center">
        <h1>{c.notFound.title}</h1>
        <p>{c.notFound.body}</p>
      </section>
    </Layout>,
    404,
  );
}

/** 429 with `Retry-After` (the rate limiter's budget is the API's public-token budget). */
export function sendTooMany(ctx: Koa.Context, retryAfterSeconds: number): void {
  const p = pageContext(ctx);
  const c = p.locale.copy;
  ctx.set('Retry-After', String(retryAfterSeconds));
  sendPage(
    ctx,
    <Layout locale={p.locale} nonce={p.nonce} title={c.tooMany.title} sandbox={p.sandbox}>
      <section class="card center">
        <h1>{c.tooMany.title}</h1>
        <p>{c.tooMany.body(retryAfterSeconds)}</p>
      </section>
    </Layout>,
    429,
  );
}

/** A page for an unexpected failure (500 or a dependency out, 503), with the request id to quote. */
export function sendFailure(ctx: Koa.Context, status: number, requestId: string): void {
  const p = pageContext(ctx);
  const c = p.locale.copy;
  sendPage(
    ctx,
    <Layout locale={p.locale} nonce={p.nonce} title={c.failed.title} sandbox={p.sandbox}>
      <section class="card center">
        <h1>{c.failed.title}</h1>
        <p>{c.failed.body}</p>
        <p class="muted">
          <code>{requestId}</code>
        </p>
      </section>
    </Layout>,
    status,
  );
}
