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
import { db } from '../../lib/db';
import { scoped } from '../../lib/scoped';
import type { ActivitySummary } from '../../views/activity';
import { eventsPage, newestOfEachType, type EventPage } from '../events/queries';
import type { AccountScope } from '../scope';

/** Shipped event types that are activity. */
const ACTIVITY_TYPES = LIVE_EVENT_TYPES.filter((t) => activityCategory(t) !== null);

/** Filters of the feed: ISO-8601 `since` (inclusive) / `until` (exclusive), already validated. */
export interface ActivityFilters {
  category?: ActivityCategory;
  type?: string;
  object?: string;
  since?: string;
  until?: string;
}

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
  const qb = scoped(scope)
    .query(EventRow, 'e')
    .andWhere('e.type = ANY(:types)', { types: typesOf(q.category, q.type) });
  if (q.object)
    qb.andWhere("(e.object_id = :o OR (e.related_object_ids <> '{}' AND e.related_object_ids @> ARRAY[:o]::text[]))", { o: q.object });
  if (q.since) qb.andWhere('e.created_at >= :since', { since: new Date(q.since).toISOString() });
  if (q.until) qb.andWhere('e.created_at < :until', { until: new Date(q.until).toISOString() });
  return qb;
}

/** Per event type: how many, the first and the last `created_at`. */
export type TypeCounts = Map<string, { n: number; first: Date; last: Date }>;

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** A part of a period: counted from `events` (`raw`) or summed from the hourly or daily counts; null bound = open. */
interface Segment {
  from: number | null;
  to: number | null;
  kind: 'raw' | 'hourly' | 'daily';
}

/**
 * Splits [since, until) (ms, null = open) into whole UTC days, whole UTC hours and the partial
 * hours at either edge (at most two hours of events counted row by row).
 */
export function periodSegments(since: number | null, until: number | null): Segment[] {
  const up = (t: number, u: number) => Math.ceil(t / u) * u;
  const down = (t: number, u: number) => Math.floor(t / u) * u;
  const hS = since === null ? null : up(since, HOUR_MS);
  const hE = until === null ? null : down(until, HOUR_MS);
  if (hS !== null && hE !== null && hS >= hE) return [{ from: since, to: until, kind: 'raw' }];
  const out: Segment[] = [];
  if (since !== null && since < hS!) out.push({ from: since, to: hS, kind: 'raw' });
  if (until !== null && hE! < until) out.push({ from: hE, to: until, kind: 'raw' });
  const dS = hS === null ? null : up(hS, DAY_MS);
  const dE = hE === null ? null : down(hE, DAY_MS);
  if (dS !== null && dE !== null && dS >= dE) return [...out, { from: hS, to: hE, kind: 'hourly' }];
  if (hS !== null && hS < dS!) out.push({ from: hS, to: dS, kind: 'hourly' });
  if (hE !== null && dE! < hE) out.push({ from: dE, to: hE, kind: 'hourly' });
  out.push({ from: dS, to: dE, kind: 'daily' });
  return out;
}

/** `YYYY-MM-DD HH:MM:SS.mmm` in UTC: a bucket bound (`timestamp`, UTC). */
const utcTimestamp = (t: number) => new Date(t).toISOString().replace('T', ' ').replace('Z', '');

/**
 * Counts of the scope's events of `types` created in [since, until) (ms, null = open), per type
 * (only types with events): whole days and hours from `event_counts_daily` / `event_counts_hourly`
 * (kept by the triggers of migration 1764610100000, statement-level since 1764660000000), the
 * partial hours at the edges from `events`. The same numbers as counting `events`, which `scan`
 * does (the reference the counts are checked against by tests and bench/scale-queries.ts;
 * decision 0077).
 */
