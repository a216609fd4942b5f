/**
 * Operation definitions: every `/v1` route is declared once with its operation id, caller classes,
 * scope, roles, test-mode reach, switch/flag gates and joi schemas. `mount()` turns a definition into
 * a Koa route that enforces, in order: caller class and role (spec 5 rule 4), scope (rule 3),
 * test mode (spec 1 rule 5), resource switch / product flag (spec 1 "dark-flag"), query and body
 * validation (unknown body key 400), idempotency (spec 8), then calls the thin handler.
 * The registry also feeds the authorization matrix and the OpenAPI document.
 */
import type Router from '@koa/router';
import Joi from 'joi';
import type Koa from 'koa';
import { DomainError } from '../domain/errors';
import type { MemberRole } from '../entities';
import type { AppState, Caller, CallerKind } from './context';
import * as idem from '../lib/idempotency';
import { fromJoi } from './middleware/errors';
import { isFlagOpen, isSwitchOn } from '../lib/switches';
import { checkTerms } from '../activities/legal/terms';
import type { TermsGate } from '../domain/terms';

export interface HandlerArgs<B = any, Q = any> {
  caller: Caller;
  body: B;
  query: Q;
  params: Record<string, string>;
  ctx: Koa.ParameterizedContext<AppState>;
  /** Set for `inlineIdempotency` operations: the claim the handler must write with its effect. */
  idempotency?: idem.InlineIdempotency;
}

export interface OperationDef<B = any, Q = any> {
  id: string;
  method: 'get' | 'post' | 'patch' | 'delete';
  path: string;
  /** Required scope for business keys, e.g. `payment_links.write`. */
  scope: string;
  /**
   * Caller classes allowed; default both business key and dashboard session. `['public_token']`
   * marks a payer route (spec 4.1, 5 rule 5): dispatched before authentication, no scope, no
   * Idempotency-Key; declared with `mountPublic`.
   */
  callers?: CallerKind[];
  /** Session roles allowed (others: 403 scope_denied). Default: reads any role, writes owner/admin/developer. */
  roles?: MemberRole[];
  /**
   * Reach of test-mode keys: `full` (spec 1 rule 5 list), `unavailable` (503), or
   * `livemode_boundary`: a test-mode caller is refused with `400 invalid_request` code
   * `livemode_boundary` before any other check (spec 4.10 `PATCH /account`).
   */
  testMode: 'full' | 'unavailable' | 'livemode_boundary';
  /** Resource switch: off answers 503 temporarily_unavailable. */
  switch?: string;
  /** Product/launch flag or cohort: closed answers 409 capability_unavailable. */
  flag?: string;
  /**
   * Terms acceptance gate (spec 1 rule 6; active only with the `legal.terms_acceptance` switch):
   * `account` (the owner accepted the current revision) or `personal` (the acting user did). Runs
   * after an Idempotency-Key replay (completed responses stay replayable) and releases the key when
   * it refuses, so the same key works once the terms are accepted. Reads are never gated.
   */
  terms?: TermsGate;
  body?: Joi.ObjectSchema;
  query?: Joi.ObjectSchema;
  /**
   * The document's schema of a path parameter whose shape the handler checks (default: any
   * string of 1 to 255 characters); documentation only, the handler keeps its own check.
   */
  pathParams?: Record<string, Record<string, unknown>>;
  /** Mutations require Idempotency-Key (default: true for non-GET). */
  idempotent?: boolean;
  /**
   * The handler writes the idempotency record itself, completed, in the same statement as its
   * effect (`HandlerArgs.idempotency`), and throws `IdempotencyKeyTaken` when the key already has a
   * record; `mount` then replays it. Saves the claim and completion round trips on hot creates.
   */
  inlineIdempotency?: boolean;
  successStatus?: number;
  /** Other success statuses the handler may set itself (e.g. 200 when a create returns the existing object). */
  otherSuccessStatuses?: number[];
  /**
   * Error statuses this operation produces beyond the generic ones the OpenAPI generator derives
   * (400, 401, 403, 404, 429, 500, 503; 409 on mutations and flagged operations), e.g. 422 or a
   * 409 on a read. Feeds the document's responses; the fuzzer holds the code to it.
   */
  errors?: number[];
  /**
   * joi schema of the success body (the view's wire shape). Feeds the OpenAPI document
   * (`GET /v1/openapi.json`) and the contract fuzzing; it must be exact: required fields
   * `.required()`, nullable ones `.allow(null)`. Lists use `listEnvelope(item)` from api/schemas/responses.ts.
   */
  response?: Joi.Schema;
  /** Media type of the success body; default `application/json` (the event stream: `text/event-stream`). */
  responseContentType?: string;
  summary?: string;
  handler: (a: HandlerArgs<B, Q>) => Promise<unknown>;
}

