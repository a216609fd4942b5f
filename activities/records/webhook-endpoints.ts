/**
 * Webhook endpoint records (spec 2.11, 4.10, 6 `webhook_endpoint.disabled`): one function per
 * transition of domain/webhooks.ts `webhookEndpointTransitions` (the status is derived from
 * `enabled` and `deleted_at`), each setting the columns that make the status with the fields and
 * the event that move with it, and saving the row in the caller's transaction. A move the table
 * refuses throws IllegalTransition (409).
 */
import type { EntityManager } from 'typeorm';
import { ENDPOINT_DISABLED_EVENT_TYPE } from '../../domain/event-types';
import { webhookEndpointStatus, webhookEndpointTransitions, type WebhookEndpointDisabledReason } from '../../domain/webhooks';
import { WebhookEndpoint } from '../../entities';
import { logger } from '../../lib/logger';
import { emitEvent } from '../../lib/outbox';
import { webhookEndpointView } from '../../views/webhook';

/** -> `enabled` by the owner: clears the disable reason and time and the failure streak; saves the row (with any other change the caller made). */
export async function enableWebhookEndpoint(manager: EntityManager, endpoint: WebhookEndpoint): Promise<WebhookEndpoint> {
  webhookEndpointTransitions.assert(webhookEndpointStatus(endpoint), 'enabled');
  endpoint.enabled = true;
  endpoint.disabled_reason = null;
  endpoint.disabled_at = null;
  endpoint.consecutive_failures = 0;
  return manager.save(endpoint);
}

/** -> `disabled` for `change.reason`, stamping `disabled_at`; saves the row (with any other change the caller made). No event (the owner did it). */
export async function disableWebhookEndpoint(
  manager: EntityManager,
  endpoint: WebhookEndpoint,
  change: { reason: WebhookEndpointDisabledReason },
): Promise<WebhookEndpoint> {
  webhookEndpointTransitions.assert(webhookEndpointStatus(endpoint), 'disabled');
  endpoint.enabled = false;
  endpoint.disabled_reason = change.reason;
  endpoint.disabled_at = new Date();
  return manager.save(endpoint);
}

/** -> `deleted` (soft delete, final), stamping `deleted_at`. */
export async function deleteWebhookEndpoint(manager: EntityManager, endpoint: WebhookEndpoint): Promise<WebhookEndpoint> {
  webhookEndpointTransitions.assert(webhookEndpointStatus(endpoint), 'deleted');
  endpoint.deleted_at = new Date();
  return manager.save(endpoint);
}

/**
 * Disables endpoint `endpointId` after repeated failures (`auto_disabled_repeated_failures`) and
 * emits `webhook_endpoint.disabled` (spec 2.11, 6) inside `m`. Returns true when it disabled it
 * (false if already disabled or deleted).
 */
export async function autoDisableWebhookEndpoint(manager: EntityManager, endpointId: string): Promise<boolean> {
  const w = await manager.findOne(WebhookEndpoint, { where: { id: endpointId }, lock: { mode: 'pessimistic_write' } });
  if (!w || !webhookEndpointTransitions.can(webhookEndpointStatus(w), 'disabled')) return false;
  w.enabled = false;
  w.disabled_reason = 'auto_disabled_repeated_failures';
  w.disabled_at = new Date();
  await manager.save(w);
  await emitEvent(manager, {
    accountId: w.account_id,
    livemode: w.livemode,
    type: ENDPOINT_DISABLED_EVENT_TYPE,
    objectType: 'webhook_endpoint',
    objectId: w.id,
    object: webhookEndpointView(w),
  });
  logger.warn({ endpoint_id: w.id, account_id: w.account_id }, 'webhook endpoint auto-disabled after repeated failures');
  return true;
}
