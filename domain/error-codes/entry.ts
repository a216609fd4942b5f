/**
 * The shape of an error registry entry (domain/error-codes.ts): what the reference page and the
 * OpenAPI document show, and how an area file (domain/error-codes/<area>.ts) writes one. Pure types.
 */
import type { ErrorType } from '../errors';

/** One code of the registry, as the reference page and the OpenAPI document show it. */
export interface ErrorCodeEntry {
  /** The stable `code` (snake_case). */
  code: string;
  /** The `type`s it carries, the usual one first (spec 7: the same code can carry different types by route). */
  types: readonly ErrorType[];
  /** The HTTP statuses it answers with, ascending. */
  statuses: readonly number[];
  /** When the server answers it (one or two sentences). */
  when: string;
  /** What `param` names when the code sets it; absent when it never does. */
  param?: string;
  /** The `details` members it sets, each with its meaning. */
  details?: Readonly<Record<string, string>>;
  /** True when the answer sends `Retry-After` (seconds to wait before retrying). */
  retryAfter?: boolean;
  /** What the caller should do. */
  recovery: string;
  /** `simulator`: answered only by the sandbox simulator (`/sim`) and the sandbox pages, never by `/v1`. */
  surface?: 'simulator';
  /** Named by the spec but answered by no route of this build; kept because codes are never removed. */
  reserved?: boolean;
}

/**
 * How an area file writes an entry: `type` one or several (the usual first), `status` only when it
 * differs from the types' defaults (`STATUS_BY_TYPE`), e.g. 422, 405 or 413.
 */
export type ErrorCodeSpec = Omit<ErrorCodeEntry, 'types' | 'statuses'> & {
  type: ErrorType | readonly ErrorType[];
  status?: number | readonly number[];
};
