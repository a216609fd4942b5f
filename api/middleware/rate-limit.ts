/**
 * Per-credential-class rate limiting (spec 8): rate-limiter-flexible's RateLimiterPostgres, so every
 * API instance shares one budget per credential. Over budget: `429 rate_limit_error` + `Retry-After`.
 * Rates (requests per second) come from configuration; the spec leaves them open.
 */
import crypto from 'node:crypto';
import type Koa from 'koa';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { DomainError } from '../../domain/errors';
import { loadConfig } from '../../lib/config';
import { db } from '../../lib/db';
import type { AppState } from '../context';

type CredentialClass = 'business_key' | 'dashboard_session' | 'public_token' | 'anonymous';
const limiters = new Map<CredentialClass, { limiter: RateLimiterPostgres; shards: number }>();

/**
 * A high per-second budget is split evenly over up to 8 rows per subject (one row per 100
 * requests/s), each request charging one row at random: every instance still shares the budget
 * through PostgreSQL, but one busy key no longer queues all its requests on one locked row.
 */
export function shardsFor(points: number): number {
  return Math.max(1, Math.min(8, Math.floor(points / 100)));
}

function limiter(cls: CredentialClass): { limiter: RateLimiterPostgres; shards: number } {
  let l = limiters.get(cls);
  if (!l) {
    const pool = (db().driver as unknown as { master: unknown }).master;
    const points = loadConfig().rateLimits[cls];
    const shards = shardsFor(points);
    l = {
      shards,
      limiter: new RateLimiterPostgres({
        storeClient: pool, tableName: 'rate_limits', tableCreated: true, keyPrefix: cls,
        points: Math.ceil(points / shards), duration: 1, clearExpiredByTimeout: false,
      }),
    };
    limiters.set(cls, l);
  }
  return l;
}

/** Consumes one point for (class, subject); throws 429 with Retry-After when over budget. */
export async function consume(cls: CredentialClass, subject: string): Promise<void> {
  const { limiter: rl, shards } = limiter(cls);
  try {
    await rl.consume(shards > 1 ? `${subject}#${crypto.randomInt(shards)}` : subject, 1);
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