export const REGISTRY: OperationDef[] = [];

/** Adds `def` to the registry, replacing an earlier definition with the same id (an app built twice). */
function record(def: OperationDef): void {
  const i = REGISTRY.findIndex((d) => d.id === def.id);
  if (i >= 0) REGISTRY[i] = def;
  else REGISTRY.push(def);
}

/** True for a payer (public token) operation. */
export function isPublicOperation(def: OperationDef): boolean {
  return (def.callers ?? []).includes('public_token');
}

/** Arguments of a public-token handler: no caller (the token in the path is the capability). */
export type PublicHandlerArgs<B = any, Q = any> = Omit<HandlerArgs<B, Q>, 'caller'>;

/** A payer route definition (spec 4.1 payer session routes): no scope, roles, gates or Idempotency-Key. */
export interface PublicOperationDef<B = any, Q = any> extends Omit<OperationDef<B, Q>, 'scope' | 'testMode' | 'callers' | 'roles' | 'switch' | 'flag' | 'idempotent' | 'handler'> {
  /** Returns the body; may set `ctx.status` to one of `otherSuccessStatuses`. */
  handler: (a: PublicHandlerArgs<B, Q>) => Promise<unknown>;
}

/**
 * Registers a public-token route (paths relative to /v1) on `router` and in the registry with
 * caller class `public_token`, scope `''` and test mode `unavailable` (spec 1 rule 5: test mode
 * does not exist on token routes). Validates query and body like `mount`; no idempotency store
 * (the handlers are idempotent themselves, spec 1 rule 3).
 */
export function mountPublic(router: Router<AppState>, def: PublicOperationDef): void {
  record({
    ...def, scope: '', testMode: 'unavailable', callers: ['public_token'], idempotent: false,
    handler: () => Promise.reject(new Error(`${def.id} is a public-token route; it is served by mountPublic`)),
  });
  router[def.method](def.path, async (ctx) => {
    const query = validate(def.query, ctx.query, 'query');
    const rawBody = (ctx.request as unknown as { body?: unknown }).body;
    const body = validate(def.body, rawBody && typeof rawBody === 'object' ? rawBody : {}, 'body');
    ctx.status = def.successStatus ?? 200;
    ctx.body = await def.handler({ body, query, params: ctx.params as Record<string, string>, ctx });
  });
}

const WRITE_ROLES: MemberRole[] = ['owner', 'admin', 'developer'];
const ANY_ROLE: MemberRole[] = ['owner', 'admin', 'developer', 'viewer'];

/** Caller classes `def` admits (default: business key and dashboard session). */
export function allowedCallers(def: OperationDef): CallerKind[] {
  return def.callers ?? ['business_key', 'dashboard_session'];
}

/** Session roles `def` admits (default: any role for reads; owner, admin, developer for writes). */
export function allowedRoles(def: OperationDef): MemberRole[] {
  return def.roles ?? (def.method === 'get' ? ANY_ROLE : WRITE_ROLES);
}

