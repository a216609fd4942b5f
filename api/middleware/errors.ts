/**
 * Error envelope (spec 7): every failure answers `{ error: { type, code, message, doc_url,
 * request_id, param?, details? } }`; unexpected errors are `500 api_error` without stack traces.
 * `doc_url` is the code's entry in the error reference (`<DOCS_BASE_URL>/errors#<code>`, served by
 * api/docs/errors.tsx from the registry, domain/error-codes.ts). A code missing from the registry
 * is still answered, logged as an error, and flagged with `Error-Code-Unregistered` under
 * STRICT_ERROR_CODES (the test stacks).
 */
import type Koa from 'koa';
import Joi from 'joi';
import damerauLevenshtein from 'damerau-levenshtein';
import { DomainError, ERROR_TYPES } from '../../domain/errors';
import { allErrorCodes, isRegisteredErrorCode } from '../../domain/error-codes';
import { loadConfig } from '../../lib/config';
import { dependencyUnavailable, isDependencyUnavailable } from '../../lib/dependency-errors';
import { logger } from '../../lib/logger';
import type { AppState } from '../context';

/** Response header naming an answered code that is not in the registry (only under STRICT_ERROR_CODES). */
export const UNREGISTERED_CODE_HEADER = 'Error-Code-Unregistered';

/** The error reference's entry of `code`: `<DOCS_BASE_URL>/errors#<code>` (default base `<PAYER_HOST>/docs`). */
export function docUrl(code: string): string {
  return `${loadConfig().docsBaseUrl}/errors#${encodeURIComponent(code)}`;
}

/**
 * joi schema of the part 7 envelope, exactly as `errorBody` writes it: `type` is the closed set
 * of spec 7, `param` and `details` only when set. Feeds the OpenAPI `ErrorEnvelope` component
 * and the contract tests' envelope check.
 */
export const errorEnvelopeSchema = Joi.object({
  error: Joi.object({
    type: Joi.string()
      .valid(...ERROR_TYPES)
      .required(),
    code: Joi.string().required(),
    message: Joi.string().required(),
    doc_url: Joi.string().uri().required(),
    request_id: Joi.string().pattern(/^req_/).required(),
    param: Joi.string(),
    details: Joi.object().unknown(true),
  }).required(),
});

/** Longest caller value a message quotes (code points); longer ones are cut with `…`. */
export const MAX_ECHOED_VALUE = 64;
/** Longest message of an envelope (code points): a bound for messages that quote caller input. */
export const MAX_MESSAGE_LENGTH = 500;

/** `s` cut to `max` code points, with `…` when cut (never splits a surrogate pair). */
export function clip(text: string, max: number): string {
  const cps = [...text];
  return cps.length <= max ? text : `${cps.slice(0, max).join('')}…`;
}

/**
 * The wire envelope of a DomainError. The message is capped at `MAX_MESSAGE_LENGTH` code points so
 * no input, however long, comes back in full (a 1,000,000-character value was echoed).
 */
export function errorBody(err: DomainError, requestId: string): Record<string, unknown> {
  if (!isRegisteredErrorCode(err.code)) {
    logger.error({ code: err.code, type: err.type, request_id: requestId }, 'error code not in the registry (domain/error-codes.ts)');
  }
  const error: Record<string, unknown> = {
    type: err.type,
    code: err.code,
    message: clip(err.message, MAX_MESSAGE_LENGTH),
    doc_url: docUrl(err.code),
    request_id: requestId,
  };
  if (err.param !== undefined && err.param !== null) error.param = err.param;
  if (err.details !== undefined && err.details !== null) error.details = err.details;
  return { error };
}

/**
 * Maps a joi validation failure to `400 invalid_request` naming the offending field (`param`):
 * `parameter_unknown` (a key the schema does not take), `parameter_missing` (a required one
 * absent) or `parameter_invalid`. With the `schema` that failed, an unknown key names its nearest
 * known sibling when it is a likely typo (`didYouMean`): message "Unknown body parameter: `x`;
 * did you mean `y`?" and `details.did_you_mean` (the dotted path of `y`).
 */
