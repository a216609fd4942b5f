/**
 * Authorization of an operation (spec 1 rule 5, 5 rules 3-5): who a definition admits (caller
 * classes, session roles; defaults: both business keys and dashboard sessions, any role for reads,
 * owner/admin/developer for writes), payer (public-token) operations, and `authorize`, which checks
 * in order test mode, caller class, role or scope, resource switch and product flag, throwing the
 * spec's error: `400 livemode_boundary`, `503 test_mode_unavailable` / `test_mode_not_supported` /
 * `switch_off`, `403 role_denied` / `scope_denied` / `missing_scope`, `409 capability_unavailable`.
 */
import { DomainError } from '../../domain/errors';
import type { MemberRole } from '../../entities';
import { isFlagOpen, isSwitchOn } from '../../lib/switches';
import type { Caller, CallerKind } from '../context';
import type { OperationDef } from './registry';

/** True for a payer (public token) operation. */
export function isPublicOperation(def: OperationDef): boolean {
  return (def.callers ?? []).includes('public_token');
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
      throw new DomainError('temporarily_unavailable', 'test_mode_unavailable', 'Test mode is switched off. Retry later.', {
        details: { retry_after_seconds: 60 },
      });
    }
    throw new DomainError('invalid_request', 'livemode_boundary', `${def.id} cannot be called in test mode.`);
  }
  // Test mode before the caller class (spec 1 rule 5): every operation a test-mode caller cannot use
  // answers 503, whoever the operation is for (a test key on `POST /customers` is 503, not 403).
  if (!caller.livemode) {
    if (!(await isSwitchOn('test_mode'))) {
      throw new DomainError('temporarily_unavailable', 'test_mode_unavailable', 'Test mode is switched off. Retry later.', {
        details: { retry_after_seconds: 60 },
      });
    }
    if (def.testMode === 'unavailable') {
      throw new DomainError('temporarily_unavailable', 'test_mode_not_supported', `${def.id} is not available in test mode.`);
    }
  }
  if (!allowedCallers(def).includes(caller.kind)) {
    throw new DomainError(
      'permission_error',
      'role_denied',
      caller.kind === 'business_key'
        ? 'This operation requires a dashboard session; API keys cannot call it.'
        : 'This operation is only available to API keys.',
    );
  }
  if (caller.kind === 'dashboard_session') {
    const roles = allowedRoles(def);
    if (!caller.role || !roles.includes(caller.role)) {
      throw new DomainError(
        'permission_error',
        'scope_denied',
        `Your role (${caller.role}) cannot perform this action; it needs ${roles.join(' or ')}.`,
      );
    }
  } else if (caller.kind === 'business_key') {
    if (!hasScope(caller.scopes, def.scope)) {
      throw new DomainError('permission_error', 'missing_scope', `This API key lacks the \`${def.scope}\` scope.`, {
        details: { required_scope: def.scope },
      });
    }
  }
  if (def.switch && !(await isSwitchOn(def.switch))) {
    throw new DomainError('temporarily_unavailable', 'switch_off', `${def.id} is temporarily unavailable.`, {
      details: { retry_after_seconds: 60 },
    });
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
