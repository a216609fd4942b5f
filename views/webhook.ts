/** Wire projections of webhook endpoints, deliveries and attempts (spec 2.11, 4.10, 6). */
import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../entities';

const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

/**
 * Webhook endpoint. `secret` (full `whsec_...` signing secret) appears only when passed, i.e. in
 * create and rotate_secret responses (spec 2.11); `secret_prefix` is always readable.
 * `previous_secret_expires_at` is set while a rotated-out secret still signs (24 h overlap, spec 8).
 * `deleted: true` is added to the DELETE response.
 */
export function webhookEndpointView(w: WebhookEndpoint, opts: { secret?: string; deleted?: boolean; now?: Date } = {}): Record<string, unknown> {
  const now = opts.now ?? new Date();
  const overlap = w.previous_secret_ciphertext && w.previous_secret_expires_at && w.previous_secret_expires_at > now
    ? w.previous_secret_expires_at : null;
  return {
    id: w.id,
    object: 'webhook_endpoint',
    livemode: w.livemode,
    url: w.url,
    event_types: w.event_types,
    enabled: w.enabled,
    disabled_reason: w.enabled ? null : w.disabled_reason,
    description: w.description,
    secret_prefix: w.secret_prefix,
    previous_secret_expires_at: iso(overlap),
    created_at: w.created_at.toISOString(),
    updated_at: w.updated_at.toISOString(),
    ...(opts.secret !== undefined ? { secret: opts.secret } : {}),
    ...(opts.deleted ? { deleted: true } : {}),
  };
}

/** One HTTP attempt of a delivery: status code (null when no response), latency in ms, first 500 characters of the body, error. */
export function webhookAttemptView(a: WebhookAttempt): Record<string, unknown> {
  return {
    id: a.id,
    object: 'webhook_attempt',
    attempt_number: a.attempt_number,
    status_code: a.status_code,
    latency_ms: a.latency_ms,
    response_excerpt: a.response_excerpt,
    error: a.error,
    created_at: a.created_at.toISOString(),
  };
}

/**
 * Webhook delivery (one event to one endpoint; statuses `pending`, `retrying`, `succeeded`,
 * `failed`, `cancelled`). `attempts` is included only when passed (GET by id).
 */
export function webhookDeliveryView(d: WebhookDelivery, attempts?: WebhookAttempt[]): Record<string, unknown> {
  return {
    id: d.id,
    object: 'webhook_delivery',
    livemode: d.livemode,
    endpoint_id: d.endpoint_id,
    event_id: d.event_id,
    event_type: d.event_type,
    status: d.status,
    attempt_count: d.attempt_count,
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    next_attempt_at: iso(d.next_attempt_at),
    delivered_at: iso(d.delivered_at),
    replay_of: d.replay_of,
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
    ...(attempts ? { attempts: attempts.map(webhookAttemptView) } : {}),
  };
}
