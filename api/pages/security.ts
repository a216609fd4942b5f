/**
 * Response headers of every page and asset, set with helmet: a strict
 * Content-Security-Policy whose scripts and styles need this response's nonce (no inline handler,
 * no third-party origin: every script, style and image is the product's own), `frame-ancestors
 * 'none'`, `Referrer-Policy: no-referrer` (the token in the URL never leaks), `nosniff`, and
 * `Cache-Control: no-store` on pages (a token page is never cached by a shared cache or the
 * back-forward cache). No cookies are set anywhere, so forms carry no CSRF token: a capability token
 * in the URL is the only authority (docs/decisions/0056-the-pages-a-person-opens.md).
 */
import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';
import type Koa from 'koa';

type WithNonce = ServerResponse & { locals?: { cspNonce?: string } };
const nonceOf = (_req: IncomingMessage, res: ServerResponse) => `'nonce-${(res as WithNonce).locals?.cspNonce ?? ''}'`;

const headers = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      scriptSrc: [nonceOf],
      styleSrc: [nonceOf],
      imgSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      formAction: ["'self'"],
      baseUri: ["'none'"],
      frameAncestors: ["'none'"],
    },
  },
  referrerPolicy: { policy: 'no-referrer' },
  crossOriginEmbedderPolicy: false,
  strictTransportSecurity: false, // set by the TLS terminator in front of the product, not on the dev origin
  xFrameOptions: { action: 'deny' },
});

/** A fresh nonce for one response (128 random bits, base64). */
export function newNonce(): string {
  return crypto.randomBytes(16).toString('base64');
}

/** Koa middleware: mints `ctx.state.cspNonce` and sets the page headers above (`no-store` included). */
export function pageHeaders(): Koa.Middleware {
  return async (ctx, next) => {
    const nonce = newNonce();
    ctx.state.cspNonce = nonce;
    (ctx.res as WithNonce).locals = { cspNonce: nonce };
    await new Promise<void>((resolve, reject) => headers(ctx.req, ctx.res, (err?: unknown) => (err ? reject(err) : resolve())));
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=()');
    await next();
  };
}
