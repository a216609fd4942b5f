/**
 * The operation registry: every `/v1` route is declared once as an `OperationDef` (operation id,
 * method and path, caller classes, scope, roles, test-mode reach, switch/flag and terms gates, joi
 * schemas of query, body and success body, documented statuses, handler). `mount` / `mountPublic`
 * (mount.ts) add each definition to `REGISTRY` through `record`; the registry feeds the OpenAPI
 * document (api/openapi.ts) and the authorization matrix. Types and the list only: no I/O.
 */
import type Joi from 'joi';
import type Koa from 'koa';
import type { TermsGate } from '../../domain/terms';
import type { MemberRole } from '../../entities';
import type { InlineIdempotency } from '../../lib/idempotency';
import type { Scope } from '../../activities/scope';
import type { AppState, Caller, CallerKind } from '../context';

export interface HandlerArgs<B = any, Q = any> {
  caller: Caller;
  /** The command scope of this request (activities/scope.ts): the caller's account and mode, the caller, the request id and Idempotency-Key. */
  scope: Scope;
  body: B;
  query: Q;
  params: Record<string, string>;
  ctx: Koa.ParameterizedContext<AppState>;
  /** Set for `inlineIdempotency` operations: the claim the handler must write with its effect. */
  idempotency?: InlineIdempotency;
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
export function record(def: OperationDef): void {
  const i = REGISTRY.findIndex((d) => d.id === def.id);
  if (i >= 0) REGISTRY[i] = def;
  else REGISTRY.push(def);
}

/** Arguments of a public-token handler: no caller (the token in the path is the capability). */
export type PublicHandlerArgs<B = any, Q = any> = Omit<HandlerArgs<B, Q>, 'caller' | 'scope'>;

/** A payer route definition (spec 4.1 payer session routes): no scope, roles, gates or Idempotency-Key. */
export interface PublicOperationDef<B = any, Q = any> extends Omit<
  OperationDef<B, Q>,
  'scope' | 'testMode' | 'callers' | 'roles' | 'switch' | 'flag' | 'idempotent' | 'handler'
> {
  /** Returns the body; may set `ctx.status` to one of `otherSuccessStatuses`. */
  handler: (a: PublicHandlerArgs<B, Q>) => Promise<unknown>;
}
