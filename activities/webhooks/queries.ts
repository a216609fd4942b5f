/**
 * Webhook reads the routes need (spec 2.11, 4.10, 6): visible endpoints and deliveries (same
 * account and mode as the caller, through the scoped finder lib/scoped.ts; deleted endpoints are
 * invisible) and the filtered list queries. Each takes `(scope, input)` (activities/scope.ts).
 * List queries return the query builder, newest-first keyset pagination is applied by the caller
 * (api/pagination.ts `paginate`, alias `w` / `d`).
 */
import type { EntityManager, SelectQueryBuilder } from 'typeorm';
import { DomainError } from '../../domain/errors';
import type { WebhookDeliveryStatus } from '../../domain/webhooks';
import { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../../entities';
import { db } from '../../lib/db';
import { scoped } from '../../lib/scoped';
import type { AccountScope } from '../scope';

const endpointNotFound = (id: string) => new DomainError('not_found', 'not_found', `No such webhook endpoint: ${id}.`, { param: 'id' });
const deliveryNotFound = (id: string) => new DomainError('not_found', 'not_found', `No such webhook delivery: ${id}.`, { param: 'id' });

/** Loads a visible (the scope's account and mode, not deleted) endpoint through `m`, optionally locked FOR UPDATE; `404 not_found` otherwise. */
export async function loadEndpoint(manager: EntityManager, scope: AccountScope, id: string, lock = false): Promise<WebhookEndpoint> {
  const found = scoped(scope, manager);
  const w = lock ? await found.lock(WebhookEndpoint, { id }, () => endpointNotFound(id)) : await found.findOne(WebhookEndpoint, { id });
  if (!w || w.deleted_at) throw endpointNotFound(id);
  return w;
}

/** A visible endpoint (`GET /webhook_endpoints/{id}`); `404 not_found` otherwise. */
export async function getEndpoint(scope: AccountScope, input: { id: string }): Promise<WebhookEndpoint> {
  return loadEndpoint(db().manager, scope, input.id);
}

/** A visible delivery (the scope's account and mode); `404 not_found` otherwise. */
export async function loadDelivery(scope: AccountScope, input: { id: string }): Promise<WebhookDelivery> {
  return scoped(scope).getOne(WebhookDelivery, { id: input.id }, () => deliveryNotFound(input.id));
}

/**
 * A visible delivery with its attempts, oldest first (`GET /webhook_deliveries/{id}`); `404
 * not_found` otherwise. Attempts are kept WEBHOOK_ATTEMPT_RETENTION_DAYS after their delivery's
 * creation (activities/housekeeping/partitions.ts): an older delivery answers with none. The
 * attempts' partition key is their delivery's `created_at`, read in SQL (no rounding through a JS
 * Date), so the read prunes to that delivery's partition.
 */
export async function getDeliveryWithAttempts(
  scope: AccountScope,
  input: { id: string },
): Promise<{ delivery: WebhookDelivery; attempts: WebhookAttempt[] }> {
  const delivery = await loadDelivery(scope, input);
  const attempts = await db()
    .getRepository(WebhookAttempt)
    .createQueryBuilder('a')
    .where('a.delivery_id = :id', { id: delivery.id })
    .andWhere('a.delivery_created_at = (SELECT d.created_at FROM webhook_deliveries d WHERE d.id = :id)')
    .orderBy('a.attempt_number', 'ASC')
    .getMany();
  return { delivery, attempts };
}

/** The scope's non-deleted endpoints (alias `w`), optionally only enabled or disabled ones. */
export function endpointsQuery(scope: AccountScope, filter: { enabled?: boolean }): SelectQueryBuilder<WebhookEndpoint> {
  const qb = scoped(scope).query(WebhookEndpoint, 'w').andWhere('w.deleted_at IS NULL');
  if (filter.enabled !== undefined) qb.andWhere('w.enabled = :en', { en: filter.enabled });
  return qb;
}

/** The scope's deliveries (alias `d`), filtered by endpoint, event and status when given. */
export function deliveriesQuery(
  scope: AccountScope,
  filter: { endpoint_id?: string; event_id?: string; status?: WebhookDeliveryStatus },
): SelectQueryBuilder<WebhookDelivery> {
  const qb = scoped(scope).query(WebhookDelivery, 'd');
  if (filter.endpoint_id) qb.andWhere('d.endpoint_id = :e', { e: filter.endpoint_id });
  if (filter.event_id) qb.andWhere('d.event_id = :ev', { ev: filter.event_id });
  if (filter.status) qb.andWhere('d.status = :s', { s: filter.status });
  return qb;
}
