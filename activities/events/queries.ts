/**
 * Event reads (spec 4.10 `/events`, `/events/stream`, 6 per-object event lists): the events list
 * and lookup, the per-object list, the stream's resume point and its replay and live reads. All
 * pages run newest first (lists) or oldest first (stream) by outbox sequence (`seq`), with opaque
 * cursors. Only shipped types appear in `/events` and the stream; per-object lists may show
 * catalogued types.
 */
import type { SelectQueryBuilder } from 'typeorm';
import { DomainError } from '../../domain/errors';
import { checkEventTypeParam } from '../../domain/event-types';
import { currentShippedEventTypes } from '../../lib/switches';
import {
  base64UrlDecode,
  base64UrlEncode,
  decodeCursor,
  encodeCursor,
  isBigintDigits,
  parseLimit,
  utf8Decode,
  utf8Encode,
} from '../../domain/pagination';
import { EventRow } from '../../entities';
import { db } from '../../lib/db';
import { scoped } from '../../lib/scoped';
import type { AccountScope } from '../scope';

/** `since` timestamps before 0001-01-01T00:00:00Z are refused (PostgreSQL has no year 0). */
const EARLIEST_SINCE_MS = Date.parse('0001-01-01T00:00:00Z');

/** One page of event rows and the list envelope's paging fields. */
export interface EventPage {
  page: EventRow[];
  has_more: boolean;
  next_cursor: string | null;
}

/** Opaque list cursor: unpadded base64url of `{"s":"<seq>"}`. */
export function encodeSeqCursor(seq: string): string {
  return base64UrlEncode(utf8Encode(JSON.stringify({ s: seq })));
}

/** Decodes `encodeSeqCursor` output; null for anything else. */
export function decodeSeqCursor(code: string): string | null {
  if (typeof code !== 'string' || code.length === 0 || code.length > 200) return null;
  const bytes = base64UrlDecode(code);
  const text = bytes ? utf8Decode(bytes) : null;
  if (text === null) return null;
  try {
    const v = JSON.parse(text) as { s?: unknown };
    return v && typeof v === 'object' && Object.keys(v).length === 1 && isBigintDigits(v.s) ? v.s : null;
  } catch {
    return null;
  }
}

/**
 * One page of an events query (alias `e`), newest first by `seq` (spec 8 list rules): `cursor` is
 * `encodeSeqCursor` output; throws `400 cursor_invalid` for anything else.
 */
export async function eventsPage(qb: SelectQueryBuilder<EventRow>, cursor: string | undefined, limit: number): Promise<EventPage> {
  if (cursor !== undefined && cursor !== '') {
    const seq = decodeSeqCursor(cursor);
    if (!seq) throw new DomainError('invalid_request', 'cursor_invalid', 'The cursor is not valid for this list.', { param: 'cursor' });
    qb.andWhere('e.seq < :cursorSeq', { cursorSeq: seq });
  }
  const rows = await qb
    .orderBy('e.seq', 'DESC')
    .limit(limit + 1)
    .getMany();
  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  return { page, has_more: hasMore, next_cursor: hasMore ? encodeSeqCursor(String(page[page.length - 1].seq)) : null };
}

/** Filters of `GET /events` (see listEvents). */
export interface EventListFilters {
  limit?: unknown;
  cursor?: string;
  type?: string;
  object?: string;
  since?: string;
}

/**
 * `GET /events`: one page of the scope's shipped events, newest first. `type` is checked against
 * the closed catalogue (`400 event_type_unknown`, param `type`; an unshipped type matches
 * nothing); `object` matches `object_id` or a related object; `since` is an `evt_` id (events
 * strictly after it; one the caller cannot see is `404 not_found` param `since`) or an ISO-8601
 * timestamp (events created at or after it; anything else `400 parameter_invalid`).
 */