export function fromJoi(err: Joi.ValidationError, where: 'body' | 'query' | 'header', schema?: Joi.Schema): DomainError {
  const d = err.details[0];
  const param = d.path.length ? d.path.join('.') : ((d.context?.key as string | undefined) ?? undefined);
  let code = 'parameter_invalid';
  // joi quotes the offending value in some messages (pattern, valid): never more than MAX_ECHOED_VALUE of it.
  const value = d.context?.value;
  const raw =
    typeof value === 'string' && [...value].length > MAX_ECHOED_VALUE
      ? d.message.split(value).join(clip(value, MAX_ECHOED_VALUE))
      : d.message;
  let message = raw.replace(/"/g, '`');
  let details: Record<string, unknown> | undefined;
  if (d.type === 'object.unknown') {
    code = 'parameter_unknown';
    message = `Unknown ${where} parameter: \`${param}\`.`;
    const key = d.path[d.path.length - 1];
    let near: string | null = null;
    try {
      if (schema && typeof key === 'string') near = didYouMean(key, knownKeysAt(schema, d.path.slice(0, -1)));
    } catch {
      // A schema joi cannot describe: no suggestion (never turn a 400 into a 500).
    }
    if (near !== null) {
      const suggestion = [...d.path.slice(0, -1), near].join('.');
      message = `Unknown ${where} parameter: \`${param}\`; did you mean \`${suggestion}\`?`;
      details = { did_you_mean: suggestion };
    }
  } else if (d.type === 'any.required') {
    code = 'parameter_missing';
  }
  return new DomainError('invalid_request', code, message, { param, details });
}

/** Edits a typo may have for a key of `length` characters: 1 up to 7, 2 up to 11, else 3, and fewer than half of it. */
function editBudget(length: number): number {
  return Math.min(length <= 7 ? 1 : length <= 11 ? 2 : 3, Math.ceil(length / 2) - 1);
}

/** Shortest key (characters) that a prefix suggestion starts from: `id` or `na` alone suggest nothing. */
const MIN_PREFIX_LENGTH = 4;

/**
 * The known key `key` most likely misspells (case-insensitive), or null when none is close:
 * - a typo: at most `editBudget` edits by optimal string alignment (Damerau-Levenshtein with
 *   adjacent transpositions as one edit, the `damerau-levenshtein` package), so `titel` is `title`;
 * - else a prefix: the shorter of the two (at least 4 characters) is the start of the longer, with
 *   one edit fewer than a typo of its length allows (none below 8 characters), so `accepted_rails`
 *   is `accepted_rail_kinds` (`accepted_rail_` and one edit) and `amount_minor` is `amount`.
 * Fewest edits first, typos before prefixes; ties go to the first of `known`.
 */
export function didYouMean(key: string, known: readonly string[]): string | null {
  if (key.length > 100) return null;
  const k = key.toLowerCase();
  const steps = (a: string, b: string) => damerauLevenshtein(a, b).steps;
  let best: string | null = null;
  let bestRank = Infinity;
  for (const c of known) {
    if (c === key) continue;
    const lc = c.toLowerCase();
    const typo = steps(k, lc);
    let rank = typo <= editBudget(k.length) ? typo : Infinity;
    if (rank === Infinity) {
      const [shorter, longer] = k.length <= lc.length ? [k, lc] : [lc, k];
      const prefix = shorter.length >= MIN_PREFIX_LENGTH ? steps(shorter, longer.slice(0, shorter.length)) : Infinity;
      // Behind every typo: a prefix match ranks after the largest typo budget (3).
      if (prefix <= editBudget(shorter.length) - 1) rank = 4 + prefix;
    }
    if (rank < bestRank) {
      best = c;
      bestRank = rank;
    }
  }
  return best;
}

/** The keys the object schema at `path` (keys and array indices) of `schema` declares; [] when unknown. */
function knownKeysAt(schema: Joi.Schema, path: ReadonlyArray<string | number>): string[] {
  type Desc = { type?: string; keys?: Record<string, Desc>; items?: Desc[] };
  let d: Desc | undefined = schema.describe() as Desc;
  for (const seg of path) {
    if (!d) return [];
    if (d.type === 'object') d = d.keys?.[String(seg)];
    else if (d.type === 'array' && d.items?.length === 1) d = d.items[0];
    else return [];
  }
  return d?.type === 'object' && d.keys ? Object.keys(d.keys) : [];
}

/** Koa middleware: catches everything below it and writes the envelope. */
export function errorEnvelope(): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new DomainError('not_found', 'not_found', `No route for ${ctx.method} ${ctx.path}.`);
      }
      if (ctx.status === 405 && ctx.body === undefined) {
        throw new DomainError('invalid_request', 'method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}.`, { status: 405 });
      }
    } catch (e) {
      let err: DomainError;
      if (e instanceof DomainError) err = e;
      else if (isDependencyUnavailable(e)) {
        // PostgreSQL or Temporal briefly out: the client retries, under the same Idempotency-Key.
        logger.warn({ err: e, request_id: ctx.state.requestId, path: ctx.path }, 'dependency unavailable');
        err = dependencyUnavailable();
      } else {
        logger.error({ err: e, request_id: ctx.state.requestId, path: ctx.path }, 'unhandled error');
        err = new DomainError('api_error', 'internal_error', 'An unexpected error occurred. Contact support with the request id.');
      }
      // `details.retry_after_seconds` is an internal hint: it becomes the Retry-After header (spec 7, 8).
      const { retry_after_seconds: retryAfter, ...details } = err.details ?? {};
      const wire =
        retryAfter === undefined
          ? err
          : new DomainError(err.type, err.code, err.message, {
              param: err.param,
              details: Object.keys(details).length ? details : undefined,
              status: err.status,
            });
      if (retryAfter !== undefined) ctx.set('Retry-After', String(retryAfter));
      if (!isRegisteredErrorCode(err.code) && loadConfig().strictErrorCodes) ctx.set(UNREGISTERED_CODE_HEADER, err.code);
      ctx.status = err.status;
      ctx.body = errorBody(wire, ctx.state.requestId);
    }
  };
}

