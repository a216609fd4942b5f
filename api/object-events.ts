/**
 * Per-object event lists (spec 6: `GET /<resource>/{id}/events`): events about the object or
 * naming it as related, newest first by outbox sequence, with an opaque cursor. Per-object lists
 * may show catalogued types. The read is activities/events/queries.ts `objectEvents`.
 */
import { objectEvents } from '../activities/events/queries';
import type { Caller } from './context';
import type { ListEnvelope } from '../lib/pagination';
import { eventView, type EventView } from '../views/event';

/** One page of events of `objectId` visible to `caller` (same account and mode), as the list envelope. */
export async function objectEventsPage(
  caller: Caller,
  objectId: string,
  query: { limit?: unknown; cursor?: unknown },
): Promise<ListEnvelope<EventView>> {
  const { page, has_more, next_cursor } = await objectEvents(caller, { ...query, object_id: objectId });
  return { object: 'list', data: page.map(eventView), has_more, next_cursor };
}
