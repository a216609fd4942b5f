/**
 * Account and API key reads the routes need (spec 2.2, 4.10, 5).
 */
import type { SelectQueryBuilder } from 'typeorm';
import { DomainError } from '../../domain/errors';
import { Account, ApiKey } from '../../entities';
import { db } from '../../lib/db';
import { accountWide } from '../../lib/scoped';
import type { AccountScope, Scope } from '../scope';

/** The scope's account; 404 `not_found` when absent. */
export async function loadAccount(scope: AccountScope): Promise<Account> {
  const a = await db().getRepository(Account).findOneBy({ id: scope.accountId });
  if (!a) throw new DomainError('not_found', 'not_found', 'No such account.');
  return a;
}

/**
 * `GET /accounts` (spec 4.10): for a dashboard session the accounts of its login (its memberships,
 * newest first in membership order of the database), else only the scope's account.
 */
export async function listAccounts(scope: Scope): Promise<Account[]> {
  const c = { accountId: scope.accountId, userId: scope.caller?.userId ?? null, session: scope.caller?.kind === 'dashboard_session' };
  const ids: string[] = c.session
    ? (await db().query('SELECT account_id FROM memberships WHERE user_id = $1 ORDER BY created_at DESC', [c.userId])).map(
        (x: { account_id: string }) => x.account_id,
      )
    : [c.accountId];
  return db().getRepository(Account).findByIds(ids);
}

/**
 * `GET /api_keys` (spec 4.10): the query (alias `k`) of the scope's account's keys (both modes in
 * live mode, only test keys in test mode), optionally of one `input.status`; the caller paginates.
 */
export function apiKeyListQuery(scope: AccountScope, input: { status?: string }): SelectQueryBuilder<ApiKey> {
  const { accountId, livemode } = scope;
  const { status } = input;
  const qb = accountWide(accountId).query(ApiKey, 'k');
  if (!livemode) qb.andWhere('k.livemode = false');
  if (status) qb.andWhere('k.status = :s', { s: status });
  return qb;
}

/** `GET /api_keys/{id}`: key `input.id` of the scope's account (only test keys in test mode); 404 `not_found` (param `id`) otherwise. */
export async function getApiKey(scope: AccountScope, input: { id: string }): Promise<ApiKey> {
  const { accountId, livemode } = scope;
  const { id } = input;
  const k = await accountWide(accountId).findOne(ApiKey, { id, ...(livemode ? {} : { livemode: false }) });
  if (!k) throw new DomainError('not_found', 'not_found', `No such API key: ${id}.`, { param: 'id' });
  return k;
}
