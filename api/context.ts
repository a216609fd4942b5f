/**
 * Request-scoped state shared by the middleware chain and handlers (spec 5, 9).
 * `Caller` is the authenticated identity: exactly one credential class per request.
 */
import type { MemberRole } from '../entities';

export type CallerKind = 'business_key' | 'dashboard_session' | 'public_token';

export interface Caller {
  kind: CallerKind;
  accountId: string;
  /** Test mode is selected by key prefix (spec 1 rule 5); dashboard sessions are live. */
  livemode: boolean;
  keyId: string | null;
  userId: string | null;
  /** Membership role for a dashboard session; null for keys (spec 2.2 `caller`). */
  role: MemberRole | null;
  scopes: string[];
  defaultVersion: string | null;
}

export interface AppState {
  requestId: string;
  version: string;
  caller: Caller | null;
  idempotencyKey: string | null;
  /** Fields of the response body that must never be stored for idempotent replay (secrets). */
  redact: string[];
}
