/**
 * Test helpers for HTTP tests against the running product (started by tests/setup/global-setup.ts):
 * a small fetch client that sends credentials and idempotency keys, and account provisioning
 * through the same code path as `npm run seed`.
 */
import crypto from 'node:crypto';
import { db, initDb, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { dispatcherReport } from './webhook-report';
import { createSession, provisionAccount, DevCredentials } from '../../activities/accounts/commands';

export const API = () => process.env.TEST_API_URL!;

export interface Res<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface CallOpts {
  key?: string | null;
  bearer?: string | null;
  idem?: string | null;
  headers?: Record<string, string>;
  raw?: string;
}

/** A fresh idempotency key. */
export const idem = () => `idem_${crypto.randomBytes(12).toString('hex')}`;

/** Sends one request; mutations get a fresh Idempotency-Key unless `idem: null` or a given key. */
export async function call<T = any>(method: string, path: string, body?: unknown, callOpts: CallOpts = {}): Promise<Res<T>> {
  const headers: Record<string, string> = { ...(callOpts.headers ?? {}) };
  if (callOpts.key) headers['x-api-key'] = callOpts.key;
  if (callOpts.bearer) headers.authorization = `Bearer ${callOpts.bearer}`;
  if (method !== 'GET' && callOpts.idem !== null && !('Idempotency-Key' in headers)) headers['Idempotency-Key'] = callOpts.idem ?? idem();
  let payload: string | undefined;
  if (callOpts.raw !== undefined) payload = callOpts.raw;
  else if (body !== undefined) payload = JSON.stringify(body);
  if (payload !== undefined) headers['content-type'] = headers['content-type'] ?? 'application/json';
  const r = await fetch(`${API()}${path}`, { method, headers, body: payload });
  const text = await r.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: r.status, body: parsed as T, headers: r.headers };
}

/** Client bound to one credential (`x-api-key` for keys, Bearer for sessions). */
export function client(cred: string) {
  const o = cred.startsWith('sk_') ? { key: cred } : { bearer: cred };
  return {
    get: <T = any>(p: string, extra: CallOpts = {}) => call<T>('GET', p, undefined, { ...o, ...extra }),
    post: <T = any>(p: string, b?: unknown, extra: CallOpts = {}) => call<T>('POST', p, b ?? {}, { ...o, ...extra }),
    patch: <T = any>(p: string, b?: unknown, extra: CallOpts = {}) => call<T>('PATCH', p, b ?? {}, { ...o, ...extra }),
    del: <T = any>(p: string, extra: CallOpts = {}) => call<T>('DELETE', p, undefined, { ...o, ...extra }),
  };
}

/** Connects this test process to the test database (for provisioning and assertions on rows). */
export async function connectDb() {
  return initDb(process.env.DATABASE_URL!, 4);
}

/** A new merchant account with live/test keys, an owner session and a service wallet. */
export async function newAccount(): Promise<DevCredentials> {
  await connectDb();
  return provisionAccount();
}

/** Polls `fn` until it returns a truthy value or `timeoutMs` passes (then throws with `what`). */
export async function eventually<T>(fn: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 15000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as T;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Expects the spec's error envelope with `status`, `type`, `code` (and `param` when given). */
export function expectError(res: Res, status: number, type: string, code?: string, param?: string): void {
  const e = (res.body as { error?: Record<string, unknown> })?.error;
  const got = `${res.status} ${JSON.stringify(res.body)}`;
  if (res.status !== status || !e || e.type !== type || (code && e.code !== code) || (param !== undefined && e.param !== param)) {
    throw new Error(`expected ${status} ${type}${code ? `/${code}` : ''}${param ? ` param=${param}` : ''}, got ${got}`);
  }
  for (const f of ['message', 'doc_url', 'request_id']) if (typeof e[f] !== 'string') throw new Error(`error envelope lacks ${f}: ${got}`);
  // STRICT_ERROR_CODES (test stacks): a code outside the registry (domain/error-codes.ts) is flagged by the server.
  const unregistered = res.headers?.get?.('error-code-unregistered');
  if (unregistered)
    throw new Error(`the server answered code ${unregistered}, which is not in the error registry (domain/error-codes.ts): ${got}`);
}

/** A dashboard session of a new user who is a member of `accountId` with `role` (spec 5 rule 4 roles). */
export async function memberSession(accountId: string, role: 'admin' | 'developer' | 'viewer'): Promise<string> {
  return transaction(async (m) => {
    const userId = newId('usr_');
    await m.query('INSERT INTO users(id, email) VALUES ($1,$2)', [userId, `${role}+${userId}@merchant.example`]);
    await m.query('INSERT INTO memberships(account_id, user_id, role) VALUES ($1,$2,$3)', [accountId, userId, role]);
    return createSession(m, userId);
  });
}

/** Returns `res.body` when `res.status` is `status` (default 200); else throws with the response. */
export function expectOk<T = any>(res: Res<T>, status = 200): T {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * A deterministic "nothing more arrives" for webhooks (instead of a fixed sleep): waits until the
 * dispatcher's durable cursor (`outbox_cursors` `webhooks`) has passed every event of `accountId`,
 * so every delivery row those events get exists, then until none of them is still pending or
 * retrying. After it, a receiver has seen every delivery it will ever get for those events.
 */
export async function webhooksSettled(accountId: string, timeoutMs = 30000): Promise<void> {
  await eventuallyReported(
    async () =>
      (
        await db().query(
          `SELECT coalesce((SELECT seq FROM outbox_cursors WHERE name = 'webhooks'), 0) >= coalesce(max(seq), 0) AS passed FROM events WHERE account_id = $1`,
          [accountId],
        )
      )[0].passed === true,
    `the dispatcher past every event of ${accountId}`,
    timeoutMs,
  );
  await eventually(
    async () =>
      Number(
        (
          await db().query(`SELECT count(*) FROM webhook_deliveries WHERE account_id = $1 AND status IN ('pending', 'retrying')`, [
            accountId,
          ])
        )[0].count,
      ) === 0,
    `every delivery of ${accountId} finished`,
    timeoutMs,
  );
}

/**
 * `eventually`, with the dispatcher's state (tests/helpers/webhook-report.ts: its cursor, gap wait and
 * the oldest open transactions) appended to a timeout, so a slow run says what held the cursor.
 */
export async function eventuallyReported<T>(fn: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 30000): Promise<T> {
  try {
    return await eventually(fn, what, timeoutMs);
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${await dispatcherReport()}`);
  }
}

/** Waits until webhook delivery `id` reaches `status` (spec 6); returns the delivery with its attempts. */
export async function deliveryReaches(api: ReturnType<typeof client>, id: string, status: string, timeoutMs = 30000): Promise<any> {
  return eventually(
    async () => {
      const r = await api.get(`/v1/webhook_deliveries/${id}`);
      return r.status === 200 && r.body.status === status ? r.body : null;
    },
    `delivery ${id} to be ${status}`,
    timeoutMs,
  );
}
