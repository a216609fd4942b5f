/**
 * The scoped finder: every read or lock of an account-owned row through one (account, livemode),
 * in the spirit of a tenant-bound repository. `scoped(scope, m)` adds `account_id` and `livemode`
 * to every lookup, so a command cannot forget them; a row of another account or mode is simply not
 * found (spec 1 rule 5 and spec 5: cross-account or cross-mode ids answer 404, never 403). Entities
 * it serves have `account_id` and `livemode` columns.
 *
 * `accountWide(accountId, m)` is the one named exception: the same helpers bound to the account
 * alone, for the reads that deliberately span both modes of one account or read a setting that is
 * the account's, not a mode's. It is right when the object itself is account-wide (the account's
 * API keys and request logs, seen across modes by a live caller; its settlement wallets, always
 * live; its single customer record; its memberships, terms acceptances, flags, waitlist entries
 * and idempotency records). It is wrong for anything a caller of one mode creates in that mode:
 * those go through `scoped`. No other code writes an `account_id` filter by hand
 * (tests/unit/tenant-scope.test.ts).
 *
 * Errors: `getOne` / `lock` throw the `404 not_found` DomainError built by the caller's `missing()`
 * (the message names the object and the param, e.g. `notFound('No such payout: po_1.', 'id')`).
 */
import type { EntityManager, EntityTarget, FindOptionsOrder, FindOptionsWhere, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { db } from './db';

/** What a scoped lookup is bound to (a Scope, a Caller or any `{ accountId, livemode }`). */
export interface RowScope {
  accountId: string;
  livemode: boolean;
}

/** A row owned by an account in one mode. */
export interface OwnedRow extends ObjectLiteral {
  account_id: string;
  livemode: boolean;
}

/** A row owned by an account (whatever its mode, or with no mode at all; null: owned by none, e.g. an unauthenticated request's log). */
export interface AccountRow extends ObjectLiteral {
  account_id: string | null;
}

/** Lookups of rows bound to one owner (`R`: the rows it serves; `P`: its raw-SQL parameters). */
export interface Finder<R extends ObjectLiteral, P extends unknown[]> {
  /** The row matching `where` of the owner, or null. */
  findOne<E extends R>(entity: EntityTarget<E>, where: FindOptionsWhere<E>): Promise<E | null>;
  /** The row matching `where` of the owner; throws `missing()` (a 404) when absent. */
  getOne<E extends R>(entity: EntityTarget<E>, where: FindOptionsWhere<E>, missing: () => Error): Promise<E>;
  /** The row matching `where` of the owner, locked `FOR UPDATE` (inside a transaction); throws `missing()` when absent. */
  lock<E extends R>(entity: EntityTarget<E>, where: FindOptionsWhere<E>, missing: () => Error): Promise<E>;
  /** The rows matching `where` of the owner (`order`, `take` as TypeORM's). */
  find<E extends R>(
    entity: EntityTarget<E>,
    where?: FindOptionsWhere<E>,
    opts?: { order?: FindOptionsOrder<E>; take?: number },
  ): Promise<E[]>;
  /** True when a row matching `where` of the owner exists. */
  exists<E extends R>(entity: EntityTarget<E>, where: FindOptionsWhere<E>): Promise<boolean>;
  /** A query builder over `entity` as `alias`, already restricted to the owner (`alias.account_id`, and `alias.livemode` when scoped). */
  query<E extends R>(entity: EntityTarget<E>, alias: string): SelectQueryBuilder<E>;
  /** The SQL condition binding `alias` (null: unqualified columns) to the owner, with its parameters from `$first` on (raw queries). */
  sql(alias: string | null, first: number): { where: string; params: P };
  /**
   * The same condition with named parameters (`:scopeAccountId`, and `:scopeLivemode` when
   * scoped), for a subquery inside a query builder: add `params` to the builder's parameters.
   */
  named(alias: string): { where: string; params: Record<string, unknown> };
}

/** Lookups of rows of one (account, livemode). */
export type ScopedFinder = Finder<OwnedRow, [string, boolean]>;

/** Lookups of rows of one account across its modes (see the header for when that is right). */
export type AccountWideFinder = Finder<AccountRow, [string]>;

/** A finder whose every lookup carries `bound` (column -> value, in parameter order) over `m` (default: the process DataSource's manager). */
function finder<R extends ObjectLiteral, P extends unknown[]>(bound: Record<string, unknown>, m?: EntityManager): Finder<R, P> {
  const em = (): EntityManager => m ?? db().manager;
  const columns = Object.keys(bound);
  const values = Object.values(bound);
  const paramName = (column: string): string => (column === 'account_id' ? 'scopeAccountId' : 'scopeLivemode');
  const bind = <E extends R>(where: FindOptionsWhere<E> = {} as FindOptionsWhere<E>): FindOptionsWhere<E> =>
    ({ ...where, ...bound }) as FindOptionsWhere<E>;
  const found = <E>(row: E | null, missing: () => Error): E => {
    if (!row) throw missing();
    return row;
  };
  const named = (alias: string): { where: string; params: Record<string, unknown> } => ({
    where: columns.map((column) => `${alias}.${column} = :${paramName(column)}`).join(' AND '),
    params: Object.fromEntries(columns.map((column) => [paramName(column), bound[column]])),
  });
  return {
    findOne: (entity, where) => em().findOne(entity, { where: bind(where) }),
    getOne: async (entity, where, missing) => found(await em().findOne(entity, { where: bind(where) }), missing),
    lock: async (entity, where, missing) =>
      found(await em().findOne(entity, { where: bind(where), lock: { mode: 'pessimistic_write' } }), missing),
    find: (entity, where, opts) => em().find(entity, { where: bind(where), order: opts?.order, take: opts?.take }),
    exists: (entity, where) => em().exists(entity, { where: bind(where) }),
    query: (entity, alias) => {
      const own = named(alias);
      return em().createQueryBuilder(entity, alias).where(own.where, own.params);
    },
    sql: (alias, first) => {
      const prefix = alias ? `${alias}.` : '';
      return { where: columns.map((column, i) => `${prefix}${column} = $${first + i}`).join(' AND '), params: [...values] as P };
    },
    named,
  };
}

/** The scoped finder of `scope`'s (account, livemode) over `m` (default: the process DataSource's manager). */
export function scoped(scope: RowScope, manager?: EntityManager): ScopedFinder {
  return finder<OwnedRow, [string, boolean]>({ account_id: scope.accountId, livemode: scope.livemode }, manager);
}

/**
 * The account-wide finder of account `accountId` over `m` (default: the process DataSource's
 * manager): the same lookups bound to `account_id` alone, reading both modes. Only for objects
 * that are the account's rather than a mode's (see the header); a caller that may see only one
 * mode's rows narrows by `livemode` itself.
 */
export function accountWide(accountId: string, manager?: EntityManager): AccountWideFinder {
  return finder<AccountRow, [string]>({ account_id: accountId }, manager);
}
