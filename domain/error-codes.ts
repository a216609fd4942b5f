/**
 * The error registry (spec part 7): every error `code`
 * the server can answer, with its `type`s, HTTP statuses, when it happens, the `param` and
 * `details` it carries and what the caller should do. It feeds the error reference page
 * (`GET /docs/errors`, api/docs/errors.tsx), the OpenAPI `ErrorEnvelope` (the code's open enum with
 * descriptions) and the envelope's `doc_url` (`<DOCS_BASE_URL>/errors#<code>`).
 *
 * Codes are stable and additive-only (spec 7): never rename or drop an entry; a code no route
 * answers any more stays, marked `reserved`. tests/unit/error-codes.test.ts walks the source and
 * fails when the server can answer a code missing here, or when an entry is answered nowhere and
 * is not reserved. Entries live by area in domain/error-codes/, the entry's shape in
 * domain/error-codes/entry.ts (which the area files import, so no import runs back up here).
 *
 * Pure: no I/O.
 */
import { ERROR_TYPES, STATUS_BY_TYPE, type ErrorType } from './errors';
import type { ErrorCodeEntry, ErrorCodeSpec } from './error-codes/entry';
import { PLATFORM_CODES } from './error-codes/platform';
import { PAYMENT_CODES } from './error-codes/payments';
import { PAYOUT_CODES } from './error-codes/payouts';
import { ACCOUNT_CODES } from './error-codes/accounts';
import { STATE_CHANGED_CODES } from './error-codes/states';

export type { ErrorCodeEntry, ErrorCodeSpec } from './error-codes/entry';

/** The entry of `spec`: types as a list, statuses defaulted from the types and sorted. Throws on an unknown type. */
export function entryOf(spec: ErrorCodeSpec): ErrorCodeEntry {
  const { type, status, ...rest } = spec;
  const types = (Array.isArray(type) ? type : [type]) as readonly ErrorType[];
  for (const t of types) if (!(t in STATUS_BY_TYPE)) throw new Error(`error code ${spec.code}: unknown type ${t}`);
  const statuses = status === undefined ? types.map((t) => STATUS_BY_TYPE[t]) : ((Array.isArray(status) ? status : [status]) as number[]);
  return Object.freeze({
    ...rest,
    types: Object.freeze([...types]),
    statuses: Object.freeze([...new Set(statuses)].sort((a, b) => a - b)),
  });
}

function build(specs: readonly ErrorCodeSpec[]): ReadonlyMap<string, ErrorCodeEntry> {
  const out = new Map<string, ErrorCodeEntry>();
  for (const s of specs) {
    if (!/^[a-z][a-z0-9_]*$/.test(s.code)) throw new Error(`error code ${s.code}: not snake_case`);
    if (out.has(s.code)) throw new Error(`error code ${s.code}: registered twice`);
    out.set(s.code, entryOf(s));
  }
  return out;
}

/** Every registered code, by code (load order: platform, payments, payouts and payroll, accounts and the rest, state changes). */
export const ERROR_CODES: ReadonlyMap<string, ErrorCodeEntry> = build([
  ...PLATFORM_CODES,
  ...PAYMENT_CODES,
  ...PAYOUT_CODES,
  ...ACCOUNT_CODES,
  ...STATE_CHANGED_CODES,
]);

/** True when `code` is in the registry. */
export function isRegisteredErrorCode(code: string): boolean {
  return ERROR_CODES.has(code);
}

/** Every entry, sorted by code. */
export function allErrorCodes(): ErrorCodeEntry[] {
  return [...ERROR_CODES.values()].sort((a, b) => a.code.localeCompare(b.code));
}

/**
 * The entries grouped by their usual type (the first of `types`), in the order of the spec 7
 * table, each group sorted by code; types without codes are left out.
 */
export function errorCodesByType(): Array<{ type: ErrorType; entries: ErrorCodeEntry[] }> {
  const all = allErrorCodes();
  return ERROR_TYPES.map((type) => ({ type, entries: all.filter((e) => e.types[0] === type) })).filter((g) => g.entries.length > 0);
}

/** What a caller does about each error type (spec 7 table, "Recovery"). */
export const RECOVERY_BY_TYPE: Readonly<Record<ErrorType, string>> = Object.freeze({
  invalid_request: 'Fix the argument and retry.',
  authentication_error: 'Re-authorize.',
  permission_error: 'Wrong actor or scope: call with a credential that may do this.',
  not_found: 'The id is not visible to the caller (also every id of another account).',
  conflict: 'The state moved: re-read, then decide again.',
  idempotency_error: 'The same key was used differently: see the code.',
  rate_limit_error: 'Back off; retry after `Retry-After` seconds.',
  capability_unavailable: 'Do not retry: waiting does not change it.',
  temporarily_unavailable: 'A switch is off or a dependency is out: retry after `Retry-After`.',
  quota_exhausted: 'The allowance is spent: upgrade or buy credits.',
  provider_error: 'An upstream provider failed: retry only where the code says so.',
  api_error: 'Contact support with the request id.',
});
