/**
 * Cursor pagination for every list (spec 2.1 envelope, 8 page size): newest first by
 * (created_at, id), opaque cursors, `limit` parsed leniently, `has_more` and `next_cursor` always present.
 */
import type { SelectQueryBuilder, ObjectLiteral } from 'typeorm';
import { DomainError } from '../domain/errors';
import { decodeCursor, encodeCursor, parseLimit } from '../domain/pagination';

export interface ListEnvelope<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
  summary?: unknown;
}

/**
 * Applies keyset pagination to `qb` (alias `alias`, ordered newest first) and maps rows with `view`.
 * Throws `400 invalid_request` param `cursor` for a cursor this server did not mint.
 */
export async function paginate<E extends ObjectLiteral, T>(
  qb: SelectQueryBuilder<E>,
  alias: string,
  query: { limit?: unknown; cursor?: unknown },
  view: (e: E) => T,
): Promise<ListEnvelope<T>> {
  const limit = parseLimit(query.limit);
  if (query.cursor !== undefined && query.cursor !== '') {
    const c = typeof query.cursor === 'string' ? decodeCursor(query.cursor) : null;
    if (!c) throw new DomainError('invalid_request', 'cursor_invalid', 'The cursor is not valid for this list.', { param: 'cursor' });
    qb.andWhere(`(${alias}.created_at, ${alias}.id) < (:cursorT, :cursorId)`, { cursorT: c.t, cursorId: c.id });
  }
  const rows = await qb
    .orderBy(`${alias}.created_at`, 'DESC')
    .addOrderBy(`${alias}.id`, 'DESC')
    .take(limit + 1)
    .getMany();
  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1] as unknown as { created_at: Date; id: string } | undefined;
  return {
    object: 'list',
    data: page.map(view),
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor({ t: last.created_at.toISOString(), id: last.id }) : null,
  };
}

/**
 * The same page as `paginate`, over rows already in memory (a list small by construction, e.g.
 * `GET /accounts`): sorted newest first by (created_at, id), the `cursor` applied (400
 * `cursor_invalid` param `cursor` when this server did not mint it) and `limit` parsed leniently.
 */
export function paginateRows<E extends { created_at: Date; id: string }, T>(
  rows: readonly E[],
  query: { limit?: unknown; cursor?: unknown },
  view: (e: E) => T,
): ListEnvelope<T> {
  const limit = parseLimit(query.limit);
  const newestFirst = (a: E, b: E) => b.created_at.getTime() - a.created_at.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
  let sorted = [...rows].sort(newestFirst);
  if (query.cursor !== undefined && query.cursor !== '') {
    const c = typeof query.cursor === 'string' ? decodeCursor(query.cursor) : null;
    if (!c) throw new DomainError('invalid_request', 'cursor_invalid', 'The cursor is not valid for this list.', { param: 'cursor' });
    const t = new Date(c.t).getTime();
    sorted = sorted.filter((r) => r.created_at.getTime() < t || (r.created_at.getTime() === t && r.id < c.id));
  }
  const page = sorted.slice(0, limit);
  const hasMore = sorted.length > limit;
  const last = page[page.length - 1];
  return {
    object: 'list',
    data: page.map(view),
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor({ t: last.created_at.toISOString(), id: last.id }) : null,
  };
}

/** True when `expand` (string or array, comma-separated allowed) names `what`. */
export function wantsExpand(expand: unknown, what: string): boolean {
  const parts = (Array.isArray(expand) ? expand : [expand]).flatMap((x) => (typeof x === 'string' ? x.split(',') : []));
  return parts.map((s) => s.trim()).includes(what);
}