/** Checks caller class, role, scope, test mode and gates; throws the spec's error. */
export async function authorize(def: OperationDef, caller: Caller): Promise<void> {
  if (!caller.livemode && def.testMode === 'livemode_boundary') {
    if (!(await isSwitchOn('test_mode'))) {
      throw new DomainError('temporarily_unavailable', 'test_mode_unavailable', 'Test mode is switched off. Retry later.', { details: { retry_after_seconds: 60 } });
    }
    throw new DomainError('invalid_request', 'livemode_boundary', `${def.id} cannot be called in test mode.`);
  }
  // Test mode before the caller class (spec 1 rule 5): every operation a test-mode caller cannot use
  // answers 503, whoever the operation is for (a test key on `POST /customers` is 503, not 403).
  if (!caller.livemode) {
    if (!(await isSwitchOn('test_mode'))) {
      throw new DomainError('temporarily_unavailable', 'test_mode_unavailable', 'Test mode is switched off. Retry later.', { details: { retry_after_seconds: 60 } });
    }
    if (def.testMode === 'unavailable') {
      throw new DomainError('temporarily_unavailable', 'test_mode_not_supported', `${def.id} is not available in test mode.`);
    }
  }
  if (!allowedCallers(def).includes(caller.kind)) {
    throw new DomainError('permission_error', 'role_denied', caller.kind === 'business_key'
      ? 'This operation requires a dashboard session; API keys cannot call it.'
      : 'This operation is only available to API keys.');
  }
  if (caller.kind === 'dashboard_session') {
    const roles = allowedRoles(def);
    if (!caller.role || !roles.includes(caller.role)) {
      throw new DomainError('permission_error', 'scope_denied', `Your role (${caller.role}) cannot perform this action; it needs ${roles.join(' or ')}.`);
    }
  } else if (caller.kind === 'business_key') {
    if (!hasScope(caller.scopes, def.scope)) {
      throw new DomainError('permission_error', 'missing_scope', `This API key lacks the \`${def.scope}\` scope.`, { details: { required_scope: def.scope } });
    }
  }
  if (def.switch && !(await isSwitchOn(def.switch))) {
    throw new DomainError('temporarily_unavailable', 'switch_off', `${def.id} is temporarily unavailable.`, { details: { retry_after_seconds: 60 } });
  }
  if (def.flag && !(await isFlagOpen(def.flag, caller.accountId))) {
    throw new DomainError('capability_unavailable', 'capability_unavailable', `${def.id} is not enabled for this account.`);
  }
}

/** `<resource>.<read|write>`; a write scope does not imply read. Old `screening.*` names alias `screenings.*` (spec 5, 9 rule 6). */
export function hasScope(scopes: string[], needed: string): boolean {
  if (scopes.includes(needed)) return true;
  const alias = needed.startsWith('screenings.') ? needed.replace('screenings.', 'screening.') : null;
  return alias !== null && scopes.includes(alias);
}

/**
 * Validates `value` against `schema`; unknown keys are 400 naming the key (`parameter_unknown`).
 * Query values arrive as strings and are converted (numbers, booleans, dates); a body is strict
 * about JSON types: a value joi would turn into another type (a string into a number, boolean,
 * object or array, a number into a date) is `400 parameter_invalid` naming it (`coercedPath`).
 * String normalisations (trim, case) and ISO date strings still apply to bodies.
 */
export function validate<T>(schema: Joi.ObjectSchema | undefined, value: unknown, where: 'body' | 'query'): T {
  if (!schema) {
    if (where === 'body' && value && typeof value === 'object' && Object.keys(value as object).length > 0) {
      const first = Object.keys(value as object)[0];
      throw new DomainError('invalid_request', 'parameter_unknown', `Unknown body parameter: \`${first}\`.`, { param: first });
    }
    return (value ?? {}) as T;
  }
  const { value: v, error } = schema.validate(value ?? {}, { abortEarly: true, convert: true, allowUnknown: where === 'query', stripUnknown: where === 'query' ? { objects: false } : false });
  if (error) throw fromJoi(error, where, schema);
  if (where === 'body') {
    const coerced = coercedPath(value ?? {}, v);
    if (coerced !== null) {
      const shown = coerced.length > 200 ? `${coerced.slice(0, 200)}…` : coerced;
      throw new DomainError('invalid_request', 'parameter_invalid', `\`${shown}\` has the wrong JSON type (${jsonType(valueAt(value, coerced))} given; no conversion is made in a body).`, { param: shown });
    }
  }
  return v as T;
}

