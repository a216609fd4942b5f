/**
 * Developers area, account part (spec 4.10): GET/PATCH /account, GET/POST /accounts. Thin routes.
 * `GET /account?expand=readiness,setup_guide` adds those objects (or `expand_errors`), see account-setup.ts.
 */
import type Router from '@koa/router';
import Joi from '../schemas/joi';
import { createAccountForLogin, updateAccount } from '../../activities/accounts/commands';
import { listAccounts, loadAccount } from '../../activities/accounts/queries';
import type { AppState } from '../context';
import { mount } from '../operation';
import { accountExpandedResponse, accountResponse, accountView } from '../../views/account';
import { listEnvelope } from '../../views/schema';
import { paginateRows } from '../../lib/pagination';
import { countryCode, expandQuery, listQuery } from '../schemas/common';
import { accountExpansions } from './account-setup';
import { boundedFreeForm, DASHBOARD_PREFERENCES_BOUNDS } from '../schemas/free-form';

export function register(router: Router<AppState>): void {
  mount(router, {
    id: 'account.get',
    method: 'get',
    path: '/account',
    scope: 'account.read',
    testMode: 'full',
    response: accountExpandedResponse,
    query: Joi.object({ expand: expandQuery }),
    handler: async ({ caller, scope, query }) => {
      const a = await loadAccount(scope);
      return { ...accountView(a, caller), ...(await accountExpansions(a, caller, query.expand)) };
    },
  });

  mount(router, {
    id: 'account.update',
    method: 'patch',
    path: '/account',
    scope: 'account.write',
    testMode: 'livemode_boundary',
    callers: ['dashboard_session'],
    roles: ['owner', 'admin'],
    response: accountResponse,
    body: Joi.object({
      display_name: Joi.string().trim().min(1).max(200),
      language: Joi.string()
        .pattern(/^[a-z]{2}(-[A-Z]{2})?$/)
        .allow(null),
      notification_preferences: Joi.object({ marketing: Joi.boolean(), product_tips: Joi.boolean() }),
      dashboard_preferences: boundedFreeForm(DASHBOARD_PREFERENCES_BOUNDS),
      support_contact: Joi.object({
        email: Joi.string()
          .email({ tlds: { allow: false } })
          .allow(null),
        phone: Joi.string().max(40).allow(null),
        url: Joi.string()
          .uri({ scheme: ['https'] })
          .allow(null),
      }).allow(null),
    }),
    handler: async ({ caller, scope, body }) => accountView(await updateAccount(scope, body), caller),
  });

  mount(router, {
    id: 'accounts.list',
    method: 'get',
    path: '/accounts',
    scope: 'account.read',
    testMode: 'full',
    response: listEnvelope(accountResponse),
    query: Joi.object({ limit: listQuery.limit, cursor: listQuery.cursor }),
    handler: async ({ caller, scope, query }) => {
      const accounts = await listAccounts(scope);
      return paginateRows(accounts, query, (a) => accountView(a, caller));
    },
  });

  mount(router, {
    id: 'accounts.create',
    method: 'post',
    path: '/accounts',
    scope: 'account.write',
    testMode: 'unavailable',
    callers: ['dashboard_session'],
    response: accountResponse,
    // Only a login's owner membership may create (spec 4.10: a member is refused with 403).
    roles: ['owner'],
    successStatus: 201,
    body: Joi.object({ display_name: Joi.string().trim().min(1).max(200).required(), country: countryCode }),
    handler: async ({ caller, scope, body }) =>
      accountView(await createAccountForLogin(scope, { display_name: body.display_name, country: body.country ?? null }), caller),
  });
}
