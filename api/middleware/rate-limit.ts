/**
 * Per-credential-class rate limiting (spec 8): rate-limiter-flexible's RateLimiterPostgres, so every
 * API instance shares one budget per credential. Over budget: `429 rate_limit_error` + `Retry-After`.
 * Rates (requests per second) come from configuration; the spec leaves them open.
 *
 * Leasing: for a budget of 200/s or more, an instance takes points from the shared store in leases
 * of up to 50, a twentieth of the budget (one store write per lease instead of per request) and spends them locally until the
 * window ends. Near the limit (a lease refused) it falls back to one point per request, so the
 * shared budget is never exceeded; at most (lease - 1) points per instance and window go unused.
 *
 * Failed authentication (`countAuthFailure`): a separate budget per source address,
 * spent only by presented credentials that are refused (401), `AUTH_FAILURE_LIMIT` per
 * `AUTH_FAILURE_WINDOW_SECONDS` (default 50 per 10 s). Over it, a refused credential answers
 * `429 rate_limit_error` + `Retry-After` (the rest of the window) instead of 401; a credential that
 * authenticates is never counted nor refused by it. Once over, the address is blocked in this
 * process's memory for the rest of the window, so a flood costs no store writes.
 */
import type Koa from 'koa';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { DomainError } from '../../domain/errors';
import { loadConfig } from '../../lib/config';
import { db } from '../../lib/db';
import type { AppState } from '../context';

type CredentialClass = 'business_key' | 'dashboard_session' | 'public_token' | 'anonymous';

interface ClassLimiter {
  store: RateLimiterPostgres;
  lease: number;
}
interface Lease {
  remaining: number;
  expiresAt: number;
  exact: boolean;
}

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
      store: new RateLimiterPostgres({
        storeClient: pool,
        tableName: 'rate_limits',
        tableCreated: true,
        keyPrefix: cls,
        points,
        duration: 1,
        clearExpiredByTimeout: false,
      }),
    };
    limiters.set(cls, l);
  }
  return l;
}

function tooMany(msBeforeNext: number): DomainError {
  const secs = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new DomainError('rate_limit_error', 'rate_limited', 'Too many requests. Back off and retry after `Retry-After` seconds.', {
    details: { retry_after_seconds: secs },
  });
}

/** Lease refreshes in flight per (class, subject): concurrent requests that find the lease spent wait for one refresh. */
const refreshing = new Map<string, Promise<void>>();

/**
 * Consumes one point for (class, subject); throws 429 with Retry-After when over budget. While a
 * lease is being taken from the store, other requests of the same subject wait for it instead of
 * each taking a lease of their own (which would spend the shared budget on leases left unused).
 */
export async function consume(cls: CredentialClass, subject: string): Promise<void> {
  const { store, lease } = classLimiter(cls);
  const id = `${cls}:${subject}`;
  let now = Date.now();
  let held = leases.get(id);
  while (!(held && held.expiresAt > now && held.remaining > 0) && refreshing.has(id)) {
    await refreshing.get(id);
    now = Date.now();
    held = leases.get(id);
  }
  if (held && held.expiresAt > now && held.remaining > 0) {
    held.remaining -= 1;
    return;
  }
  const exact = lease === 1 || (held !== undefined && held.expiresAt > now && held.exact);
  if (exact) {
    // One point per request: nothing to share, so no single flight.
    try {
      const res = await store.consume(subject, 1);
      leases.set(id, { remaining: 0, expiresAt: now + res.msBeforeNext, exact });
      return;
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      throw tooMany(e.msBeforeNext);
    }
  }
  let settle!: () => void;
  refreshing.set(
    id,
    new Promise<void>((resolve) => {
      settle = resolve;
    }),
  );
  let refused = false;
  try {
    const res = await store.consume(subject, lease);
    leases.set(id, { remaining: lease - 1, expiresAt: now + res.msBeforeNext, exact: false });
    if (leases.size > 100_000) leases.clear();
  } catch (e) {
    if (!(e instanceof RateLimiterRes)) throw e;
    // The lease overshot the remaining budget: give it back and go exact for this window.
    await store.reward(subject, lease).catch(() => undefined);
    leases.set(id, { remaining: 0, expiresAt: now + e.msBeforeNext, exact: true });
    refused = true;
  } finally {
    refreshing.delete(id);
    settle();
  }
  if (refused) await consume(cls, subject);
}

let authFailureStore: RateLimiterPostgres | null = null;

function authFailures(): RateLimiterPostgres {
  if (!authFailureStore) {
    const pool = (db().driver as unknown as { master: unknown }).master;
    const { limit, windowSeconds } = loadConfig().authFailures;
    authFailureStore = new RateLimiterPostgres({
      storeClient: pool,
      tableName: 'rate_limits',
      tableCreated: true,
      keyPrefix: 'auth_failure',
      points: limit,
      duration: windowSeconds,
      inMemoryBlockOnConsumed: limit + 1,
      clearExpiredByTimeout: false,
    });
  }
  return authFailureStore;
}

/**
 * Counts one refused credential from source address `ip`. Resolves while the address is within
 * its budget (the caller then answers 401); throws `429 rate_limit_error` (details
 * `retry_after_seconds`, the rest of the window) once it is over.
 */
export async function countAuthFailure(ip: string): Promise<void> {
  try {
    await authFailures().consume(ip, 1);
  } catch (e) {
    if (!(e instanceof RateLimiterRes)) throw e;
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
