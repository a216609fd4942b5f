/**
 * Idempotency replay around a mutation's handler (spec 8; lib/idempotency.ts is the store): the
 * `Idempotency-Key` header (400 `idempotency_key_invalid` when missing or malformed), the key's
 * route (`live|test:<METHOD> <path>`) and the request hash; a claim before the handler, the stored
 * response replayed with `Idempotent-Replayed: true` (a stored refusal is thrown again as is), the
 * handler's answer or its 4xx refusal recorded under the key, the key released on a 503
 * `temporarily_unavailable`, on the database going away under the handler (answered 503 by the
 * error envelope) or a refused gate, and failed otherwise. `inlineIdempotency`
 * operations write their record with their effect (`runInline`).
 */
import type Koa from 'koa';
import { DomainError } from '../../domain/errors';
import { isDatabaseUnavailable } from '../../lib/dependency-errors';
import * as idem from '../../lib/idempotency';
import type { AppState } from '../context';
import type { HandlerArgs, OperationDef } from './registry';

/**
 * Runs mutation `def` under the request's Idempotency-Key: replays a stored response, else runs
 * `gate` (when given; its refusal releases the key, so the same key works once the gate passes)
 * and the handler, recording the outcome under the key. Sets `ctx.status` and `ctx.body`.
 */
export async function runIdempotent(
  def: OperationDef,
  given: HandlerArgs,
  ctx: Koa.ParameterizedContext<AppState>,
  rawBody: unknown,
  gate?: () => Promise<void>,
): Promise<void> {
  const { caller } = given;
  const key = idem.requireKey(ctx.get('Idempotency-Key') || undefined);
  ctx.state.idempotencyKey = key;
  // The handler's scope carries the key it runs under (events copy it: spec 2.11 `request`); mount() built the scope before the key was read.
  const args: HandlerArgs = { ...given, scope: { ...given.scope, request: { id: ctx.state.requestId, idempotency_key: key } } };
  const route = `${caller.livemode ? 'live' : 'test'}:${def.method.toUpperCase()} ${ctx.path}`;
  const hash = idem.requestHash(rawBody ?? {});
  if (def.inlineIdempotency) {
    await runInline(def, args, ctx, {
      accountId: caller.accountId,
      route,
      key,
      livemode: caller.livemode,
      hash,
      status: def.successStatus ?? 200,
    });
    return;
  }
  const stored = await idem.claim(caller.accountId, route, key, caller.livemode, hash);
  if (stored) {
    replay(ctx, stored);
    return;
  }
  if (gate) {
    try {
      await gate();
    } catch (e) {
      // Best effort: with the database out the release fails too, and the claim's lease frees the key.
      await idem.release(caller.accountId, route, key).catch(() => undefined);
      throw e;
    }
  }
  let result: unknown;
  try {
    result = await def.handler(args);
  } catch (e) {
    if (e instanceof DomainError && e.status < 500) {
      // The handler refused before any effect; the refusal is part of the key's record (replayed as is).
      await idem.complete(caller.accountId, route, key, e.status, refusalBody(e), []);
    } else if ((e instanceof DomainError && e.type === 'temporarily_unavailable') || isDatabaseUnavailable(e)) {
      // Nothing committed (the database went away under the handler, or a dependency refused): the
      // key is free again. With the database out the release fails too; the claim's lease frees it.
      await idem.release(caller.accountId, route, key).catch(() => undefined);
    } else {
      await idem.fail(caller.accountId, route, key).catch(() => undefined);
    }
    throw e;
  }
  const status = def.successStatus ?? 200;
  await completeAfterEffect(caller.accountId, route, key, status, result, ctx.state.redact);
  ctx.status = status;
  ctx.body = result;
}

/**
 * Stores the answer of a handler that took effect. Its answer must be stored, or a retry would run
 * it again: a database that went away is waited out for up to 10 s (a restart takes about a
 * second); past that the request answers 503 and the claim stays in progress until its lease ends.
 * Any other failure marks the claim failed (`idempotency_failed`), as before.
 */
async function completeAfterEffect(
  accountId: string,
  route: string,
  key: string,
  status: number,
  result: unknown,
  redact: string[],
): Promise<void> {
  for (let wait = 250, waited = 0; ; waited += wait, wait = Math.min(2000, wait * 2)) {
    try {
      await idem.complete(accountId, route, key, status, result, redact);
      return;
    } catch (e) {
      if (!isDatabaseUnavailable(e)) {
        await idem.fail(accountId, route, key).catch(() => undefined);
        throw e;
      }
      if (waited >= 10_000) throw e;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** Answers with a stored response (`Idempotent-Replayed: true`); a stored refusal is thrown again as is. */
function replay(ctx: Koa.ParameterizedContext<AppState>, stored: idem.StoredResponse): void {
  ctx.set('Idempotent-Replayed', 'true');
  const err = (
    stored.body as { __error?: { type: any; code: string; message: string; param?: string; details?: Record<string, unknown> } } | null
  )?.__error;
  if (err) throw new DomainError(err.type, err.code, err.message, { param: err.param, details: err.details, status: stored.status });
  ctx.status = stored.status;
  ctx.body = stored.body;
}

/** The stored form of a refusal (replayed by `replay`). */
function refusalBody(e: DomainError): { __error: Record<string, unknown> } {
  return { __error: { type: e.type, code: e.code, message: e.message, param: e.param, details: e.details } };
}

/**
 * Runs an `inlineIdempotency` handler: its effect and the completed record are one statement, so
 * a failure leaves no trace and a retry under the same key executes again. A key that already has
 * a record is replayed (or refused as `claim` would); a refusal (4xx) is recorded unless the key
 * was taken meanwhile, in which case the stored response wins.
 */
async function runInline(
  def: OperationDef,
  args: HandlerArgs,
  ctx: Koa.ParameterizedContext<AppState>,
  claim: idem.InlineIdempotency,
): Promise<void> {
  for (;;) {
    try {
      ctx.body = await def.handler({ ...args, idempotency: claim });
      ctx.status = claim.status;
      return;
    } catch (e) {
      const refusal = e instanceof DomainError && e.status < 500;
      if (!(e instanceof idem.IdempotencyKeyTaken) && !refusal) throw e;
      if (refusal && (await idem.recordRefusal(claim, e.status, refusalBody(e)))) throw e;
      const stored = await idem.storedResponse(claim.accountId, claim.route, claim.key, claim.hash);
      if (stored) {
        replay(ctx, stored);
        return;
      }
      // The record expired or was purged between the two statements: execute afresh.
    }
  }
}
