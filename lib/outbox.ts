/**
 * The append-only events outbox (spec 6, 2.11; ARCHITECTURE.md "Data flow" 3 and 6). Events are
 * written in the same transaction as the state change they describe. After the commit, a NOTIFY
 * on channel `events` (empty payload) tells the dispatcher and the stream to look. It is only a
 * hint, sent outside the writing transaction, at most one in flight per process. A NOTIFY inside
 * the transaction would take PostgreSQL's notify queue lock at commit and serialise every
 * writer's commit. Readers treat the table as the truth: the dispatcher takes undispatched rows,
 * the stream reads a gap-safe tail (activities/events/tail.ts), and both also poll.
 *
 * Every event insert takes the transaction id before the row's `seq` (`pg_current_xact_id()` in a
 * materialised CTE first). The gap-safe tail relies on that order.
 *
 * With `EVENT_SCHEMA_CHECK` on (test stacks), every event's wire form is checked against the
 * documented schema of its type (views/event-schemas.ts, the `/v1` document's `webhooks`) before
 * it is written: a drifting event, or a type without an entry, is logged and thrown.
 */
import type { EntityManager } from 'typeorm';
import { LATEST_VERSION } from '../domain/versioning';
import type { EventRow } from '../entities';
import { eventView } from '../views/event';
import { eventSchemaProblem } from '../views/event-schemas';
import { loadConfig } from './config';
import { newId } from './ids';
import { logger } from './logger';
import { afterCommit, db } from './db';
import { currentTraceParent } from './tracing';

export interface RequestRef {
  id: string | null;
  idempotency_key: string | null;
}

export interface NewEvent {
  accountId: string;
  livemode: boolean;
  type: string;
  /** Object type and id the event is about, e.g. ('payment_link', 'pl_...'). */
  objectType: string;
  objectId: string;
  /** Wire projection of the object at the time of the event (`data.object`). */
  object: Record<string, unknown>;
  /** Other objects whose per-object event lists include this event (e.g. a payment's link). */
  relatedIds?: string[];
  request?: RequestRef | null;
  apiVersion?: string;
}

/** Column list of an event row, in the order of `eventRow`'s values. */
export const EVENT_COLUMNS =
  'id, account_id, livemode, type, object_type, object_id, related_object_ids, data, request_id, idempotency_key, api_version, trace_parent';

/** The values of one event row (a fresh `evt_` id first), in the order of `EVENT_COLUMNS`; `data` is JSON text. */
export function eventRow(
  newEvent: NewEvent,
): [string, string, boolean, string, string, string, string[], string, string | null, string | null, string, string | null] {
  return [...eventRowHead(newEvent), JSON.stringify({ object: newEvent.object }), ...eventRowTail(newEvent)];
}

/** The values of an event row before `data` (a fresh `evt_` id first): for statements that build `data` in SQL. */
export function eventRowHead(newEvent: Omit<NewEvent, 'object'>): [string, string, boolean, string, string, string, string[]] {
  return [
    newId('evt_'),
    newEvent.accountId,
    newEvent.livemode,
    newEvent.type,
    newEvent.objectType,
    newEvent.objectId,
    newEvent.relatedIds ?? [],
  ];
}

/**
 * The values of an event row after `data`: request id, Idempotency-Key, API version, and the
 * `traceparent` of the active span (lib/tracing.ts; null when tracing is off), which the event's
 * webhook deliveries join.
 */
export function eventRowTail(newEvent: Omit<NewEvent, 'object'>): [string | null, string | null, string, string | null] {
  return [
    newEvent.request?.id ?? null,
    newEvent.request?.idempotency_key ?? null,
    newEvent.apiVersion ?? LATEST_VERSION,
    currentTraceParent(),
  ];
}

/**
 * Inserts one event row inside `m`'s transaction (its transaction id taken first, see module doc)
 * and announces it after commit (announceEvents). Returns the `evt_` id.
 */
export async function emitEvent(manager: EntityManager, newEvent: NewEvent): Promise<string> {
  checkEventSchema(newEvent);
  const row = eventRow(newEvent);
  await manager.query(
    `WITH x AS MATERIALIZED (SELECT pg_current_xact_id())
     INSERT INTO events(${EVENT_COLUMNS}) SELECT $1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12 FROM x`,
    row,
  );
  afterCommit(manager, announceEvents);
  return row[0];
}

/** Raised (with `EVENT_SCHEMA_CHECK` on) when an event does not match the documented schema of its type. */
export class EventSchemaDrift extends Error {
  override readonly name = 'EventSchemaDrift';
}

/**
 * With `EVENT_SCHEMA_CHECK` on: builds the wire form `e` will have (views/event.ts `eventView` of
 * its row, its object through JSON as stored) and checks it against views/event-schemas.ts; logs
 * and throws EventSchemaDrift when it does not match or its type has no entry. Off: does nothing.
 */
export function checkEventSchema(newEvent: NewEvent): void {
  if (!loadConfig().eventSchemaCheck) return;
  const row = {
    id: 'evt_check',
    seq: '1',
    account_id: newEvent.accountId,
    livemode: newEvent.livemode,
    type: newEvent.type,
    object_type: newEvent.objectType,
    object_id: newEvent.objectId,
    related_object_ids: newEvent.relatedIds ?? [],
    data: JSON.parse(JSON.stringify({ object: newEvent.object })) as Record<string, unknown>,
    request_id: newEvent.request?.id ?? null,
    idempotency_key: newEvent.request?.idempotency_key ?? null,
    api_version: newEvent.apiVersion ?? LATEST_VERSION,
    created_at: new Date(),
    dispatched_at: null,
    trace_parent: null,
  } satisfies EventRow;
  const problem = eventSchemaProblem(eventView(row));
  if (problem === null) return;
  logger.error({ type: newEvent.type, object_id: newEvent.objectId, problem }, 'event does not match its documented schema');
  throw new EventSchemaDrift(`event ${newEvent.type} (${newEvent.objectId}) does not match its documented schema: ${problem}`);
}

let announcing = false;
let announceAgain = false;

/**
 * Sends `NOTIFY events` (empty payload) after a commit that wrote events. Coalesced: while one is
 * in flight, any number of further calls send one more after it. A failure is logged at debug
 * level only: readers poll as well.
 */
export function announceEvents(): void {
  if (announcing) {
    announceAgain = true;
    return;
  }
  announcing = true;
  void (async () => {
    do {
      announceAgain = false;
      try {
        await db().query(`SELECT pg_notify('events', '')`);
      } catch (err) {
        logger.debug({ err }, 'events announcement failed; readers poll');
      }
    } while (announceAgain);
    announcing = false;
  })();
}

/**
 * Emits inside a SAVEPOINT so a failed insert never aborts the surrounding transaction: the state
 * change commits even when its event cannot be written (spec 6: cancelling a link is never blocked
 * by a failed emit). Returns the event id, or null (logged) on failure.
 */
export async function emitEventNonBlocking(manager: EntityManager, newEvent: NewEvent): Promise<string | null> {
  checkEventSchema(newEvent); // outside the catch below: a drifting event fails loudly
  await manager.query('SAVEPOINT outbox_emit');
  try {
    const id = await emitEvent(manager, newEvent);
    await manager.query('RELEASE SAVEPOINT outbox_emit');
    return id;
  } catch (err) {
    await manager.query('ROLLBACK TO SAVEPOINT outbox_emit');
    logger.error({ err, object_id: newEvent.objectId, type: newEvent.type }, 'event emit failed; state change kept');
    return null;
  }
}
