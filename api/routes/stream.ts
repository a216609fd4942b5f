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
import Joi from 'joi';
import { isKnownEventType } from '../../domain/event-types';
import { DomainError } from '../../domain/errors';
import { loadConfig } from '../../lib/config';
import { db } from '../../lib/db';
import type { AppState } from '../context';
import { mount } from '../operation';
import { openStream } from '../stream-hub';

/** Mounts `GET /events/stream` (see the module doc). */
export function register(r: Router<AppState>): void {
  mount(r, {
    id: 'events.stream', method: 'get', path: '/events/stream', scope: 'events.read', testMode: 'unavailable', switch: 'api_v1.events',
    summary: 'Stream events as Server-Sent Events (resume with Last-Event-ID).',
    query: Joi.object({ type: Joi.string().max(100) }),
    responseContentType: 'text/event-stream',
    response: Joi.string().description('text/event-stream: frames `id`, `event`, `data` (the Event envelope as GET /events/{id}); comment heartbeats'),
    handler: async ({ caller, query, ctx }) => {
      let type: string | null = null;
      if (query.type !== undefined) {
        if (!isKnownEventType(query.type)) {
          throw new DomainError('invalid_request', 'event_type_unknown', `Unknown event type \`${query.type}\`.`, { param: 'type' });
        }
        type = query.type;
      }
      let afterSeq: string | null = null;
      const last = ctx.get('Last-Event-ID').trim();
      if (last) {
        const rows: Array<{ seq: string; created_at: Date }> = /^evt_[A-Za-z0-9]{1,64}$/.test(last)
          ? await db().query('SELECT seq, created_at FROM events WHERE id = $1 AND account_id = $2 AND livemode = $3', [last, caller.accountId, caller.livemode])
          : [];
        if (!rows[0]) throw new DomainError('invalid_request', 'parameter_invalid', `\`Last-Event-ID\`: no such event ${last}.`, { param: 'Last-Event-ID' });
        const windowS = loadConfig().streamResumeWindowSeconds;
        if (Date.now() - rows[0].created_at.getTime() > windowS * 1000) {
          throw new DomainError('conflict', 'stream_resume_gap',
            `The stream replays only the last ${windowS} seconds of events; catch up with GET /v1/events?since=${last}, then reconnect without Last-Event-ID.`,
            { param: 'Last-Event-ID', details: { fallback: `/v1/events?since=${last}`, resume_window_seconds: windowS } });
        }
        afterSeq = String(rows[0].seq);
      }
      const body = await openStream(ctx, { caller, type, afterSeq });
      if (!body) throw new DomainError('temporarily_unavailable', 'stream_unavailable', 'The event stream is briefly unavailable. Retry shortly.', { details: { retry_after_seconds: 5 } });
      return body;
    },
  });
}
