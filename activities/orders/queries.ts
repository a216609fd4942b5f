/** Order reads (spec 4.9): the list query and one order of the caller's account. */
import type { SelectQueryBuilder } from 'typeorm';
import { DomainError } from '../../domain/errors';
import type { OrderStatus } from '../../domain/orders';
import { Order } from '../../entities';
import { db } from '../../lib/db';
import type { AccountScope } from '../op-context';

/** `GET /orders`: the caller's orders (alias `o`), optionally of one `status`; the route paginates newest first. */
export function orderListQuery(scope: AccountScope, f: { status?: OrderStatus; quote_id?: string }): SelectQueryBuilder<Order> {
  const qb = db().getRepository(Order).createQueryBuilder('o').where('o.account_id = :a AND o.livemode = :l', { a: scope.accountId, l: scope.livemode });
  if (f.status) qb.andWhere('o.status = :s', { s: f.status });
  if (f.quote_id) qb.andWhere('o.quote_id = :q', { q: f.quote_id });
  return qb;
}

/** Order `id` of the caller's account; 404 `No such order` otherwise (every cross-account id too). */
export async function findOrder(scope: AccountScope, id: string): Promise<Order> {
  const o = await db().getRepository(Order).findOneBy({ id, account_id: scope.accountId, livemode: scope.livemode });
  if (!o) throw new DomainError('not_found', 'not_found', `No such order: ${id}.`, { param: 'id' });
  return o;
}
