/**
 * Webhook reads the routes need (spec 2.11, 4.10, 6): visible endpoints and deliveries (same
 * account and mode as the caller; deleted endpoints are invisible) and the filtered list queries.
 * List queries return the query builder, newest-first keyset pagination is applied by the caller
 * (api/pagination.ts `paginate`, alias `w` / `d`).
 */
import type { EntityManager, SelectQueryBuilder } from 'typeorm';
import type { Caller } from '../../domain/caller';
import { DomainError } from '../../domain/errors';
import type { WebhookDeliveryStatus } from '../../domain/webhooks';
import { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../../entities';
import { db } from '../../lib/db';

const endpointNotFound = (id: string) => new DomainError('not_found', 'not_found', `No such webhook endpoint: ${id}.`, { param: 'id' });
const deliveryNotFound = (id: string) => new DomainError('not_found', 'not_found', `No such webhook delivery: ${id}.`, { param: 'id' });

/** Loads a visible (same account and mode, not deleted) endpoint through `m`, optionally locked FOR UPDATE; `404 not_found` otherwise. */
export async function loadEndpoint(m: EntityManager, caller: Caller, id: string, lock = false): Promise<WebhookEndpoint> {
  const w = await m.findOne(WebhookEndpoint, {
    where: { id, account_id: caller.accountId, livemode: caller.livemode },
    ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
  });
  if (!w || w.deleted_at) throw endpointNotFound(id);
  return w;
}

/** A visible endpoint (`GET /webhook_endpoints/{id}`); `404 not_found` otherwise. */
export async function getEndpoint(caller: Caller, id: string): Promise<WebhookEndpoint> {
  return loadEndpoint(db().manager, caller, id);
}

/** A visible delivery (same account and mode); `404 not_found` otherwise. */
export async function loadDelivery(caller: Caller, id: string): Promise<WebhookDelivery> {
  const d = await db().getRepository(WebhookDelivery).findOneBy({ id, account_id: caller.accountId, livemode: caller.livemode });
  if (!d) throw deliveryNotFound(id);
  return d;
}

/** A visible delivery with its attempts, oldest first (`GET /webhook_deliveries/{id}`); `404 not_found` otherwise. */
export async function getDeliveryWithAttempts(caller: Caller, id: string): Promise<{ delivery: WebhookDelivery; attempts: WebhookAttempt[] }> {
  const delivery = await loadDelivery(caller, id);
  const attempts = await db().getRepository(WebhookAttempt).find({ where: { delivery_id: delivery.id }, order: { attempt_number: 'ASC' } });
  return { delivery, attempts };
}

/** The caller's non-deleted endpoints (alias `w`), optionally only enabled or disabled ones. */
export function endpointsQuery(caller: Caller, filter: { enabled?: boolean }): SelectQueryBuilder<WebhookEndpoint> {
  const qb = db().getRepository(WebhookEndpoint).createQueryBuilder('w')
    .where('w.account_id = :a AND w.livemode = :l AND w.deleted_at IS NULL', { a: caller.accountId, l: caller.livemode });
  if (filter.enabled !== undefined) qb.andWhere('w.enabled = :en', { en: filter.enabled });
  return qb;
}

/** The caller's deliveries (alias `d`), filtered by endpoint, event and status when given. */
export function deliveriesQuery(caller: Caller, filter: { endpoint_id?: string; event_id?: string; status?: WebhookDeliveryStatus }): SelectQueryBuilder<WebhookDelivery> {
  const qb = db().getRepository(WebhookDelivery).createQueryBuilder('d')
    .where('d.account_id = :a AND d.livemode = :l', { a: caller.accountId, l: caller.livemode });
  if (filter.endpoint_id) qb.andWhere('d.endpoint_id = :e', { e: filter.endpoint_id });
  if (filter.event_id) qb.andWhere('d.event_id = :ev', { ev: filter.event_id });
  if (filter.status) qb.andWhere('d.status = :s', { s: filter.status });
  return qb;
}
