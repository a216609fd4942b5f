/**
 * Developers area, account part (spec 4.10): GET/PATCH /account, GET/POST /accounts. Thin routes.
 * `GET /account?expand=readiness,setup_guide` adds those objects (or `expand_errors`), see account-setup.ts.
 */
import type Router from '@koa/router';
import Joi from 'joi';
import { DomainError } from '../../domain/errors';
import { Account } from '../../entities';
import { db, transaction } from '../../lib/db';
import { insertAccount } from '../../activities/accounts/commands';
import type { AppState } from '../context';
import { mount } from '../operation';
import { accountResponse, accountView } from '../../views/account';
import { listEnvelope } from '../../views/schema';
import { COUNTRIES } from '../../domain/countries';
import { accountExpansions } from './account-setup';

async function loadAccount(id: string): Promise<Account> {
  const a = await db().getRepository(Account).findOneBy({ id });
  if (!a) throw new DomainError('not_found', 'not_found', 'No such account.');
  return a;
}

export function register(r: Router<AppState>): void {
  mount(r, {
    id: 'account.get', method: 'get', path: '/account', scope: 'account.read', testMode: 'full',
    response: accountResponse,
    query: Joi.object({ expand: Joi.any() }),
    handler: async ({ caller, query }) => {
      const a = await loadAccount(caller.accountId);
      return { ...accountView(a, caller), ...(await accountExpansions(a, caller, query.expand)) };
    },
  });

  mount(r, {
    id: 'account.update', method: 'patch', path: '/account', scope: 'account.write', testMode: 'livemode_boundary',
    callers: ['dashboard_session'], roles: ['owner', 'admin'],
    response: accountResponse,
    body: Joi.object({
      display_name: Joi.string().trim().min(1).max(200),
      language: Joi.string().pattern(/^[a-z]{2}(-[A-Z]{2})?$/).allow(null),
      notification_preferences: Joi.object({ marketing: Joi.boolean(), product_tips: Joi.boolean() }),
      dashboard_preferences: Joi.object().unknown(true),
      support_contact: Joi.object({ email: Joi.string().email({ tlds: { allow: false } }).allow(null), phone: Joi.string().max(40).allow(null), url: Joi.string().uri({ scheme: ['https'] }).allow(null) }).allow(null),
    }),
    handler: async ({ caller, body }) => {
      const a = await transaction(async (m) => {
        const acc = await m.findOne(Account, { where: { id: caller.accountId }, lock: { mode: 'pessimistic_write' } });
        if (!acc) throw new DomainError('not_found', 'not_found', 'No such account.');
        if (body.display_name !== undefined) acc.display_name = body.display_name;
        if (body.language !== undefined) acc.language = body.language;
        if (body.notification_preferences) acc.notification_preferences = { ...acc.notification_preferences, ...body.notification_preferences };
        if (body.dashboard_preferences) acc.dashboard_preferences = body.dashboard_preferences;
        if (body.support_contact !== undefined) acc.support_contact = body.support_contact;
        return m.save(acc);
      });
      return accountView(a, caller);
    },
  });

  mount(r, {
    id: 'accounts.list', method: 'get', path: '/accounts', scope: 'account.read', testMode: 'full',
    response: listEnvelope(accountResponse),
    query: Joi.object({ limit: Joi.any(), cursor: Joi.any() }),
    handler: async ({ caller }) => {
      const ids = caller.kind === 'dashboard_session'
        ? (await db().query('SELECT account_id FROM memberships WHERE user_id = $1 ORDER BY created_at DESC', [caller.userId])).map((x: { account_id: string }) => x.account_id)
        : [caller.accountId];
      const accounts = await db().getRepository(Account).findByIds(ids);
      return { object: 'list', data: accounts.map((a) => accountView(a, caller)), has_more: false, next_cursor: null };
    },
  });

  mount(r, {
    id: 'accounts.create', method: 'post', path: '/accounts', scope: 'account.write', testMode: 'full', callers: ['dashboard_session'],
    response: accountResponse,
    // Only a login's owner membership may create (spec 4.10: a member is refused with 403).
    roles: ['owner'],
    successStatus: 201,
    body: Joi.object({ display_name: Joi.string().trim().min(1).max(200).required(), country: Joi.string().uppercase().length(2) }),
    handler: async ({ caller, body }) => {
      if (!caller.livemode) throw new DomainError('temporarily_unavailable', 'test_mode_not_supported', 'Accounts cannot be created in test mode.');
      if (body.country && !COUNTRIES.has(body.country)) throw new DomainError('invalid_request', 'country_invalid', `Unrecognised country: ${body.country}.`, { param: 'country' });
      const owned: unknown[] = await db().query(`SELECT 1 FROM accounts WHERE owner_user_id = $1 AND livemode = true LIMIT 1`, [caller.userId]);
      if (owned.length) throw new DomainError('conflict', 'account_already_exists', 'This login already owns a live account.');
      const id = await transaction(async (m) => {
        const u: Array<{ email: string }> = await m.query('SELECT email FROM users WHERE id = $1', [caller.userId]);
        return insertAccount(m, { userId: caller.userId!, email: u[0].email, displayName: body.display_name, country: body.country ?? null });
      });
      return accountView(await loadAccount(id), caller);
    },
  });
}