/** JSON type name of `v` (`null`, `array`, `object`, `string`, `number`, `boolean`). */
function jsonType(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

function valueAt(v: unknown, path: string): unknown {
  let x = v;
  for (const k of path.split('.')) x = x && typeof x === 'object' ? (x as Record<string, unknown>)[k] : undefined;
  return x;
}

/**
 * Dotted path of the first value of the request body `input` whose JSON type differs in joi's
 * output `output` (a conversion), or null. A string parsed into a Date is not a conversion of
 * type (ISO date-time fields). Keys absent from the output (stripped) are skipped. Iterative.
 */
export function coercedPath(input: unknown, output: unknown): string | null {
  const stack: Array<[unknown, unknown, string]> = [[input, output, '']];
  while (stack.length) {
    const [i, o, at] = stack.pop()!;
    if (o instanceof Date) {
      if (typeof i !== 'string') return at;
      continue;
    }
    if (jsonType(i) !== jsonType(o)) return at;
    if (i === null || typeof i !== 'object') continue;
    const keys = Object.keys(i);
    for (let n = keys.length - 1; n >= 0; n--) {
      const k = keys[n];
      if (!Object.hasOwn(o as object, k)) continue;
      stack.push([(i as Record<string, unknown>)[k], (o as Record<string, unknown>)[k], at ? `${at}.${k}` : k]);
    }
  }
  return null;
}

/** Registers `def` on `router` (paths relative to /v1) and in the registry. */
export function mount(router: Router<AppState>, def: OperationDef): void {
  if (def.terms && def.inlineIdempotency) throw new Error(`${def.id}: a terms-gated operation cannot write its idempotency record inline`);
  record(def);
  const mutation = def.idempotent ?? def.method !== 'get';
  router[def.method](def.path, async (ctx) => {
    const caller = ctx.state.caller;
    if (!caller) throw new DomainError('authentication_error', 'missing_credentials', 'Authentication required.');
    await authorize(def, caller);
    const query = validate(def.query, ctx.query, 'query');
    const rawBody = (ctx.request as unknown as { body?: unknown }).body;
    const body = validate(def.body, rawBody && typeof rawBody === 'object' ? rawBody : {}, 'body');
    const args: HandlerArgs = { caller, body, query, params: ctx.params as Record<string, string>, ctx };
    if (!mutation) {
      ctx.body = await def.handler(args);
      ctx.status = def.successStatus ?? 200;
      return;
    }
    const key = idem.requireKey(ctx.get('Idempotency-Key') || undefined);
    ctx.state.idempotencyKey = key;
    const route = `${caller.livemode ? 'live' : 'test'}:${def.method.toUpperCase()} ${ctx.path}`;
    const hash = idem.requestHash(rawBody ?? {});
    if (def.inlineIdempotency) {
      await runInline(def, args, ctx, { accountId: caller.accountId, route, key, livemode: caller.livemode, hash, status: def.successStatus ?? 200 });
      return;
    }
    const stored = await idem.claim(caller.accountId, route, key, caller.livemode, hash);
    if (stored) {
      replay(ctx, stored);
      return;
    }
    if (def.terms) {
      try {
        await checkTerms(def.terms, caller);
      } catch (e) {
        await idem.release(caller.accountId, route, key);
        throw e;
      }
    }
    try {
      const result = await def.handler(args);
      const status = def.successStatus ?? 200;
      await idem.complete(caller.accountId, route, key, status, result, ctx.state.redact);
      ctx.status = status;
      ctx.body = result;
    } catch (e) {
      if (e instanceof DomainError && e.status < 500) {
        // The handler refused before any effect; the refusal is part of the key's record (replayed as is).
        await idem.complete(caller.accountId, route, key, e.status, refusalBody(e), []);
      } else if (e instanceof DomainError && e.type === 'temporarily_unavailable') {
        await idem.release(caller.accountId, route, key);
      } else {
        await idem.fail(caller.accountId, route, key).catch(() => undefined);
      }
      throw e;
    }
  });
}

/** Answers with a stored response (`Idempotent-Replayed: true`); a stored refusal is thrown again as is. */
function replay(ctx: Koa.ParameterizedContext<AppState>, stored: idem.StoredResponse): void {
  ctx.set('Idempotent-Replayed', 'true');
  const err = (stored.body as { __error?: { type: any; code: string; message: string; param?: string; details?: Record<string, unknown> } } | null)?.__error;
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
async function runInline(def: OperationDef, args: HandlerArgs, ctx: Koa.ParameterizedContext<AppState>, claim: idem.InlineIdempotency): Promise<void> {
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
