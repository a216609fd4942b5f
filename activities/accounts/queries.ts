/**
 * Account and API key reads the routes need (spec 2.2, 4.10, 5).
 */
import type { SelectQueryBuilder } from 'typeorm';
import { DomainError } from '../../domain/errors';
import { Account, ApiKey } from '../../entities';
import { db } from '../../lib/db';

/** Account `id`; 404 `not_found` when absent. */
export async function loadAccount(id: string): Promise<Account> {
  const a = await db().getRepository(Account).findOneBy({ id });
  if (!a) throw new DomainError('not_found', 'not_found', 'No such account.');
  return a;
}

/**
 * `GET /accounts` (spec 4.10): the accounts of login `userId` (its memberships, newest first in
 * membership order of the database) for a dashboard session, else only `accountId`.
 */
export async function listAccounts(c: { accountId: string; userId: string | null; session: boolean }): Promise<Account[]> {
  const ids: string[] = c.session
    ? (await db().query('SELECT account_id FROM memberships WHERE user_id = $1 ORDER BY created_at DESC', [c.userId])).map((x: { account_id: string }) => x.account_id)
    : [c.accountId];
  return db().getRepository(Account).findByIds(ids);
}

/** `GET /api_keys` (spec 4.10): the query (alias `k`) of the account's keys, only test keys in test mode, optionally of one status; the caller paginates. */
export function apiKeyListQuery(accountId: string, livemode: boolean, status?: string): SelectQueryBuilder<ApiKey> {
  const qb = db().getRepository(ApiKey).createQueryBuilder('k').where('k.account_id = :a', { a: accountId });
  if (!livemode) qb.andWhere('k.livemode = false');
  if (status) qb.andWhere('k.status = :s', { s: status });
  return qb;
}

/** `GET /api_keys/{id}`: a key of the account (only test keys in test mode); 404 `not_found` otherwise. */
export async function getApiKey(accountId: string, livemode: boolean, id: string): Promise<ApiKey> {
  const k = await db().getRepository(ApiKey).findOneBy({ id, account_id: accountId, ...(livemode ? {} : { livemode: false }) });
  if (!k) throw new DomainError('not_found', 'not_found', `No such API key: ${id}.`, { param: 'id' });
  return k;
}
