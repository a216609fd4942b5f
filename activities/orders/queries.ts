/** Order reads (spec 4.9): the list query and one order of the caller's account. */
import type { SelectQueryBuilder } from 'typeorm';
import { DomainError } from '../../domain/errors';
import type { OrderStatus } from '../../domain/orders';
import { Order } from '../../entities';
import { scoped } from '../../lib/scoped';
import type { AccountScope } from '../scope';

/** `GET /orders`: the caller's orders (alias `o`), optionally of one `status`; the route paginates newest first. */
export function orderListQuery(scope: AccountScope, input: { status?: OrderStatus; quote_id?: string }): SelectQueryBuilder<Order> {
  const qb = scoped(scope).query(Order, 'o');
  if (input.status) qb.andWhere('o.status = :s', { s: input.status });
  if (input.quote_id) qb.andWhere('o.quote_id = :q', { q: input.quote_id });
  return qb;
}

/** Order `input.id` of the caller's account and mode; 404 `No such order` param `id` otherwise (every cross-account id too). */
export async function findOrder(scope: AccountScope, input: { id: string }): Promise<Order> {
  const { id } = input;
  return scoped(scope).getOne(Order, { id }, () => new DomainError('not_found', 'not_found', `No such order: ${id}.`, { param: 'id' }));
}
