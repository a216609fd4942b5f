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
 *   caller cannot see is `404 not_found` param `since`) or an ISO-8601 timestamp (events created at or
 *   after it). The id form is exact and is what the stream's `Last-Event-ID` fallback uses.
 * Reads: activities/events/queries.ts.
 */
import type Router from '@koa/router';
import Joi from '../schemas/joi';
import { getEvent, listEvents } from '../../activities/events/queries';
import type { AppState } from '../context';
import { mount } from '../operation';
import type { ListEnvelope } from '../../lib/pagination';
import { documentedAs, eventTypeParam, listQuery } from '../schemas/common';
import { eventResponse, eventView, type EventView } from '../../views/event';
import { listEnvelope } from '../../views/schema';

/** Mounts `GET /events` and `GET /events/{id}` (see the module doc). */
export function register(router: Router<AppState>): void {
  mount(router, {
    id: 'events.list',
    method: 'get',
    path: '/events',
    scope: 'events.read',
    testMode: 'unavailable',
    switch: 'api_v1.events',
    response: listEnvelope(eventResponse),
    summary: 'List events, newest first (filters type, object, since).',
    query: Joi.object({
      ...listQuery,
      type: eventTypeParam,
      object: Joi.string().max(255),
      since: documentedAs(Joi.string().max(64), {
        anyOf: [
          { type: 'string', pattern: '^evt_[A-Za-z0-9]+$', maxLength: 64 },
          { type: 'string', format: 'date-time', maxLength: 64 },
        ],
        description:
          'An `evt_` id of this account (events after it; an id the caller cannot see is `404 not_found`) or an RFC 3339 timestamp (events at or after it).',
      }),
    }),
    handler: async ({ scope, query }): Promise<ListEnvelope<EventView>> => {
      const { page, has_more, next_cursor } = await listEvents(scope, query);
      return { object: 'list', data: page.map(eventView), has_more, next_cursor };
    },
  });

  mount(router, {
    id: 'events.get',
    method: 'get',
    path: '/events/:id',
    scope: 'events.read',
    testMode: 'unavailable',
    switch: 'api_v1.events',
    response: eventResponse,
    summary: 'Retrieve one event.',
    handler: async ({ scope, params }) => eventView(await getEvent(scope, { id: params.id })),
  });
}
