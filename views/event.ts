/** Wire projection of an outbox event (spec 2.11 Event, part 6 envelope). */
import type { EventRow } from '../entities';
import Joi from 'joi';
import { at, bool, kind, text, textOrNull } from './schema';

/** Event envelope as sent on the wire by `GET /events`, the stream and webhook deliveries. */
export interface EventView {
  id: string;
  object: 'event';
  type: string;
  created_at: string;
  livemode: boolean;
  api_version: string;
  /** The outbox sequence: increases with every event of the same object (a receiver keeps the highest seen and discards a lower one). */
  sequence: number;
  data: { object: Record<string, unknown> };
  request: { id: string | null; idempotency_key: string | null };
}

/**
 * Projects a stored event. `sequence` is the outbox sequence: every writer of one object holds its
 * row lock, so an object's events are numbered in commit order, and a receiver that keeps the highest
 * sequence seen per `data.object.id` can discard a stale (lower) one without strict delivery order.
 * Stored `data` is `{ object: {...} }`; `data.object` always carries
 * `id` (the stored projection's id, else the row's `object_id`) and `type` (= the row's
 * `object_type`, e.g. `payment_link`; spec 2.11 gives `data.object.type` that meaning, so it
 * wins over any stored `type` key).
 */
export function eventView(eventRow: EventRow): EventView {
  const stored = eventRow.data && typeof eventRow.data === 'object' ? (eventRow.data as { object?: unknown }).object : null;
  const obj = stored && typeof stored === 'object' && !Array.isArray(stored) ? (stored as Record<string, unknown>) : {};
  return {
    id: eventRow.id,
    object: 'event',
    type: eventRow.type,
    created_at: eventRow.created_at.toISOString(),
    livemode: eventRow.livemode,
    api_version: eventRow.api_version,
    sequence: Number(eventRow.seq),
    data: { object: { ...obj, id: typeof obj.id === 'string' ? obj.id : eventRow.object_id, type: eventRow.object_type } },
    request: { id: eventRow.request_id, idempotency_key: eventRow.idempotency_key },
  };
}

/** Response schema of `eventView`; `data.object` is the object's projection (open shape) with `id` and `type`. */
export const eventResponse = Joi.object({
  id: text(),
  object: kind('event'),
  type: text(),
  created_at: at(),
  livemode: bool(),
  api_version: text(),
  sequence: Joi.number().integer().min(1).required(),
  data: Joi.object({ object: Joi.object({ id: text(), type: text() }).unknown(true).required() }).required(),
  request: Joi.object({ id: textOrNull(), idempotency_key: textOrNull() }).required(),
});
