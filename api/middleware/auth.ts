/**
 * Authentication (spec 5): exactly one credential per request (both headers: 400
 * `ambiguous_credentials`); business keys (`x-api-key` or `Authorization: Bearer sk_...`), hashed
 * with SHA-256 and checked for status, expiry, prefix vs minted livemode and IP allowlist;
 * dashboard sessions (`Authorization: Bearer dsess_...`) with membership selection by
 * `Service-Account` (non-member: 404). Public-token routes never reach this middleware.
 * Authorization (scopes, roles, test mode) is per operation, in api/operation/authorize.ts.
 */
import type Koa from 'koa';
import { DomainError } from '../../domain/errors';
import { db } from '../../lib/db';
import { notifyHealthy, onListenerLost, onNotify } from '../../lib/notify';
import { sha256Hex } from '../../lib/secrets';
import { SESSION_PREFIX } from '../../domain/caller';
import type { AppState, Caller } from '../context';
import { countAuthFailure } from './rate-limit';

const KEY_PREFIX = /^sk_(live|test)_[A-Za-z0-9]+$/;

function unauthenticated(code: string, message: string): DomainError {
  return new DomainError('authentication_error', code, message);
}

/**
 * The one credential a request presents (spec 5: "a request authenticates as exactly one"):
 * a business key in `x-api-key`, or a business key or dashboard session token as
 * `Authorization: Bearer <token>` (agents and hosted tool clients send keys as Bearer). Returns
 * null when neither header carries anything. Throws:
 * - `400 invalid_request` `ambiguous_credentials` when both headers carry a value (whichever
 *   would be valid: the request is malformed, re-authorizing cannot fix it);
 * - `401 invalid_api_key` for a session token in `x-api-key` (that header carries keys only);
 * - `401 invalid_authorization_header` for an `Authorization` that is not `Bearer <token>`.
 */
export function presentedCredential(headers: Record<string, string | string[] | undefined>): string | null {
  const x = headers['x-api-key'];
  const key = typeof x === 'string' ? x.trim() : '';
  const a = headers.authorization;
  const auth = typeof a === 'string' ? a.trim() : '';
  if (key && auth) {
    throw new DomainError(
      'invalid_request',
      'ambiguous_credentials',
      'Send exactly one credential: `x-api-key` or `Authorization: Bearer`, not both.',
      { param: 'x-api-key' },
    );
  }
  if (key) {
    if (key.startsWith(SESSION_PREFIX))
      throw unauthenticated('invalid_api_key', '`x-api-key` carries business keys only; send a session token as `Authorization: Bearer`.');
    return key;
  }
  if (!auth) return null;
  const m = /^Bearer\s+(\S+)$/i.exec(auth);
  if (!m) throw unauthenticated('invalid_authorization_header', 'Authorization must be `Bearer <token>`.');
  return m[1];
}

interface KeyRow {
  id: string;
  account_id: string;
  livemode: boolean;
  status: string;
  expires_at: Date | null;
  scopes: string[];
  ip_allowlist: string[];
  default_version: string | null;
  account_version: string;
}

/**
 * Authentication cache (docs/decisions/0079-pipeline-work-done-once.md): key rows
 * by secret hash, and dashboard sessions with their memberships by token hash, trusted only while
 * the LISTEN connection is up. Any change to keys, sessions, memberships or account versions (DB
 * triggers, channel `auth_changed`) clears both, so a revocation takes effect on this instance at
 * once (`clearAuthCache` in the revoking request) and on every other instance as soon as the
 * notification arrives (it is sent at the revoking commit). Guards:
 * - a lookup that started before a clear never fills the cache (the generation counter), so a
 *   read racing a revocation cannot put the old row back;
 * - losing the LISTEN connection clears the cache (notifications sent meanwhile are gone) and,
 *   until it is back, every request reads the database;
 * - entries live at most CACHE_TTL_MS whatever happens (a backstop, not the mechanism).
 * Misses are never cached: a new key or session works on its first request.
 */
const CACHE_TTL_MS = 30_000;
const MAX_ENTRIES = 50_000;
const keyCache = new Map<string, { row: KeyRow; at: number }>();
const sessionCache = new Map<string, { row: SessionRow; at: number }>();
let generation = 0;
let cacheWired = false;

interface SessionRow {
  user_id: string;
  expires_at: Date;
  revoked_at: Date | null;
  members: Array<{ account_id: string; role: Caller['role']; default_version: string }>;
}

/** Subscribes the cache to `auth_changed` and to the listener's loss (call once the notify listener runs). */
export async function wireAuthCache(): Promise<void> {
  if (cacheWired) return;
  cacheWired = true;
  onListenerLost(clearAuthCache);
  await onNotify('auth_changed', clearAuthCache);
}

/** Drops this instance's cached keys and sessions at once (revoke and roll; other instances follow on NOTIFY). */
export function clearAuthCache(): void {
  generation += 1;
  keyCache.clear();
  sessionCache.clear();
}

/** Keys and sessions cached on this instance now (tests, diagnostics). */
export function cachedCredentials(): number {
  return keyCache.size + sessionCache.size;
}

const trusted = () => cacheWired && notifyHealthy();

function cached<T>(cache: Map<string, { row: T; at: number }>, hash: string): T | undefined {
  const hit = cache.get(hash);
  return hit && trusted() && Date.now() - hit.at < CACHE_TTL_MS ? hit.row : undefined;
}

