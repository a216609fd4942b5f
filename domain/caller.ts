/**
 * Who makes a request (spec 5, 2.2 `caller`): the authenticated identity, exactly one credential
 * class per request. Pure types and credential prefixes shared by the API, the views and the
 * account activities.
 */

/** Membership role of a dashboard user on an account (spec 2.2). */
export type MemberRole = 'owner' | 'admin' | 'developer' | 'viewer';

/** The credential class a request authenticated with (spec 5). */
export type CallerKind = 'business_key' | 'dashboard_session' | 'public_token';

/** Prefix of a dashboard session token (spec 5 "dashboard session"). */
export const SESSION_PREFIX = 'dsess_';

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
