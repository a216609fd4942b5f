/**
 * The append-only events outbox (spec 6, 2.11; ARCHITECTURE.md "Data flow" 3 and 6). Events are
 * written in the same transaction as the state change they describe, then announced with
 * NOTIFY so the dispatcher and the stream pick them up without polling delay.
 */
import type { EntityManager } from 'typeorm';
import { LATEST_VERSION } from '../domain/versioning';
import { newId } from './ids';
import { logger } from './logger';

export interface RequestRef { id: string | null; idempotency_key: string | null }

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
export const EVENT_COLUMNS = 'id, account_id, livemode, type, object_type, object_id, related_object_ids, data, request_id, idempotency_key, api_version';

/** The values of one event row (a fresh `evt_` id first), in the order of `EVENT_COLUMNS`; `data` is JSON text. */
export function eventRow(e: NewEvent): [string, string, boolean, string, string, string, string[], string, string | null, string | null, string] {
  return [...eventRowHead(e), JSON.stringify({ object: e.object }), ...eventRowTail(e)];
}

/** The values of an event row before `data` (a fresh `evt_` id first): for statements that build `data` in SQL. */
export function eventRowHead(e: Omit<NewEvent, 'object'>): [string, string, boolean, string, string, string, string[]] {
  return [newId('evt_'), e.accountId, e.livemode, e.type, e.objectType, e.objectId, e.relatedIds ?? []];
}

/** The values of an event row after `data`: request id, Idempotency-Key, API version. */
export function eventRowTail(e: Omit<NewEvent, 'object'>): [string | null, string | null, string] {
  return [e.request?.id ?? null, e.request?.idempotency_key ?? null, e.apiVersion ?? LATEST_VERSION];
}

/** Inserts one event row inside `m`'s transaction and queues a NOTIFY on channel `events`. Returns the `evt_` id. */
export async function emitEvent(m: EntityManager, e: NewEvent): Promise<string> {
  const row = eventRow(e);
  // One round trip: the row and its NOTIFY (delivered at commit).
  await m.query(
    `WITH e AS (INSERT INTO events(${EVENT_COLUMNS}) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11) RETURNING id)
     SELECT pg_notify('events', id) FROM e`, row);
  return row[0];
}

/**
 * Emits inside a SAVEPOINT so a failed insert never aborts the surrounding transaction: the state
 * change commits even when its event cannot be written (spec 6: cancelling a link is never blocked
 * by a failed emit). Returns the event id, or null (logged) on failure.
 */
export async function emitEventNonBlocking(m: EntityManager, e: NewEvent): Promise<string | null> {
  await m.query('SAVEPOINT outbox_emit');
  try {
    const id = await emitEvent(m, e);
    await m.query('RELEASE SAVEPOINT outbox_emit');
    return id;
  } catch (err) {
    await m.query('ROLLBACK TO SAVEPOINT outbox_emit');
    logger.error({ err, object_id: e.objectId, type: e.type }, 'event emit failed; state change kept');
    return null;
  }
}
