/**
 * `Service-Version` (spec 9): which dated version a request is served under. The header as sent
 * decides (an empty value is invalid, not absent: `400 version_invalid`); without it, the caller's
 * default (the key's `default_version`, else the account's) once authenticated, else the latest.
 * The version served is echoed on every response by the outermost middleware (api/app.ts).
 */
import type Koa from 'koa';
import { resolveVersion } from '../../domain/versioning';
import type { AppState } from '../context';

/** The `Service-Version` header as sent, or undefined when absent (duplicates arrive comma-joined: invalid). */
export function requestedVersion(ctx: Koa.Context | Koa.ParameterizedContext<AppState>): string | undefined {
  const v = ctx.headers['service-version'];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** Before authentication: validates and applies the header (400 `version_invalid` on every route, public ones included). */
export function pinRequestedVersion(): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    ctx.state.version = resolveVersion(requestedVersion(ctx), null);
    await next();
  };
}

/** After authentication: without the header, serves the caller's default version. */
export function applyCallerDefaultVersion(): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    const c = ctx.state.caller;
    if (c && requestedVersion(ctx) === undefined) ctx.state.version = resolveVersion(undefined, c.defaultVersion);
    await next();
  };
}
