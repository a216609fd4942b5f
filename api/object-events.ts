/**
 * Per-object event lists (spec 6: `GET /<resource>/{id}/events`): events about the object or
 * naming it as related, newest first by outbox sequence, with an opaque cursor. Per-object lists
 * may show catalogued types.
 */
import { DomainError } from '../domain/errors';
import { decodeCursor, encodeCursor, isBigintDigits, parseLimit } from '../domain/pagination';
import { db } from '../lib/db';
import type { Caller } from './context';
import type { ListEnvelope } from './pagination';
import { eventView } from '../views/event';
import { EventRow } from '../entities';

/** One page of events of `objectId` visible to `caller` (same account and mode). */
export async function objectEventsPage(caller: Caller, objectId: string, query: { limit?: unknown; cursor?: unknown }): Promise<ListEnvelope<ReturnType<typeof eventView>>> {
  const limit = parseLimit(query.limit);
  let before: string | null = null;
  if (query.cursor !== undefined && query.cursor !== '') {
    const c = typeof query.cursor === 'string' ? decodeCursor(query.cursor) : null;
    if (!c || !isBigintDigits(c.id)) throw new DomainError('invalid_request', 'cursor_invalid', 'The cursor is not valid for this list.', { param: 'cursor' });
    before = c.id;
  }
  const rows = await db().getRepository(EventRow).createQueryBuilder('e')
    .where('e.account_id = :a AND e.livemode = :l', { a: caller.accountId, l: caller.livemode })
    .andWhere('(e.object_id = :o OR :o = ANY(e.related_object_ids))', { o: objectId })
    .andWhere(before ? 'e.seq < :before' : 'TRUE', { before })
    .orderBy('e.seq', 'DESC').take(limit + 1).getMany();
  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1];
  return {
    object: 'list', data: page.map(eventView), has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor({ t: last.created_at.toISOString(), id: String(last.seq) }) : null,
  };
}
