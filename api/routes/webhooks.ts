/**
 * Webhook endpoints and deliveries (spec 2.11, 4.10, 6, 8 "Secret rotation overlap").
 *
 * - Endpoints (`/webhook_endpoints`, switch `api_v1.webhooks`): create/list/get/update/delete,
 *   `rotate_secret`, `send_test_event`. Deliveries (`/webhook_deliveries`): list/get/replay.
 * - Scopes `developers.read` / `developers.write`; business keys and dashboard sessions; for a
 *   session, create/update/delete/rotate/test need the owner role (else `403 scope_denied`).
 * - Test mode full: a test key sees and manages only test-mode endpoints and deliveries
 *   (`livemode: false`), which receive only test-mode events; live callers see live ones.
 * - `event_types`: closed catalogue on requests (unknown or retired name `400 invalid_request`
 *   param `event_types`, code `event_type_unknown`); empty = all; unshipped names accepted.
 * - Secret: returned only by create and rotate_secret and redacted (null) in their idempotent
 *   replays (`ctx.state.redact`).
 * - URL rule, secrets, soft delete and the per-mode limit: activities/webhooks/commands.ts; reads:
 *   activities/webhooks/queries.ts; status rules: domain/webhooks.ts.
 */
import type Router from '@koa/router';
import { WEBHOOKS_SWITCH } from '../../domain/webhooks';
import {
  createEndpoint,
  deleteEndpoint,
  replayDelivery,
  rotateEndpointSecret,
  sendTestEvent,
  updateEndpoint,
} from '../../activities/webhooks/commands';
import { deliveriesQuery, endpointsQuery, getDeliveryWithAttempts, getEndpoint } from '../../activities/webhooks/queries';
import type { AppState } from '../context';
import { mount } from '../operation';
import { paginate } from '../../lib/pagination';
import {
  createWebhookEndpointBody,
  listWebhookDeliveriesQuery,
  listWebhookEndpointsQuery,
  updateWebhookEndpointBody,
} from '../schemas/webhooks';
import {
  webhookDeliveryListOut,
  webhookDeliveryOut,
  webhookDeliveryView,
  webhookDeliveryWithAttemptsOut,
  webhookEndpointDeletedOut,
  webhookEndpointListOut,
  webhookEndpointOut,
  webhookEndpointUpdatedOut,
  webhookEndpointUpdatedView,
  webhookEndpointView,
  webhookEndpointWithSecretOut,
} from '../../views/webhook';

const OWNER_ONLY = ['owner'] as const;
const SWITCH = WEBHOOKS_SWITCH;

