/**
 * Account activity reads (spec 4.10 `GET /activity`, `GET /activity/summary`; part 6): the feed
 * over the events outbox (shipped types with an activity category only, never `test.ping`) and
 * its counts. Categories and descriptions: domain/activity.ts.
 */
import type { SelectQueryBuilder } from 'typeorm';
import { ACTIVITY_CATEGORIES, activityCategory, type ActivityCategory } from '../../domain/activity';
import { checkEventTypeParam, LIVE_EVENT_TYPES } from '../../domain/event-types';
import { parseLimit } from '../../domain/pagination';
import { EventRow } from '../../entities';
import { scoped } from '../../lib/scoped';
import type { ActivitySummary } from '../../views/activity';
import { eventsPage, type EventPage } from '../events/queries';
import type { AccountScope } from '../scope';

/** Shipped event types that are activity. */
const ACTIVITY_TYPES = LIVE_EVENT_TYPES.filter((t) => activityCategory(t) !== null);

/** Filters of the feed: ISO-8601 `since` (inclusive) / `until` (exclusive), already validated. */
export interface ActivityFilters { category?: ActivityCategory; type?: string; object?: string; since?: string; until?: string }

function typesOf(category: ActivityCategory | undefined, type: string | undefined): string[] {
  let types = ACTIVITY_TYPES;
  if (category) types = types.filter((t) => activityCategory(t) === category);
  if (type !== undefined) {
    const only = checkEventTypeParam(type);
    types = types.filter((t) => t === only);
  }
  return types;
}

function base(scope: AccountScope, q: ActivityFilters): SelectQueryBuilder<EventRow> {
  const qb = scoped(scope).query(EventRow, 'e')
    .andWhere('e.type = ANY(:types)', { types: typesOf(q.category, q.type) });
  if (q.object) qb.andWhere("(e.object_id = :o OR (e.related_object_ids <> '{}' AND e.related_object_ids @> ARRAY[:o]::text[]))", { o: q.object });
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

/**
 * `GET /activity`: one page of the feed, newest first (outbox order, cursor as `GET /events`).
 * `type` unknown: `400 event_type_unknown` (an unshipped type matches nothing). With `q.summary`,
 * also the counts per category over every matching row.
 */
export async function listActivity(scope: AccountScope, q: ActivityFilters & { limit?: unknown; cursor?: string; summary?: boolean }):
  Promise<EventPage & { summary?: { total: number; by_category: Record<string, number> } }> {
  const limit = parseLimit(q.limit);
  const qb = base(scope, q);
  const counted = qb.clone();
  const page = await eventsPage(qb, q.cursor, limit);
  if (!q.summary) return page;
  const byCategory = await countByCategory(counted);
  return { ...page, summary: { total: Object.values(byCategory).reduce((x, y) => x + y, 0), by_category: byCategory } };
}

/**
 * `GET /activity/summary`: counts per category and per type over `input.start`..`input.end`
 * (inclusive, exclusive), with the first and last occurrence.
 */
export async function activitySummary(scope: AccountScope, input: { start: Date; end: Date }): Promise<ActivitySummary> {
  const { start, end } = input;
  const qb = base(scope, { since: start.toISOString(), until: end.toISOString() });
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
  return { livemode: scope.livemode, start, end, total: Object.values(byType).reduce((x, y) => x + y, 0), byCategory, byType, firstAt, lastAt };
}