function remember<T>(cache: Map<string, { row: T; at: number }>, hash: string, row: T, since: number): void {
  if (since !== generation || !trusted()) return;
  if (cache.size >= MAX_ENTRIES) cache.clear();
  cache.set(hash, { row, at: Date.now() });
}

async function keyRow(hash: string): Promise<KeyRow | undefined> {
  const hit = cached(keyCache, hash);
  if (hit) return hit;
  const since = generation;
  const rows: KeyRow[] = await db().query(
    `SELECT k.id, k.account_id, k.livemode, k.status, k.expires_at, k.scopes, k.ip_allowlist, k.default_version,
            a.default_version AS account_version
       FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.secret_hash = $1`,
    [hash],
  );
  if (rows[0]) remember(keyCache, hash, rows[0], since);
  return rows[0];
}

async function sessionRow(hash: string): Promise<SessionRow | undefined> {
  const hit = cached(sessionCache, hash);
  if (hit) return hit;
  const since = generation;
  const rows: Array<Omit<SessionRow, 'members'>> = await db().query(
    'SELECT user_id, expires_at, revoked_at FROM dashboard_sessions WHERE token_hash = $1',
    [hash],
  );
  if (!rows[0]) return undefined;
  const members: SessionRow['members'] = await db().query(
    `SELECT m.account_id, m.role, a.default_version FROM memberships m JOIN accounts a ON a.id = m.account_id
      WHERE m.user_id = $1 ORDER BY (m.role = 'owner') DESC, m.created_at ASC`,
    [rows[0].user_id],
  );
  const row = { ...rows[0], members };
  remember(sessionCache, hash, row, since);
  return row;
}

/** Resolves a business key to a caller; throws 401/403 per spec 5 rules 1-2. */
export async function authenticateKey(secret: string, ip: string): Promise<Caller> {
  const m = KEY_PREFIX.exec(secret);
  if (!m) throw unauthenticated('invalid_api_key', 'The API key is malformed.');
  const k = await keyRow(sha256Hex(secret));
  if (!k) throw unauthenticated('invalid_api_key', 'The API key is not valid.');
  const prefixLive = m[1] === 'live';
  if (prefixLive !== k.livemode) throw unauthenticated('invalid_api_key', 'The key prefix does not match the mode the key was issued for.');
  if (k.status === 'revoked') throw unauthenticated('api_key_revoked', 'The API key has been revoked.');
  if (k.expires_at && k.expires_at.getTime() <= Date.now()) throw unauthenticated('api_key_expired', 'The API key has expired.');
  if (k.ip_allowlist.length > 0 && !k.ip_allowlist.includes(normaliseIp(ip))) {
    throw new DomainError('permission_error', 'ip_not_allowed', "The request source is not in this key's IP allowlist.");
  }
  return {
    kind: 'business_key',
    accountId: k.account_id,
    livemode: k.livemode,
    keyId: k.id,
    userId: null,
    role: null,
    scopes: k.scopes,
    defaultVersion: k.default_version ?? k.account_version,
  };
}

/** Resolves a dashboard session token and the selected membership; throws 401, or 404 for a non-member account. */
export async function authenticateSession(token: string, serviceAccount: string | undefined): Promise<Caller> {
  const s = await sessionRow(sha256Hex(token));
  if (!s) throw unauthenticated('invalid_session', 'The session token is not valid.');
  if (s.revoked_at) throw unauthenticated('session_revoked', 'The session has been revoked.');
  if (s.expires_at.getTime() <= Date.now()) throw unauthenticated('session_expired', 'The session has expired.');
  const members = s.members;
  const chosen = serviceAccount ? members.find((x) => x.account_id === serviceAccount) : members[0];
  if (!chosen)
    throw new DomainError('not_found', 'not_found', serviceAccount ? `No such account: ${serviceAccount}.` : 'This login has no account.', {
      param: 'Service-Account',
    });
  return {
    kind: 'dashboard_session',
    accountId: chosen.account_id,
    livemode: true,
    keyId: null,
    userId: s.user_id,
    role: chosen.role,
    scopes: [],
    defaultVersion: chosen.default_version,
  };
}

function normaliseIp(ip: string): string {
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}

/**
 * Koa middleware: authenticates the request as exactly one credential (`presentedCredential`) or
 * throws 400/401. A presented credential that is refused (401) is counted against the source
 * address (`countAuthFailure`): over budget the answer is `429 rate_limit_error` instead.
 * A missing credential is not counted (it costs no lookup and reveals nothing).
 */
export function authenticate(): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    const cred = presentedCredential(ctx.headers);
    if (!cred) throw unauthenticated('missing_credentials', 'Authenticate with `x-api-key` or `Authorization: Bearer`.');
    try {
      ctx.state.caller = await resolveCredential(cred, ctx);
    } catch (e) {
      if (e instanceof DomainError && e.type === 'authentication_error') await countAuthFailure(ctx.ip);
      throw e;
    }
    await next();
  };
}

async function resolveCredential(cred: string, ctx: Koa.ParameterizedContext<AppState>): Promise<Caller> {
  if (cred.startsWith('sk_')) return authenticateKey(cred, ctx.ip);
  if (cred.startsWith(SESSION_PREFIX)) return authenticateSession(cred, ctx.get('Service-Account') || undefined);
  throw unauthenticated('invalid_api_key', 'The credential is neither an API key nor a session token.');
}
