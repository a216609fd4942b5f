/**
 * Domain errors (spec part 7). A `DomainError` carries the wire error `type`, a stable
 * `code`, an optional offending request field `param`, machine-readable `details` and the
 * HTTP `status`. The API error middleware turns it into the envelope
 * `{ error: { type, code, message, doc_url, request_id, param?, details? } }`.
 *
 * Pure: no I/O. Safe to import from Temporal workflows.
 */

/** The closed set of error `type` values of spec part 7. */
export type ErrorType =
  | 'invalid_request'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found'
  | 'conflict'
  | 'idempotency_error'
  | 'rate_limit_error'
  | 'capability_unavailable'
  | 'temporarily_unavailable'
  | 'quota_exhausted'
  | 'provider_error'
  | 'api_error';

/** Default HTTP status per error type (spec part 7 table; the first status where two are listed). */
export const STATUS_BY_TYPE: Readonly<Record<ErrorType, number>> = Object.freeze({
  invalid_request: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found: 404,
  conflict: 409,
  idempotency_error: 409,
  rate_limit_error: 429,
  capability_unavailable: 409,
  temporarily_unavailable: 503,
  quota_exhausted: 402,
  provider_error: 502,
  api_error: 500,
});

/** Every error type, in the order of the spec part 7 table. */
export const ERROR_TYPES: readonly ErrorType[] = Object.freeze(Object.keys(STATUS_BY_TYPE) as ErrorType[]);

/** Options of a DomainError: offending field, machine-readable details, HTTP status override (e.g. 422). */
export interface DomainErrorOptions {
  param?: string;
  details?: Record<string, unknown>;
  status?: number;
}

/**
 * An error the API reports to the caller as-is (spec part 7).
 * `status` defaults to `STATUS_BY_TYPE[type]`; `opts.status` overrides it (e.g. 422 for
 * `invalid_request`). `param` and `details` are undefined unless given.
 */
export class DomainError extends Error {
  override readonly name: string = 'DomainError';
  readonly param: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly status: number;

  constructor(
    public readonly type: ErrorType,
    public readonly code: string,
    message: string,
    opts?: DomainErrorOptions,
  ) {
    super(message);
    this.param = opts?.param;
    this.details = opts?.details;
    this.status = opts?.status ?? STATUS_BY_TYPE[type];
  }
}

/** Type guard: true when `e` is a DomainError (also across module copies, by shape). */
export function isDomainError(error: unknown): error is DomainError {
  if (error instanceof DomainError) return true;
  if (typeof error !== 'object' || error === null) return false;
  const o = error as Record<string, unknown>;
  return (
    (o.name === 'DomainError' || o.name === 'IllegalTransition') &&
    typeof o.type === 'string' &&
    o.type in STATUS_BY_TYPE &&
    typeof o.code === 'string' &&
    typeof o.status === 'number'
  );
}

/** `invalid_request` (spec part 7): 400 by default, pass `status` 422 where the spec says 422. */
export function invalidRequest(
  code: string,
  message: string,
  param?: string,
  details?: Record<string, unknown>,
  status = 400,
): DomainError {
  return new DomainError('invalid_request', code, message, { param, details, status });
}

/** `404 not_found`, code `not_found` (spec part 7: also every cross-account id). */
export function notFound(message = 'No such object.', param?: string): DomainError {
  return new DomainError('not_found', 'not_found', message, { param });
}

/** `409 conflict` (state moved; re-read) with a stable `code`. */
export function conflict(code: string, message: string, details?: Record<string, unknown>): DomainError {
  return new DomainError('conflict', code, message, { details });
}

/** `409 capability_unavailable` (do not retry; waiting does not change it). */
export function capabilityUnavailable(code: string, message: string, details?: Record<string, unknown>): DomainError {
  return new DomainError('capability_unavailable', code, message, { details });
}

/** `403 permission_error` (wrong actor or scope), e.g. code `role_denied`, `scope_denied`. */
export function permissionError(code: string, message: string): DomainError {
  return new DomainError('permission_error', code, message);
}

/** `503 temporarily_unavailable` (switch off or dependency out; the API adds `Retry-After`). */
export function temporarilyUnavailable(code: string, message: string, details?: Record<string, unknown>): DomainError {
  return new DomainError('temporarily_unavailable', code, message, { details });
}