export async function listEvents(scope: AccountScope, eventListFilters: EventListFilters): Promise<EventPage> {
  const limit = parseLimit(eventListFilters.limit);
  const own = scoped(scope);
  const shipped = [...(await currentShippedEventTypes(scope.accountId))];
  const qb = own.query(EventRow, 'e').andWhere('e.type = ANY(:shipped)', { shipped });
  const onlyType = eventListFilters.type !== undefined ? checkEventTypeParam(eventListFilters.type) : null;
  if (onlyType !== null) qb.andWhere('e.type = :t', { t: onlyType });
  if (eventListFilters.object !== undefined && eventListFilters.object !== '') {
    qb.andWhere("(e.object_id = :o OR (e.related_object_ids <> '{}' AND e.related_object_ids @> ARRAY[:o]::text[]))", {
      o: eventListFilters.object,
    });
  }
  let sinceSeq: string | null = null;
  if (eventListFilters.since !== undefined && eventListFilters.since !== '') {
    const since = eventListFilters.since;
    if (since.startsWith('evt_')) {
      const mine = own.sql(null, 2);
      const rows: Array<{ seq: string }> = await db().query(`SELECT seq FROM events WHERE id = $1 AND ${mine.where}`, [
        since,
        ...mine.params,
      ]);
      // An id the caller cannot see is 404 like every id of another account or of none (spec part 7;
      // the document admits any string, so an unknown id is not a 400).
      if (!rows[0]) throw new DomainError('not_found', 'not_found', `\`since\`: no such event ${since}.`, { param: 'since' });
      sinceSeq = rows[0].seq;
      qb.andWhere('e.seq > :sinceSeq', { sinceSeq });
    } else {
      // RFC 3339 as the document states it (`format: date-time`): `t`/`z` in any case, any number of
      // fractional digits (milliseconds kept), a leap second read as :59.
      const norm = since
        .toUpperCase()
        .replace(/(\.\d{3})\d+/, '$1')
        .replace(/(T\d{2}:\d{2}):60/, '$1:59');
      const t = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(norm) ? Date.parse(norm) : NaN;
      // Year 0 and earlier parse in JavaScript but not in PostgreSQL.
      if (Number.isNaN(t) || t < EARLIEST_SINCE_MS) {
        throw new DomainError('invalid_request', 'parameter_invalid', '`since` must be an `evt_` id or an ISO-8601 timestamp.', {
          param: 'since',
        });
      }
      qb.andWhere('e.created_at >= :sinceT', { sinceT: new Date(t).toISOString() });
    }
  }
  const byTimestamp = eventListFilters.since !== undefined && eventListFilters.since !== '' && sinceSeq === null;
  if ((eventListFilters.object === undefined || eventListFilters.object === '') && !byTimestamp) {
    newestOfEachType(qb, scope, { types: onlyType !== null ? [onlyType] : shipped, limit, cursor: eventListFilters.cursor, sinceSeq });
  }
  return eventsPage(qb, eventListFilters.cursor, limit);
}

/**
 * Narrows an events page (alias `e`) whose only type filter is `types` to the newest `limit + 1`
 * rows of each of those types after the cursor (and after `sinceSeq`; decision 0077, "Events"):
 * each type is one range of events_account_type_idx, so the page reads at most types x (limit + 1)
 * index entries however many events of other types (a payroll run's unshipped item events, say)
 * came last; walking the account's events in `seq` order and skipping those would read all of
 * them. Not for a timestamp filter (a walk per type could then read that type's whole history).
 * An invalid cursor is left to eventsPage's 400. Used by `GET /events` and `GET /activity`.
 */
export function newestOfEachType(
  qb: SelectQueryBuilder<EventRow>,
  scope: AccountScope,
  options: { types: readonly string[]; limit: number; cursor?: string; sinceSeq: string | null },
): void {
  const cursorSeq = options.cursor ? decodeSeqCursor(options.cursor) : null;
  if (options.cursor && !cursorSeq) return;
  const own = scoped(scope).named('x');
  // ARRAY(...) is computed once (an InitPlan); `seq = ANY(array)` then reads those rows by the unique
  // index on seq, rather than walking the account's events with the array as a filter.
  qb.andWhere(
    `e.seq = ANY(ARRAY(SELECT n.seq FROM unnest(CAST(:newestTypes AS text[])) AS t(type) CROSS JOIN LATERAL (
      SELECT x.seq FROM events x
       WHERE ${own.where} AND x.type = t.type
         ${cursorSeq ? 'AND x.seq < :newestBefore' : ''} ${options.sinceSeq ? 'AND x.seq > :newestAfter' : ''}
       ORDER BY x.seq DESC LIMIT :newestPerType) n))`,
    {
      ...own.params,
      newestTypes: [...options.types],
      newestBefore: cursorSeq,
      newestAfter: options.sinceSeq,
      newestPerType: options.limit + 1,
    },
  );
}

