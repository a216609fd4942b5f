/**
 * Idempotency (spec 8, 7): `Idempotency-Key` of 16-128 `[A-Za-z0-9_-]`, scoped by (key, account,
 * mode + route); a replay within 24 h returns the stored status and body; the same key with a
 * different body is `409 idempotency_error`; a concurrent duplicate waits for the first and replays
 * it (never executes twice); a request that failed after it may have taken effect is remembered
 * and answers `409 idempotency_failed`; so does a claim whose request died with its process, once its
 * lease (`CLAIM_LEASE_SECONDS`) has passed (instead of `idempotency_key_in_use` for 24 h). Secrets named in `redact` are never stored. The body is stored
 * as `json` text, verbatim (not `jsonb`, which reorders keys): a replay is byte-identical to the first answer.
 */
import crypto from 'node:crypto';
import { DomainError } from '../domain/errors';
import { canonicalJson, isReplayable, isValidIdempotencyKey, IDEMPOTENCY_TTL_SECONDS } from '../domain/idempotency';
import { db } from './db';
import { accountWide } from './scoped';

export interface StoredResponse {
  status: number;
  body: unknown;
  replayed: true;
}

/** Validates the header value; throws `400 idempotency_key_invalid`. */
export function requireKey(raw: string | undefined): string {
  if (raw === undefined || raw === '') {
    throw new DomainError('invalid_request', 'idempotency_key_invalid', 'This request requires an `Idempotency-Key` header.', {
      param: 'Idempotency-Key',
    });
  }
  if (!isValidIdempotencyKey(raw)) {
    throw new DomainError(
      'invalid_request',
      'idempotency_key_invalid',
      '`Idempotency-Key` must be 16 to 128 characters of A-Z, a-z, 0-9, `_` or `-`.',
      { param: 'Idempotency-Key' },
    );
  }
  return raw;
}

/** Hash of what makes two requests "the same" under one key. */
export function requestHash(body: unknown): string {
  return crypto
    .createHash('sha256')
    .update(canonicalJson(body ?? null))
    .digest('hex');
}

const WAIT_MS = 10000;
/**
 * An `in_progress` claim older than this belongs to a request that died with its process (SIGKILL,
 * a crash) or lost the database before it could release or complete the claim: a retry under the
 * same key marks it failed and answers `409 idempotency_failed`. Longer than any request runs.
 */
export const CLAIM_LEASE_SECONDS = 30;

/**
 * Claims (account, route, key) for this request. Returns null when the caller must execute the
 * handler, or the stored response to replay. Throws 409 for a different body, a failed earlier
 * attempt, or a duplicate still running after the wait.
 */
export async function claim(
  accountId: string,
  route: string,
  key: string,
  livemode: boolean,
  hash: string,
): Promise<StoredResponse | null> {
  for (;;) {
    const inserted: unknown[] = await db().query(
      `INSERT INTO idempotency_records(account_id, route, key, livemode, request_hash, state)
       VALUES ($1,$2,$3,$4,$5,'in_progress') ON CONFLICT DO NOTHING RETURNING key`,
      [accountId, route, key, livemode, hash],
    );
    if (inserted.length === 1) return null;
    const stored = await storedResponse(accountId, route, key, hash, { takeOver: true });
    if (stored === ABANDONED) {
      // Its request died after the claim: its effect may or may not have committed (a handler's
      // transaction is not the claim's), so running it again could make a second payout or send.
      // The claim becomes `failed`: this retry and every later one answer 409 idempotency_failed
      // (reconcile, then retry under a new key), as for any request that failed after it may have
      // taken effect; never a second execution.
      const own = accountWide(accountId).sql(null, 1);
      await db().query(
        `UPDATE idempotency_records SET state = 'failed' WHERE ${own.where} AND route = $2 AND key = $3
            AND state = 'in_progress' AND created_at < now() - make_interval(secs => $4)`,
        [...own.params, route, key, CLAIM_LEASE_SECONDS],
      );
      continue;
    }
    if (stored) return stored;
  }
}

/** `storedResponse` with `takeOver`: the claim is in progress past its lease (its request is gone). */
export const ABANDONED = Symbol('abandoned claim');

/**
 * The response stored under (account, route, key) for a request whose body hashes to `hash`:
 * the stored response to replay, or null when no record exists (never made, expired or purged).
 * Waits up to 10 s for a concurrent duplicate still in progress (with `takeOver`, answers `ABANDONED`
 * at once for one in progress past `CLAIM_LEASE_SECONDS`). Throws 409
 * `idempotency_key_reused` (different body), `idempotency_failed` (an earlier attempt may have
 * taken effect) or `idempotency_key_in_use` (the duplicate is still running after the wait).
 */
