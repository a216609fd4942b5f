/**
 * Request-scoped state shared by the middleware chain and handlers (spec 5, 9).
 * `Caller` is the authenticated identity: exactly one credential class per request.
 */
import type { Caller } from '../domain/caller';

export type { Caller, CallerKind } from '../domain/caller';

export interface AppState {
  requestId: string;
  version: string;
  caller: Caller | null;
  idempotencyKey: string | null;
  /** Fields of the response body that must never be stored for idempotent replay (secrets). */
  redact: string[];
}