/** Mounts the webhook endpoint and delivery operations (see the module doc). */
export function register(router: Router<AppState>): void {
  mount(router, {
    id: 'webhook_endpoints.create',
    method: 'post',
    path: '/webhook_endpoints',
    scope: 'developers.write',
    testMode: 'full',
    switch: SWITCH,
    roles: [...OWNER_ONLY],
    successStatus: 201,
    response: webhookEndpointWithSecretOut,
    summary: 'Create a webhook endpoint; the signing secret is returned once.',
    body: createWebhookEndpointBody,
    handler: async ({ scope, body, ctx }) => {
      const { endpoint, secret } = await createEndpoint(scope, body);
      ctx.state.redact.push('secret');
      return webhookEndpointView(endpoint, { secret });
    },
  });

  mount(router, {
    id: 'webhook_endpoints.list',
    method: 'get',
    path: '/webhook_endpoints',
    scope: 'developers.read',
    testMode: 'full',
    switch: SWITCH,
    response: webhookEndpointListOut,
    summary: 'List webhook endpoints, newest first.',
    query: listWebhookEndpointsQuery,
    handler: async ({ scope, query }) => paginate(endpointsQuery(scope, query), 'w', query, (w) => webhookEndpointView(w)),
  });

  mount(router, {
    id: 'webhook_endpoints.get',
    method: 'get',
    path: '/webhook_endpoints/:id',
    scope: 'developers.read',
    testMode: 'full',
    switch: SWITCH,
    response: webhookEndpointOut,
    summary: 'Retrieve a webhook endpoint (never its secret).',
    handler: async ({ scope, params }) => webhookEndpointView(await getEndpoint(scope, { id: params.id })),
  });

  mount(router, {
    id: 'webhook_endpoints.update',
    method: 'patch',
    path: '/webhook_endpoints/:id',
    scope: 'developers.write',
    testMode: 'full',
    switch: SWITCH,
    roles: [...OWNER_ONLY],
    response: webhookEndpointUpdatedOut,
    summary:
      'Update url, event_types, description or enabled. Re-enabling with `replay_missed: true` queues, once, a delivery of every event the endpoint missed since `disabled_at` (`missed_events_replayed`).',
    body: updateWebhookEndpointBody,
    handler: async ({ scope, params, body }) => {
      const { endpoint, replayed } = await updateEndpoint(scope, { ...body, id: params.id });
      return webhookEndpointUpdatedView(endpoint, replayed ? { since: replayed.since, count: replayed.deliveries.length } : null);
    },
  });

  mount(router, {
    id: 'webhook_endpoints.delete',
    method: 'delete',
    path: '/webhook_endpoints/:id',
    scope: 'developers.write',
    testMode: 'full',
    switch: SWITCH,
    roles: [...OWNER_ONLY],
    response: webhookEndpointDeletedOut,
    summary: 'Delete a webhook endpoint (queued deliveries are cancelled).',
    handler: async ({ scope, params }) => webhookEndpointView(await deleteEndpoint(scope, { id: params.id }), { deleted: true }),
  });

  mount(router, {
    id: 'webhook_endpoints.rotate_secret',
    method: 'post',
    path: '/webhook_endpoints/:id/rotate_secret',
    scope: 'developers.write',
    testMode: 'full',
    switch: SWITCH,
    roles: [...OWNER_ONLY],
    response: webhookEndpointWithSecretOut,
    summary: 'Rotate the signing secret; the old one keeps signing for 24 hours. The new secret is returned once.',
    handler: async ({ scope, params, ctx }) => {
      const { endpoint, secret } = await rotateEndpointSecret(scope, { id: params.id });
      ctx.state.redact.push('secret');
      return webhookEndpointView(endpoint, { secret });
    },
  });

  mount(router, {
    id: 'webhook_endpoints.send_test_event',
    method: 'post',
    path: '/webhook_endpoints/:id/send_test_event',
    scope: 'developers.write',
    testMode: 'full',
    switch: SWITCH,
    roles: [...OWNER_ONLY],
    response: webhookDeliveryOut,
    summary: 'Deliver a `test.ping` event to this endpoint only; returns the delivery.',
    handler: async ({ scope, params }) => webhookDeliveryView(await sendTestEvent(scope, { id: params.id })),
  });

  mount(router, {
    id: 'webhook_deliveries.list',
    method: 'get',
    path: '/webhook_deliveries',
    scope: 'developers.read',
    testMode: 'full',
    response: webhookDeliveryListOut,
    summary: 'List webhook deliveries, newest first (filters endpoint_id, event_id, status).',
    query: listWebhookDeliveriesQuery,
    handler: async ({ scope, query }) => paginate(deliveriesQuery(scope, query), 'd', query, (d) => webhookDeliveryView(d)),
  });

  mount(router, {
    id: 'webhook_deliveries.get',
    method: 'get',
    path: '/webhook_deliveries/:id',
    scope: 'developers.read',
    testMode: 'full',
    response: webhookDeliveryWithAttemptsOut,
    summary: 'Retrieve a webhook delivery with its attempts.',
    handler: async ({ scope, params }) => {
      const { delivery, attempts } = await getDeliveryWithAttempts(scope, { id: params.id });
      return webhookDeliveryView(delivery, attempts);
    },
  });

  mount(router, {
    id: 'webhook_deliveries.replay',
    method: 'post',
    path: '/webhook_deliveries/:id/replay',
    scope: 'developers.write',
    testMode: 'full',
    response: webhookDeliveryOut,
    summary: 'Deliver the same event to the same endpoint again as a new delivery (`replay_of`).',
    handler: async ({ scope, params }) => webhookDeliveryView(await replayDelivery(scope, { id: params.id })),
  });
}