export async function storedResponse(accountId: string, route: string, key: string, hash: string): Promise<StoredResponse | null>;
export async function storedResponse(
  accountId: string,
  route: string,
  key: string,
  hash: string,
  opts: { takeOver: true },
): Promise<StoredResponse | typeof ABANDONED | null>;
export async function storedResponse(
  accountId: string,
  route: string,
  key: string,
  hash: string,
  opts: { takeOver?: boolean } = {},
): Promise<StoredResponse | typeof ABANDONED | null> {
  const deadline = Date.now() + WAIT_MS;
  const own = accountWide(accountId).sql(null, 1);
  for (;;) {
    const rows: Array<{ request_hash: string; state: string; response_status: number | null; response_body: unknown; age: number }> =
      await db().query(
        `SELECT request_hash, state, response_status, response_body, extract(epoch from now() - created_at)::float8 AS age
         FROM idempotency_records WHERE ${own.where} AND route = $2 AND key = $3`,
        [...own.params, route, key],
      );
    const r = rows[0];
    if (!r) return null;
    if (!isReplayable(r.age)) {
      await db().query(
        `DELETE FROM idempotency_records WHERE ${own.where} AND route = $2 AND key = $3 AND created_at < now() - make_interval(secs => $4)`,
        [...own.params, route, key, IDEMPOTENCY_TTL_SECONDS],
      );
      return null;
    }
    if (r.request_hash !== hash) {
      throw new DomainError('idempotency_error', 'idempotency_key_reused', 'This Idempotency-Key was used with a different request body.', {
        param: 'Idempotency-Key',
      });
    }
    if (r.state === 'completed') return { status: r.response_status ?? 200, body: r.response_body, replayed: true };
    if (r.state === 'failed') {
      throw new DomainError(
        'idempotency_error',
        'idempotency_failed',
        'An earlier request with this key failed after it may have taken effect. Reconcile, then retry under a new key.',
        { param: 'Idempotency-Key' },
      );
    }
    if (opts.takeOver && r.age > CLAIM_LEASE_SECONDS) return ABANDONED;
    if (Date.now() > deadline) {
      throw new DomainError(
        'conflict',
        'idempotency_key_in_use',
        'A request with this Idempotency-Key is still being processed. Retry shortly.',
        { param: 'Idempotency-Key' },
      );
    }
    await new Promise((res) => setTimeout(res, 50));
  }
}

/**
 * An idempotency claim the handler writes itself, completed, in the same statement as its effect
 * (operations with `inlineIdempotency`): one round trip instead of claim + effect + completion.
 * `status` is the success status to store; the stored body is the handler's result (no secrets).
 */
export interface InlineIdempotency {
  accountId: string;
  route: string;
  key: string;
  livemode: boolean;
  hash: string;
  status: number;
}

/** Thrown by an inline-idempotency effect when (account, route, key) already has a record: nothing was written. */
export class IdempotencyKeyTaken extends Error {
  constructor() {
    super('idempotency key already recorded');
  }
}

/**
 * Records a refusal (4xx before any effect) under an inline claim, so a retry replays it.
 * Returns false, writing nothing, when the key already has a record (the caller replays that).
 */
export async function recordRefusal(inlineIdempotency: InlineIdempotency, status: number, body: unknown): Promise<boolean> {
  const rows: unknown[] = await db().query(
    `INSERT INTO idempotency_records(account_id, route, key, livemode, request_hash, state, response_status, response_body, redactions, completed_at)
     VALUES ($1,$2,$3,$4,$5,'completed',$6,$7,'[]',now()) ON CONFLICT DO NOTHING RETURNING key`,
    [
      inlineIdempotency.accountId,
      inlineIdempotency.route,
      inlineIdempotency.key,
      inlineIdempotency.livemode,
      inlineIdempotency.hash,
      status,
      JSON.stringify(body),
    ],
  );
  return rows.length === 1;
}

/** Stores the final response (secrets in `redact` replaced by null) for replay. */
export async function complete(
  accountId: string,
  route: string,
  key: string,
  status: number,
  body: unknown,
  redact: string[],
): Promise<void> {
  const own = accountWide(accountId).sql(null, 1);
  await db().query(
    `UPDATE idempotency_records SET state = 'completed', response_status = $4, response_body = $5, redactions = $6, completed_at = now()
      WHERE ${own.where} AND route = $2 AND key = $3`,
    [...own.params, route, key, status, JSON.stringify(redactBody(body, redact)), JSON.stringify(redact)],
  );
}

/** Forgets the claim: the request had no effect (validation, a refused state change), so the key is free again. */
export async function release(accountId: string, route: string, key: string): Promise<void> {
  const own = accountWide(accountId).sql(null, 1);
  await db().query(`DELETE FROM idempotency_records WHERE ${own.where} AND route = $2 AND key = $3`, [...own.params, route, key]);
}

/** Marks the claim failed: the request may have taken effect (spec 7 `idempotency_failed`). */
export async function fail(accountId: string, route: string, key: string): Promise<void> {
  const own = accountWide(accountId).sql(null, 1);
  await db().query(`UPDATE idempotency_records SET state = 'failed', completed_at = now() WHERE ${own.where} AND route = $2 AND key = $3`, [
    ...own.params,
    route,
    key,
  ]);
}

function redactBody(body: unknown, redact: string[]): unknown {
  if (!redact.length || !body || typeof body !== 'object') return body;
  const copy: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const f of redact) if (f in copy) copy[f] = null;
  return copy;
}
