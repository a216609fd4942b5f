/**
 * `GET /events/stream` (spec 6 "Stream", 4.10): Server-Sent Events, one frame per event
 * (`id:` event id, `event:` type, `data:` the envelope exactly as `GET /events/{id}` renders it),
 * comment-frame heartbeats. Scope `events.read`, business keys (`x-api-key` or `Authorization:
 * Bearer`) and dashboard sessions; switch `api_v1.events`; unavailable in test mode (spec 1 rule 5).
 * Mounted before `GET /events/{id}` so `stream` is never taken for an id.
 *
 * Resume: `Last-Event-ID` (header) replays the events after that id, then streams live. Errors,
 * answered before the stream opens:
 * - an id the caller cannot see: `400 invalid_request` `parameter_invalid`, param `Last-Event-ID`;
 * - an event older than the resume window (STREAM_RESUME_WINDOW_SECONDS, default 24 h): the gap is
 *   not bridged, `409 conflict` `stream_resume_gap` with `details.fallback` naming the
 *   `GET /events?since=<id>` call to catch up with before reconnecting without `Last-Event-ID`;
 * - optional `type` filter: closed catalogue, unknown `400 event_type_unknown` param `type`;
 * - the process's LISTEN connection down for 3 s: `503 temporarily_unavailable` `stream_unavailable`.
 */
import type Router from '@koa/router';
import Joi from '../schemas/joi';
import { eventTypeParam } from '../schemas/common';
import { streamResumeSeq } from '../../activities/events/queries';
import { checkEventTypeParam } from '../../domain/event-types';
import { DomainError } from '../../domain/errors';
import { loadConfig } from '../../lib/config';
import type { AppState } from '../context';
import { mount } from '../operation';
import { openStream } from '../stream-hub';

/** Mounts `GET /events/stream` (see the module doc). */
export function register(router: Router<AppState>): void {
  mount(router, {
    id: 'events.stream',
    method: 'get',
    path: '/events/stream',
    scope: 'events.read',
    testMode: 'unavailable',
    switch: 'api_v1.events',
    summary: 'Stream events as Server-Sent Events (resume with Last-Event-ID).',
    query: Joi.object({ type: eventTypeParam }),
    responseContentType: 'text/event-stream',
    response: Joi.string().description(
      'text/event-stream: frames `id`, `event`, `data` (the Event envelope as GET /events/{id}); comment heartbeats',
    ),
    handler: async ({ caller, scope, query, ctx }) => {
      const type = query.type !== undefined ? checkEventTypeParam(query.type) : null;
      const last = ctx.get('Last-Event-ID').trim();
      const afterSeq = last
        ? await streamResumeSeq(scope, { last_event_id: last, window_seconds: loadConfig().streamResumeWindowSeconds })
        : null;
      const body = await openStream(ctx, { caller, type, afterSeq });
      if (!body)
        throw new DomainError('temporarily_unavailable', 'stream_unavailable', 'The event stream is briefly unavailable. Retry shortly.', {
          details: { retry_after_seconds: 5 },
        });
      return body;
    },
  });
}