export async function eventCountsByType(
  scope: AccountScope,
  types: readonly string[],
  since: number | null,
  until: number | null,
  scan = false,
): Promise<TypeCounts> {
  const out: TypeCounts = new Map();
  const own = scoped(scope).sql(null, 1);
  const segments: Segment[] = scan ? [{ from: since, to: until, kind: 'raw' }] : periodSegments(since, until);
  // One statement (one round trip, one connection): the segments' reads joined by UNION ALL.
  const params: unknown[] = [...own.params, types];
  const selects = segments.map((seg) => {
    const col = seg.kind === 'raw' ? 'created_at' : 'bucket';
    const bound = (t: number) => (seg.kind === 'raw' ? new Date(t).toISOString() : utcTimestamp(t));
    const cast = seg.kind === 'raw' ? 'timestamptz' : 'timestamp';
    let where = `${own.where} AND type = ANY($3)`;
    if (seg.from !== null) {
      params.push(bound(seg.from));
      where += ` AND ${col} >= $${params.length}::${cast}`;
    }
    if (seg.to !== null) {
      params.push(bound(seg.to));
      where += ` AND ${col} < $${params.length}::${cast}`;
    }
    return seg.kind === 'raw'
      ? `(SELECT type, count(*)::text AS n, min(created_at) AS first, max(created_at) AS last FROM events WHERE ${where} GROUP BY type)`
      : `(SELECT type, sum(n)::text AS n, min(first_at) AS first, max(last_at) AS last FROM event_counts_${seg.kind} WHERE ${where} GROUP BY type)`;
  });
  const rows: Array<{ type: string; n: string; first: Date; last: Date }> = await db().query(selects.join(' UNION ALL '), params);
  for (const r of rows) {
    const n = Number(r.n);
    if (n === 0) continue;
    const had = out.get(r.type);
    out.set(
      r.type,
      had
        ? { n: had.n + n, first: r.first < had.first ? r.first : had.first, last: r.last > had.last ? r.last : had.last }
        : { n, first: r.first, last: r.last },
    );
  }
  return out;
}

/** Counts per activity category (every category present, 0 when none). */
function byCategoryOf(counts: TypeCounts): Record<string, number> {
  const out: Record<string, number> = Object.fromEntries(ACTIVITY_CATEGORIES.map((c) => [c, 0]));
  for (const [type, { n }] of counts) {
    const c = activityCategory(type);
    if (c) out[c] += n;
  }
  return out;
}

/** The feed's counts by counting its rows (the `object` filter, which the counts do not key). */
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
 * also the counts per category over every matching row (`q.scan`: by counting the rows, see `eventCountsByType`).
 */
export async function listActivity(
  scope: AccountScope,
  query: ActivityFilters & { limit?: unknown; cursor?: string; summary?: boolean; scan?: boolean },
): Promise<EventPage & { summary?: { total: number; by_category: Record<string, number> } }> {
  const limit = parseLimit(query.limit);
  const qb = base(scope, query);
  const counted = qb.clone();
  if (!query.object && !query.since && !query.until)
    newestOfEachType(qb, scope, { types: typesOf(query.category, query.type), limit, cursor: query.cursor, sinceSeq: null });
  const page = await eventsPage(qb, query.cursor, limit);
  if (!query.summary) return page;
  const byCategory = query.object
    ? await countByCategory(counted)
    : byCategoryOf(
        await eventCountsByType(
          scope,
          typesOf(query.category, query.type),
          query.since ? new Date(query.since).getTime() : null,
          query.until ? new Date(query.until).getTime() : null,
          query.scan,
        ),
      );
  return { ...page, summary: { total: Object.values(byCategory).reduce((x, y) => x + y, 0), by_category: byCategory } };
}

/**
 * `GET /activity/summary`: counts per category and per type over `input.start`..`input.end`
 * (inclusive, exclusive), with the first and last occurrence (from the event counts, or `input.scan`
 * by counting: `eventCountsByType`).
 */
export async function activitySummary(scope: AccountScope, input: { start: Date; end: Date; scan?: boolean }): Promise<ActivitySummary> {
  const { start, end } = input;
  const counts = await eventCountsByType(scope, ACTIVITY_TYPES, start.getTime(), end.getTime(), input.scan);
  const byType: Record<string, number> = {};
  const byCategory: Record<string, number> = {};
  let firstAt: Date | null = null;
  let lastAt: Date | null = null;
  for (const [type, { n, first, last }] of [...counts].sort(([x], [y]) => x.localeCompare(y))) {
    byType[type] = n;
    const c = activityCategory(type)!;
    byCategory[c] = (byCategory[c] ?? 0) + n;
    if (!firstAt || first < firstAt) firstAt = first;
    if (!lastAt || last > lastAt) lastAt = last;
  }
  return {
    livemode: scope.livemode,
    start,
    end,
    total: Object.values(byType).reduce((x, y) => x + y, 0),
    byCategory,
    byType,
    firstAt,
    lastAt,
  };
}