/**
 * The OpenAPI `ErrorEnvelope` component (OpenAPI 3.1 / JSON Schema 2020-12): `toJson(errorEnvelopeSchema)`
 * with `error.code` documented as an open enum of the registry (domain/error-codes.ts): `anyOf`
 * one `{ const, title, description }` per code, or any other string (codes are additive-only,
 * spec 7: a client must accept codes added after its copy of the document). `doc_url` of each
 * code is `<DOCS_BASE_URL>/errors#<code>`. `toJson` is api/openapi.ts `toJsonSchema`.
 */
export function errorEnvelopeJsonSchema(toJson: (s: Joi.Schema) => Record<string, any>): Record<string, any> {
  const doc = toJson(errorEnvelopeSchema);
  const entries = allErrorCodes();
  const error = doc.properties?.error;
  if (!error?.properties?.code) throw new Error('ErrorEnvelope: no error.code property to document');
  error.properties.code = {
    type: 'string',
    description:
      'Stable, additive-only error code (spec 7): read `details` by it. One of the codes below, or a code added later; ' +
      `each is explained at \`doc_url\` (the error reference, ${loadConfig().docsBaseUrl}/errors).`,
    examples: ['parameter_invalid', 'not_found', 'payment_link_not_editable'],
    anyOf: [
      ...entries.map((e) => ({
        const: e.code,
        title: e.code,
        description: `${e.statuses.join('/')} ${e.types.join(' or ')}${e.surface ? ` (${e.surface} only)` : ''}. ${e.when} ${e.recovery}`,
      })),
      { type: 'string', description: 'A code added after this document was generated.' },
    ],
  };
  return doc;
}
