/**
 * Developers area, account setup (spec 4.10, 2.2): `GET /account/readiness`,
 * `GET /account/setup_guide` (scope `account.read`, keys and sessions, test mode full: a test key
 * sees its test twin), the `expand` expansions of `GET /account`, and
 * `POST /account/sessions/revoke_all` (dashboard session only, any member role: signs the
 * caller's login out of every dashboard session, the calling one included; open event streams of
 * those sessions end through the `auth_changed` trigger).
 *
 * A readiness or setup-guide read that exceeds its statement timeout answers
 * `503 temporarily_unavailable` (`readiness_unavailable` / `setup_guide_unavailable`, Retry-After 5)
 * on its own route; inside `GET /account?expand=` it becomes an `expand_errors` entry instead and
 * the account is still returned.
 */
import type Router from '@koa/router';
import Joi from '../schemas/joi';
import { ExpansionTimeout, loadReadiness, loadSetupGuide } from '../../activities/account-setup/queries';
import { DomainError } from '../../domain/errors';
import type { Account } from '../../entities';
import { revokeAllSessions } from '../../activities/accounts/commands';
import { clearAuthCache } from '../middleware/auth';
import { loadAccount } from '../../activities/accounts/queries';
import { logger } from '../../lib/logger';
import type { AppState, Caller } from '../context';
import { mount } from '../operation';
import { wantsExpand } from '../../lib/pagination';
import {
  readinessResponse,
  readinessView,
  sessionRevocationResponse,
  sessionRevocationView,
  setupGuideResponse,
  setupGuideView,
} from '../../views/account-setup';

const EXPANSIONS = {
  readiness: async (a: Account, c: Caller) => readinessView(await loadReadiness(c, { account: a })),
  setup_guide: async (a: Account, c: Caller) => setupGuideView(await loadSetupGuide(c, { account: a })),
} as const;

function unavailable(what: keyof typeof EXPANSIONS): DomainError {
  return new DomainError(
    'temporarily_unavailable',
    `${what}_unavailable`,
    `The ${what.replace('_', ' ')} could not be computed in time. Retry shortly.`,
    { details: { retry_after_seconds: 5 } },
  );
}

/**
 * The `expand` members of `GET /account` (spec 2.2): `readiness` and `setup_guide` when requested
 * and computed; `expand_errors` (`{ <name>: { type, code, message } }`) for each requested one that
 * failed. Unrecognised `expand` values are ignored (spec 4 conventions).
 */
export async function accountExpansions(account: Account, caller: Caller, expand: unknown): Promise<Record<string, unknown>> {
  const wanted = (Object.keys(EXPANSIONS) as Array<keyof typeof EXPANSIONS>).filter((k) => wantsExpand(expand, k));
  const out: Record<string, unknown> = {};
  const errors: Record<string, { type: string; code: string; message: string }> = {};
  await Promise.all(
    wanted.map(async (k) => {
      try {
        out[k] = await EXPANSIONS[k](account, caller);
      } catch (e) {
        if (!(e instanceof ExpansionTimeout)) logger.error({ err: e, expand: k, account_id: account.id }, 'account expansion failed');
        const err =
          e instanceof ExpansionTimeout ? unavailable(k) : new DomainError('api_error', 'expansion_failed', `The ${k} expansion failed.`);
        errors[k] = { type: err.type, code: err.code, message: err.message };
      }
    }),
  );
  if (Object.keys(errors).length) out.expand_errors = errors;
  return out;
}

async function orUnavailable<T>(what: keyof typeof EXPANSIONS, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof ExpansionTimeout) throw unavailable(what);
    throw e;
  }
}

/** Mounts readiness, setup guide and session revocation (see the module doc). */
export function register(router: Router<AppState>): void {
  mount(router, {
    id: 'account.get_readiness',
    method: 'get',
    path: '/account/readiness',
    scope: 'account.read',
    testMode: 'full',
    summary: 'Whether the account can take and settle payments now, check by check.',
    response: readinessResponse,
    handler: async ({ caller, scope }) => orUnavailable('readiness', async () => EXPANSIONS.readiness(await loadAccount(scope), caller)),
  });

  mount(router, {
    id: 'account.get_setup_guide',
    method: 'get',
    path: '/account/setup_guide',
    scope: 'account.read',
    testMode: 'full',
    summary: 'The onboarding steps and which are done.',
    response: setupGuideResponse,
    handler: async ({ caller, scope }) =>
      orUnavailable('setup_guide', async () => EXPANSIONS.setup_guide(await loadAccount(scope), caller)),
  });

  mount(router, {
    id: 'account_sessions.revoke_all',
    method: 'post',
    path: '/account/sessions/revoke_all',
    scope: 'account.write',
    testMode: 'unavailable',
    callers: ['dashboard_session'],
    roles: ['owner', 'admin', 'developer', 'viewer'],
    summary: "Revoke every dashboard session of the caller's login, the calling one included.",
    body: Joi.object({}),
    response: sessionRevocationResponse,
    handler: async ({ scope }) => {
      const r = await revokeAllSessions(scope);
      clearAuthCache(); // this instance at once; the others on `auth_changed`
      return sessionRevocationView(r.count, r.revokedAt);
    },
  });
}