/** `GET /events/{id}`: a shipped event `input.id` of the scope's account and mode; `404 not_found` (param `id`) otherwise. */
export async function getEvent(scope: AccountScope, input: { id: string }): Promise<EventRow> {
  const { id } = input;
  const e = await scoped(scope).findOne(EventRow, { id });
  if (!e || !(await currentShippedEventTypes(scope.accountId)).includes(e.type))
    throw new DomainError('not_found', 'not_found', `No such event: ${id}.`, { param: 'id' });
  return e;
}

/**
 * One page of the events of `input.object_id` (its own or naming it as related) of the scope's
 * account and mode, newest first by `seq` (`GET /<resource>/{id}/events`, spec 6). `cursor`: the
 * list cursor of domain/pagination.ts carrying the seq; anything else `400 cursor_invalid`.
 */
export async function objectEvents(
  scope: AccountScope,
  input: { object_id: string; limit?: unknown; cursor?: unknown },
): Promise<EventPage> {
  const query = input;
  const objectId = input.object_id;
  const limit = parseLimit(query.limit);
  let before: string | null = null;
  if (query.cursor !== undefined && query.cursor !== '') {
    const c = typeof query.cursor === 'string' ? decodeCursor(query.cursor) : null;
    if (!c || !isBigintDigits(c.id))
      throw new DomainError('invalid_request', 'cursor_invalid', 'The cursor is not valid for this list.', { param: 'cursor' });
    before = c.id;
  }
  const rows = await scoped(scope)
    .query(EventRow, 'e')
    .andWhere("(e.object_id = :o OR (e.related_object_ids <> '{}' AND e.related_object_ids @> ARRAY[:o]::text[]))", { o: objectId })
    .andWhere(before ? 'e.seq < :before' : 'TRUE', { before })
    .orderBy('e.seq', 'DESC')
    .take(limit + 1)
    .getMany();
  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1];
  return {
    page,
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor({ t: last.created_at.toISOString(), id: String(last.seq) }) : null,
  };
}

/**
 * The stream's resume point for `Last-Event-ID` `input.last_event_id` (spec 6 "Stream"): the
 * event's outbox sequence. Throws `400 parameter_invalid` (param `Last-Event-ID`) for an id the
 * scope cannot see, `409 stream_resume_gap` (with `details.fallback`, the `GET /events?since=`
 * call to catch up with) when the event is older than `input.window_seconds`.
 */
export async function streamResumeSeq(scope: AccountScope, input: { last_event_id: string; window_seconds: number }): Promise<string> {
  const { last_event_id: lastEventId, window_seconds: windowSeconds } = input;
  const mine = scoped(scope).sql(null, 2);
  const rows: Array<{ seq: string; created_at: Date }> = /^evt_[A-Za-z0-9]{1,64}$/.test(lastEventId)
    ? await db().query(`SELECT seq, created_at FROM events WHERE id = $1 AND ${mine.where}`, [lastEventId, ...mine.params])
    : [];
  if (!rows[0])
    throw new DomainError('invalid_request', 'parameter_invalid', `\`Last-Event-ID\`: no such event ${lastEventId}.`, {
      param: 'Last-Event-ID',
    });
  if (Date.now() - rows[0].created_at.getTime() > windowSeconds * 1000) {
    throw new DomainError(
      'conflict',
      'stream_resume_gap',
      `The stream replays only the last ${windowSeconds} seconds of events; catch up with GET /v1/events?since=${lastEventId}, then reconnect without Last-Event-ID.`,
      { param: 'Last-Event-ID', details: { fallback: `/v1/events?since=${lastEventId}`, resume_window_seconds: windowSeconds } },
    );
  }
  return String(rows[0].seq);
}

/** Up to `input.limit` shipped events of the scope after outbox sequence `input.after_seq`, oldest first, only of `input.type` when given (the stream's replay). */
export async function eventsAfter(
  scope: AccountScope,
  input: { after_seq: string; type: string | null; limit: number },
): Promise<EventRow[]> {
  const qb = scoped(scope)
    .query(EventRow, 'e')
    .andWhere('e.type IN (:...shipped)', { shipped: [...(await currentShippedEventTypes(scope.accountId))] })
    .andWhere('e.seq > :c', { c: input.after_seq });
  if (input.type) qb.andWhere('e.type = :t', { t: input.type });
  return qb.orderBy('e.seq', 'ASC').limit(input.limit).getMany();
}
