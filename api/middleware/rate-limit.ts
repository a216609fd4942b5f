/**
 * Per-credential-class rate limiting (spec 8): rate-limiter-flexible's RateLimiterPostgres, so every
 * API instance shares one budget per credential. Over budget: `429 rate_limit_error` + `Retry-After`.
 * Rates (requests per second) come from configuration; the spec leaves them open.
 */
import type Koa from 'koa';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { DomainError } from '../../domain/errors';
import { loadConfig } from '../../lib/config';
import { db } from '../../lib/db';
import type { AppState } from '../context';

type CredentialClass = 'business_key' | 'dashboard_session' | 'public_token' | 'anonymous';
const limiters = new Map<CredentialClass, RateLimiterPostgres>();

function limiter(cls: CredentialClass): RateLimiterPostgres {
  let l = limiters.get(cls);
  if (!l) {
    const pool = (db().driver as unknown as { master: unknown }).master;
    l = new RateLimiterPostgres({
      storeClient: pool, tableName: 'rate_limits', tableCreated: true, keyPrefix: cls,
      points: loadConfig().rateLimits[cls], duration: 1, clearExpiredByTimeout: false,
    });
    limiters.set(cls, l);
  }
  return l;
}

/** Consumes one point for (class, subject); throws 429 with Retry-After when over budget. */
export async function consume(cls: CredentialClass, subject: string): Promise<void> {
  try {
    await limiter(cls).consume(subject, 1);
  } catch (e) {
    if (e instanceof RateLimiterRes) {
      const secs = Math.max(1, Math.ceil(e.msBeforeNext / 1000));
      throw new DomainError('rate_limit_error', 'rate_limited', 'Too many requests. Back off and retry after `Retry-After` seconds.', { details: { retry_after_seconds: secs } });
    }
    throw e;
  }
}

/** Koa middleware for authenticated routes: the subject is the key id or the session's user. */
export function rateLimitAuthenticated(): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    const c = ctx.state.caller;
    if (c) await consume(c.kind === 'business_key' ? 'business_key' : 'dashboard_session', c.keyId ?? c.userId ?? c.accountId);
    await next();
  };
}

/** Koa middleware for unauthenticated surfaces (public tokens, simulator): the subject is the client IP. */
export function rateLimitByIp(cls: 'public_token' | 'anonymous'): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    await consume(cls, ctx.ip);
    await next();
  };
}
