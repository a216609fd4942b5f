/**
 * Account activity (spec 4.10 `GET /activity`, `GET /activity/summary`; part 6): a human-readable
 * feed over the events outbox, scope `activity.read`, business keys and dashboard sessions, not
 * available in test mode (spec 1 rule 5). Only shipped event types appear (never `test.ping`).
 *
 * `GET /activity`: newest first (outbox order), opaque cursor. Filters: `category` (one of
 * ACTIVITY_CATEGORIES, else `400` param `category`), `type` (closed catalogue, unknown `400
 * event_type_unknown`; an unshipped type matches nothing), `object` (an object id, also matching
 * related objects), `since` / `until` (ISO-8601; occurred at or after / before). `expand=summary`
 * adds counts per category over every matching row.
 * `GET /activity/summary`: counts over `since`..`until` (default: the 30 days before now) per
 * category and per type, with the first and last occurrence; `until` not after `since` is `400`.
 */
import type Router from '@koa/router';
import Joi from 'joi';
import type { SelectQueryBuilder } from 'typeorm';
import { ACTIVITY_CATEGORIES, activityCategory, type ActivityCategory } from '../../domain/activity';
import { isKnownEventType, LIVE_EVENT_TYPES } from '../../domain/event-types';
import { DomainError } from '../../domain/errors';
import { parseLimit } from '../../domain/pagination';
import { EventRow } from '../../entities';
import { db } from '../../lib/db';
import type { AppState, Caller } from '../context';
import { mount } from '../operation';
import { wantsExpand } from '../pagination';
import { listQuery } from '../schemas/common';
import { listEnvelope } from '../../views/schema';
import { activityResponse, activitySummaryResponse, activitySummaryView, activityView, byCategoryResponse } from '../../views/activity';
import { eventsPage } from './events';

/** Shipped event types that are activity. */
const ACTIVITY_TYPES = LIVE_EVENT_TYPES.filter((t) => activityCategory(t) !== null);
const iso = Joi.string().isoDate();

function typesOf(category: ActivityCategory | undefined, type: string | undefined): string[] {
  let types = ACTIVITY_TYPES;
  if (category) types = types.filter((t) => activityCategory(t) === category);
  if (type !== undefined) {
    if (!isKnownEventType(type)) throw new DomainError('invalid_request', 'event_type_unknown', `Unknown event type \`${type}\`.`, { param: 'type' });
    types = types.filter((t) => t === type);
  }
  return types;
}

function base(caller: Caller, q: Record<string, any>): SelectQueryBuilder<EventRow> {
  const qb = db().getRepository(EventRow).createQueryBuilder('e')
    .where('e.account_id = :a AND e.livemode = :l', { a: caller.accountId, l: caller.livemode })
    .andWhere('e.type = ANY(:types)', { types: typesOf(q.category, q.type) });
  if (q.object) qb.andWhere('(e.object_id = :o OR e.related_object_ids @> ARRAY[:o]::text[])', { o: q.object });
  if (q.since) qb.andWhere('e.created_at >= :since', { since: new Date(q.since).toISOString() });
  if (q.until) qb.andWhere('e.created_at < :until', { until: new Date(q.until).toISOString() });
  return qb;
}

async function countByCategory(qb: SelectQueryBuilder<EventRow>): Promise<Record<string, number>> {
  const rows = await qb.select('e.type', 'type').addSelect('count(*)', 'n').groupBy('e.type').getRawMany<{ type: string; n: string }>();
  const out: Record<string, number> = Object.fromEntries(ACTIVITY_CATEGORIES.map((c) => [c, 0]));
  for (const r of rows) {
    const c = activityCategory(r.type);
    if (c) out[c] += Number(r.n);
  }
  return out;
}

/** Mounts the activity reads (see the module doc). */
export function register(r: Router<AppState>): void {
  mount(r, {
    id: 'activity.list', method: 'get', path: '/activity', scope: 'activity.read', testMode: 'unavailable',
    summary: 'The account activity feed, newest first.',
    query: Joi.object({
      ...listQuery,
      category: Joi.string().valid(...ACTIVITY_CATEGORIES),
      type: Joi.string().max(100),
      object: Joi.string().max(255),
      since: iso,
      until: iso,
    }),
    response: listEnvelope(activityResponse, Joi.object({ total: Joi.number().integer().min(0).required(), by_category: byCategoryResponse.required() })),
    handler: async ({ caller, query }) => {
      const limit = parseLimit(query.limit);
      const qb = base(caller, query);
      const counted = qb.clone();
      const { page, has_more, next_cursor } = await eventsPage(qb, query.cursor, limit);
      const envelope = { object: 'list' as const, data: page.map(activityView), has_more, next_cursor };
      if (!wantsExpand(query.expand, 'summary')) return envelope;
      const byCategory = await countByCategory(counted);
      return { ...envelope, summary: { total: Object.values(byCategory).reduce((x, y) => x + y, 0), by_category: byCategory } };
    },
  });

  mount(r, {
    id: 'activity.get_summary', method: 'get', path: '/activity/summary', scope: 'activity.read', testMode: 'unavailable',
    summary: 'Activity counts per category and type over a period (default: the last 30 days).',
    query: Joi.object({ since: iso, until: iso }),
    response: activitySummaryResponse,
    handler: async ({ caller, query }) => {
      const end = query.until ? new Date(query.until) : new Date();
      const start = query.since ? new Date(query.since) : new Date(end.getTime() - 30 * 86_400_000);
      if (end.getTime() <= start.getTime()) throw new DomainError('invalid_request', 'parameter_invalid', '`until` must be after `since`.', { param: 'until' });
      const qb = base(caller, { since: start.toISOString(), until: end.toISOString() });
      const rows = await qb.select('e.type', 'type').addSelect('count(*)', 'n').addSelect('min(e.created_at)', 'first').addSelect('max(e.created_at)', 'last')
        .groupBy('e.type').getRawMany<{ type: string; n: string; first: Date; last: Date }>();
      const byType: Record<string, number> = {};
      const byCategory: Record<string, number> = {};
      let firstAt: Date | null = null;
      let lastAt: Date | null = null;
      for (const row of rows.sort((x, y) => x.type.localeCompare(y.type))) {
        const n = Number(row.n);
        byType[row.type] = n;
        const c = activityCategory(row.type)!;
        byCategory[c] = (byCategory[c] ?? 0) + n;
        const f = new Date(row.first);
        const l = new Date(row.last);
        if (!firstAt || f < firstAt) firstAt = f;
        if (!lastAt || l > lastAt) lastAt = l;
      }
      return activitySummaryView({
        livemode: caller.livemode, start, end, total: Object.values(byType).reduce((x, y) => x + y, 0), byCategory, byType, firstAt, lastAt,
      });
    },
  });
}
