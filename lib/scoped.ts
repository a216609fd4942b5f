/**
 * The scoped finder (issue 26 item 4): every read or lock of an account-owned row through one
 * (account, livemode), in the spirit of a tenant-bound repository. `scoped(scope, m)` adds
 * `account_id` and `livemode` to every lookup, so a command cannot forget them; a row of another
 * account or mode is simply not found (spec 1 rule 5 and spec 5: cross-account or cross-mode ids
 * answer 404, never 403). Entities it serves have `account_id` and `livemode` columns.
 *
 * Errors: `getOne` / `lock` throw the `404 not_found` DomainError built by the caller's `missing()`
 * (the message names the object and the param, e.g. `notFound('No such payout: po_1.', 'id')`).
 */
import type { EntityManager, EntityTarget, FindOptionsOrder, FindOptionsWhere, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { db } from './db';

/** What a scoped lookup is bound to (a Scope, a Caller or any `{ accountId, livemode }`). */
export interface RowScope { accountId: string; livemode: boolean }

/** A row owned by an account in one mode. */
export interface OwnedRow extends ObjectLiteral { account_id: string; livemode: boolean }

/** Lookups of rows of `scope`'s (account, livemode) through `m` (default: the process DataSource's manager). */
export interface ScopedFinder {
  /** The row matching `where` in the scope, or null. */
  findOne<E extends OwnedRow>(entity: EntityTarget<E>, where: FindOptionsWhere<E>): Promise<E | null>;
  /** The row matching `where` in the scope; throws `missing()` (a 404) when absent. */
  getOne<E extends OwnedRow>(entity: EntityTarget<E>, where: FindOptionsWhere<E>, missing: () => Error): Promise<E>;
  /** The row matching `where` in the scope, locked `FOR UPDATE` (inside a transaction); throws `missing()` when absent. */
  lock<E extends OwnedRow>(entity: EntityTarget<E>, where: FindOptionsWhere<E>, missing: () => Error): Promise<E>;
  /** The rows matching `where` in the scope (`order`, `take` as TypeORM's). */
  find<E extends OwnedRow>(entity: EntityTarget<E>, where?: FindOptionsWhere<E>, opts?: { order?: FindOptionsOrder<E>; take?: number }): Promise<E[]>;
  /** True when a row matching `where` exists in the scope. */
  exists<E extends OwnedRow>(entity: EntityTarget<E>, where: FindOptionsWhere<E>): Promise<boolean>;
  /** A query builder over `entity` as `alias`, already restricted to the scope (`alias.account_id`, `alias.livemode`). */
  query<E extends OwnedRow>(entity: EntityTarget<E>, alias: string): SelectQueryBuilder<E>;
  /** The SQL condition binding `alias` to the scope, with its parameters from `$first` on (raw queries). */
  sql(alias: string | null, first: number): { where: string; params: [string, boolean] };
}

/** The scoped finder of `scope` over `m` (default: the process DataSource's manager). */
export function scoped(scope: RowScope, m?: EntityManager): ScopedFinder {
  const em = (): EntityManager => m ?? db().manager;
  const bind = <E extends OwnedRow>(where: FindOptionsWhere<E> = {} as FindOptionsWhere<E>): FindOptionsWhere<E> =>
    ({ ...where, account_id: scope.accountId, livemode: scope.livemode }) as FindOptionsWhere<E>;
  const found = <E>(row: E | null, missing: () => Error): E => { if (!row) throw missing(); return row; };
  return {
    findOne: (entity, where) => em().findOne(entity, { where: bind(where) }),
    getOne: async (entity, where, missing) => found(await em().findOne(entity, { where: bind(where) }), missing),
    lock: async (entity, where, missing) => found(await em().findOne(entity, { where: bind(where), lock: { mode: 'pessimistic_write' } }), missing),
    find: (entity, where, opts) => em().find(entity, { where: bind(where), order: opts?.order, take: opts?.take }),
    exists: (entity, where) => em().exists(entity, { where: bind(where) }),
    query: (entity, alias) => em().createQueryBuilder(entity, alias)
      .where(`${alias}.account_id = :scopeAccountId AND ${alias}.livemode = :scopeLivemode`, { scopeAccountId: scope.accountId, scopeLivemode: scope.livemode }),
    sql: (alias, first) => {
      const p = alias ? `${alias}.` : '';
      return { where: `${p}account_id = $${first} AND ${p}livemode = $${first + 1}`, params: [scope.accountId, scope.livemode] };
    },
  };
}
