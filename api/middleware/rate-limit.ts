/**
 * Per-credential-class rate limiting (spec 8): rate-limiter-flexible's RateLimiterPostgres, so every
 * API instance shares one budget per credential. Over budget: `429 rate_limit_error` + `Retry-After`.
 * Rates (requests per second) come from configuration; the spec leaves them open.
 *
 * Leasing: for a budget of 200/s or more, an instance takes points from the shared store in leases
 * of up to 50, a twentieth of the budget (one store write per lease instead of per request) and spends them locally until the
 * window ends. Near the limit (a lease refused) it falls back to one point per request, so the
 * shared budget is never exceeded; at most (lease - 1) points per instance and window go unused.
 */
import type Koa from 'koa';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { DomainError } from '../../domain/errors';
import { loadConfig } from '../../lib/config';
import { db } from '../../lib/db';
import type { AppState } from '../context';

type CredentialClass = 'business_key' | 'dashboard_session' | 'public_token' | 'anonymous';

interface ClassLimiter { store: RateLimiterPostgres; lease: number }
interface Lease { remaining: number; expiresAt: number; exact: boolean }

const limiters = new Map<CredentialClass, ClassLimiter>();
const leases = new Map<string, Lease>();

/** Lease size for a per-second budget: 1 (exact, one write per request) below 200/s, else a twentieth of it, at most 50. */
export function leaseFor(points: number): number {
  return points < 200 ? 1 : Math.min(50, Math.floor(points / 20));
}

function classLimiter(cls: CredentialClass): ClassLimiter {
  let l = limiters.get(cls);
  if (!l) {
    const pool = (db().driver as unknown as { master: unknown }).master;
    const points = loadConfig().rateLimits[cls];
    l = {
      lease: leaseFor(points),
      store: new RateLimiterPostgres({ storeClient: pool, tableName: 'rate_limits', tableCreated: true, keyPrefix: cls, points, duration: 1, clearExpiredByTimeout: false }),
    };
    limiters.set(cls, l);
  }
  return l;
}

function tooMany(msBeforeNext: number): DomainError {
  const secs = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new DomainError('rate_limit_error', 'rate_limited', 'Too many requests. Back off and retry after `Retry-After` seconds.', { details: { retry_after_seconds: secs } });
}

/** Consumes one point for (class, subject); throws 429 with Retry-After when over budget. */
export async function consume(cls: CredentialClass, subject: string): Promise<void> {
  const { store, lease } = classLimiter(cls);
  const id = `${cls}:${subject}`;
  const now = Date.now();
  const held = leases.get(id);
  if (held && held.expiresAt > now && held.remaining > 0) {
    held.remaining -= 1;
    return;
  }
  const exact = lease === 1 || (held !== undefined && held.expiresAt > now && held.exact);
  const take = exact ? 1 : lease;
  try {
    const res = await store.consume(subject, take);
    leases.set(id, { remaining: take - 1, expiresAt: now + res.msBeforeNext, exact });
    if (leases.size > 100_000) leases.clear();
  } catch (e) {
    if (!(e instanceof RateLimiterRes)) throw e;
    if (take > 1) {
      // The lease overshot the remaining budget: give it back and go exact for this window.
      await store.reward(subject, take).catch(() => undefined);
      leases.set(id, { remaining: 0, expiresAt: now + e.msBeforeNext, exact: true });
      return consume(cls, subject);
    }
    throw tooMany(e.msBeforeNext);
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
