/**
 * Events (spec 4.10 `/events`, 6): `GET /events` and `GET /events/{id}`, scope `events.read`,
 * business keys and dashboard sessions, switch `api_v1.events`, not available in test mode
 * (spec 1 rule 5: test-mode callers reach only per-object event lists). Events are never
 * created through the API. Only shipped types are listed or retrievable; catalogued-but-unshipped
 * events (kept for per-object lists) answer as if absent.
 *
 * List: newest first by outbox sequence (`seq`), list envelope with an opaque cursor over seq.
 * Filters (all optional, combinable):
 * - `type`: one catalogued event type (closed catalogue: unknown or retired `400 invalid_request`
 *   param `type`); an unshipped type is accepted and matches nothing.
 * - `object`: an object id; events whose `object_id` is it or whose related objects include it.
 * - `since`: either an `evt_` id (events strictly after that event in outbox order; an id the
 *   caller cannot see is `400` param `since`) or an ISO-8601 timestamp (events created at or
 *   after it). The id form is exact and is what the stream's `Last-Event-ID` fallback uses.
 */
import type Router from '@koa/router';
import Joi from 'joi';
import { isKnownEventType, LIVE_EVENT_TYPES } from '../../domain/event-types';
import { DomainError } from '../../domain/errors';
import { base64UrlDecode, base64UrlEncode, isBigintDigits, parseLimit, utf8Decode, utf8Encode } from '../../domain/pagination';
import { EventRow } from '../../entities';
import type { SelectQueryBuilder } from 'typeorm';
import { db } from '../../lib/db';
import type { AppState } from '../context';
import { mount } from '../operation';
import type { ListEnvelope } from '../pagination';
import { listQuery } from '../schemas/common';
import { eventResponse, eventView, type EventView } from '../../views/event';
import { listEnvelope } from '../../views/schema';

const SHIPPED = [...LIVE_EVENT_TYPES];
/** `since` timestamps before 0001-01-01T00:00:00Z are refused (PostgreSQL has no year 0). */
const EARLIEST_SINCE_MS = Date.parse('0001-01-01T00:00:00Z');

/** Opaque list cursor: unpadded base64url of `{"s":"<seq>"}`. */
export function encodeSeqCursor(seq: string): string {
  return base64UrlEncode(utf8Encode(JSON.stringify({ s: seq })));
}

/**
 * One page of an events query (alias `e`), newest first by `seq` (spec 8 list rules): `cursor` is
 * `encodeSeqCursor` output; throws `400 cursor_invalid` for anything else.
 */
export async function eventsPage(qb: SelectQueryBuilder<EventRow>, cursor: string | undefined, limit: number): Promise<{ page: EventRow[]; has_more: boolean; next_cursor: string | null }> {
  if (cursor !== undefined && cursor !== '') {
    const seq = decodeSeqCursor(cursor);
    if (!seq) throw new DomainError('invalid_request', 'cursor_invalid', 'The cursor is not valid for this list.', { param: 'cursor' });
    qb.andWhere('e.seq < :cursorSeq', { cursorSeq: seq });
  }
  const rows = await qb.orderBy('e.seq', 'DESC').limit(limit + 1).getMany();
  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  return { page, has_more: hasMore, next_cursor: hasMore ? encodeSeqCursor(String(page[page.length - 1].seq)) : null };
}

/** Decodes `encodeSeqCursor` output; null for anything else. */
export function decodeSeqCursor(c: string): string | null {
  if (typeof c !== 'string' || c.length === 0 || c.length > 200) return null;
  const bytes = base64UrlDecode(c);
  const text = bytes ? utf8Decode(bytes) : null;
  if (text === null) return null;
  try {
    const v = JSON.parse(text) as { s?: unknown };
    return v && typeof v === 'object' && Object.keys(v).length === 1 && isBigintDigits(v.s) ? v.s : null;
  } catch {
    return null;
  }
}

const notFound = (id: string) => new DomainError('not_found', 'not_found', `No such event: ${id}.`, { param: 'id' });

/** Mounts `GET /events` and `GET /events/{id}` (see the module doc). */
export function register(r: Router<AppState>): void {
  mount(r, {
    id: 'events.list', method: 'get', path: '/events', scope: 'events.read', testMode: 'unavailable', switch: 'api_v1.events',
    response: listEnvelope(eventResponse),
    summary: 'List events, newest first (filters type, object, since).',
    query: Joi.object({
      ...listQuery,
      type: Joi.string().max(100),
      object: Joi.string().max(255),
      since: Joi.string().max(64),
    }),
    handler: async ({ caller, query }): Promise<ListEnvelope<EventView>> => {
      const limit = parseLimit(query.limit);
      const qb = db().getRepository(EventRow).createQueryBuilder('e')
        .where('e.account_id = :a', { a: caller.accountId })
        .andWhere('e.livemode = :l', { l: caller.livemode })
        .andWhere('e.type = ANY(:shipped)', { shipped: SHIPPED });
      if (query.type !== undefined) {
        if (!isKnownEventType(query.type)) {
          throw new DomainError('invalid_request', 'event_type_unknown', `Unknown event type \`${query.type}\`.`, { param: 'type' });
        }
        qb.andWhere('e.type = :t', { t: query.type });
      }
      if (query.object !== undefined && query.object !== '') {
        qb.andWhere('(e.object_id = :o OR e.related_object_ids @> ARRAY[:o]::text[])', { o: query.object });
      }
      if (query.since !== undefined && query.since !== '') {
        const since: string = query.since;
        if (since.startsWith('evt_')) {
          const rows: Array<{ seq: string }> = await db().query(
            'SELECT seq FROM events WHERE id = $1 AND account_id = $2 AND livemode = $3', [since, caller.accountId, caller.livemode]);
          if (!rows[0]) throw new DomainError('invalid_request', 'parameter_invalid', `\`since\`: no such event ${since}.`, { param: 'since' });
          qb.andWhere('e.seq > :sinceSeq', { sinceSeq: rows[0].seq });
        } else {
          const t = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(since) ? Date.parse(since) : NaN;
          // Year 0 and earlier parse in JavaScript but not in PostgreSQL.
          if (Number.isNaN(t) || t < EARLIEST_SINCE_MS) {
            throw new DomainError('invalid_request', 'parameter_invalid', '`since` must be an `evt_` id or an ISO-8601 timestamp.', { param: 'since' });
          }
          qb.andWhere('e.created_at >= :sinceT', { sinceT: new Date(t).toISOString() });
        }
      }
      const { page, has_more, next_cursor } = await eventsPage(qb, query.cursor, limit);
      return { object: 'list', data: page.map(eventView), has_more, next_cursor };
    },
  });

  mount(r, {
    id: 'events.get', method: 'get', path: '/events/:id', scope: 'events.read', testMode: 'unavailable', switch: 'api_v1.events',
    response: eventResponse,
    summary: 'Retrieve one event.',
    handler: async ({ caller, params }) => {
      const e = await db().getRepository(EventRow).findOneBy({ id: params.id, account_id: caller.accountId, livemode: caller.livemode });
      if (!e || !SHIPPED.includes(e.type)) throw notFound(params.id);
      return eventView(e);
    },
  });
}
