/**
 * Error envelope (spec 7): every failure answers `{ error: { type, code, message, doc_url,
 * request_id, param?, details? } }`; unexpected errors are `500 api_error` without stack traces.
 */
import type Koa from 'koa';
import Joi from 'joi';
import { DomainError, ERROR_TYPES } from '../../domain/errors';
import { logger } from '../../lib/logger';
import type { AppState } from '../context';

const DOC_BASE = 'https://docs.payments.example/errors#';

/**
 * joi schema of the part 7 envelope, exactly as `errorBody` writes it: `type` is the closed set
 * of spec 7, `param` and `details` only when set. Feeds the OpenAPI `ErrorEnvelope` component
 * and the contract tests' envelope check.
 */
export const errorEnvelopeSchema = Joi.object({
  error: Joi.object({
    type: Joi.string().valid(...ERROR_TYPES).required(),
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
export function clip(s: string, max: number): string {
  const cps = [...s];
  return cps.length <= max ? s : `${cps.slice(0, max).join('')}…`;
}

/**
 * The wire envelope of a DomainError. The message is capped at `MAX_MESSAGE_LENGTH` code points so
 * no input, however long, comes back in full (issue 11: a 1,000,000-character value was echoed).
 */
export function errorBody(err: DomainError, requestId: string): Record<string, unknown> {
  const error: Record<string, unknown> = {
    type: err.type,
    code: err.code,
    message: clip(err.message, MAX_MESSAGE_LENGTH),
    doc_url: `${DOC_BASE}${err.code}`,
    request_id: requestId,
  };
  if (err.param !== undefined && err.param !== null) error.param = err.param;
  if (err.details !== undefined && err.details !== null) error.details = err.details;
  return { error };
}

/** Maps a joi validation failure to `400 invalid_request` naming the offending field. */
export function fromJoi(err: Joi.ValidationError, where: 'body' | 'query' | 'header'): DomainError {
  const d = err.details[0];
  const param = d.path.length ? d.path.join('.') : (d.context?.key as string | undefined) ?? undefined;
  let code = 'parameter_invalid';
  // joi quotes the offending value in some messages (pattern, valid): never more than MAX_ECHOED_VALUE of it.
  const value = d.context?.value;
  const raw = typeof value === 'string' && [...value].length > MAX_ECHOED_VALUE ? d.message.split(value).join(clip(value, MAX_ECHOED_VALUE)) : d.message;
  let message = raw.replace(/"/g, '`');
  if (d.type === 'object.unknown') {
    code = 'parameter_unknown';
    message = `Unknown ${where} parameter: \`${param}\`.`;
  } else if (d.type === 'any.required') {
    code = 'parameter_missing';
  }
  return new DomainError('invalid_request', code, message, { param });
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
      else {
        logger.error({ err: e, request_id: ctx.state.requestId, path: ctx.path }, 'unhandled error');
        err = new DomainError('api_error', 'internal_error', 'An unexpected error occurred. Contact support with the request id.');
      }
      // `details.retry_after_seconds` is an internal hint: it becomes the Retry-After header (spec 7, 8).
      const { retry_after_seconds: retryAfter, ...details } = err.details ?? {};
      const wire = retryAfter === undefined ? err : new DomainError(err.type, err.code, err.message, {
        param: err.param, details: Object.keys(details).length ? details : undefined, status: err.status,
      });
      if (retryAfter !== undefined) ctx.set('Retry-After', String(retryAfter));
      ctx.status = err.status;
      ctx.body = errorBody(wire, ctx.state.requestId);
    }
  };
}
