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
 * Reads: activities/activity/queries.ts; period rule: domain/activity.ts.
 */
import type Router from '@koa/router';
import Joi from '../schemas/joi';
import { activitySummary, listActivity } from '../../activities/activity/queries';
import { ACTIVITY_CATEGORIES, activityPeriod } from '../../domain/activity';
import type { AppState } from '../context';
import { mount } from '../operation';
import { wantsExpand } from '../../lib/pagination';
import { eventTypeParam, listQuery } from '../schemas/common';
import { listEnvelope } from '../../views/schema';
import { activityResponse, activitySummaryResponse, activitySummaryView, activityView, byCategoryResponse } from '../../views/activity';

const iso = Joi.string().isoDate();

/** Mounts the activity reads (see the module doc). */
export function register(router: Router<AppState>): void {
  mount(router, {
    id: 'activity.list',
    method: 'get',
    path: '/activity',
    scope: 'activity.read',
    testMode: 'unavailable',
    summary: 'The account activity feed, newest first.',
    query: Joi.object({
      ...listQuery,
      category: Joi.string().valid(...ACTIVITY_CATEGORIES),
      type: eventTypeParam,
      object: Joi.string().max(255),
      since: iso,
      until: iso,
    }),
    response: listEnvelope(
      activityResponse,
      Joi.object({ total: Joi.number().integer().min(0).required(), by_category: byCategoryResponse.required() }),
    ),
    handler: async ({ scope, query }) => {
      const { page, has_more, next_cursor, summary } = await listActivity(scope, {
        ...query,
        summary: wantsExpand(query.expand, 'summary'),
      });
      return { object: 'list' as const, data: page.map(activityView), has_more, next_cursor, ...(summary ? { summary } : {}) };
    },
  });

  mount(router, {
    id: 'activity.get_summary',
    method: 'get',
    path: '/activity/summary',
    scope: 'activity.read',
    testMode: 'unavailable',
    summary: 'Activity counts per category and type over a period (default: the last 30 days).',
    query: Joi.object({ since: iso, until: iso }),
    response: activitySummaryResponse,
    handler: async ({ scope, query }) => {
      const { start, end } = activityPeriod(query.since, query.until, new Date());
      return activitySummaryView(await activitySummary(scope, { start, end }));
    },
  });
}
