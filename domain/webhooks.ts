/**
 * Webhook rules (spec 2.11, 4.10, 6, 8 "Secret rotation overlap"): the delivery and endpoint
 * transition tables, endpoint limits and secret rules, the closed event-type catalogue check of
 * requests, the preconditions of a test event and of a replay.
 *
 * Pure: no I/O, no clock, no randomness. Safe to import from workflows.
 */
import { DomainError } from './errors';
import { isKnownEventType } from './event-types';
import { transitionTable, type TransitionTable } from './transitions';

// ---------------------------------------------------------------------------------------------
// Deliveries
// ---------------------------------------------------------------------------------------------

/** Status of a webhook delivery (one event to one endpoint; wire `status` of `webhook_delivery`). */
export type WebhookDeliveryStatus = 'pending' | 'retrying' | 'succeeded' | 'failed' | 'cancelled';

/** Status of a delivery when it is created (dispatcher fan-out, `send_test_event`, replay). */
export const WEBHOOK_DELIVERY_INITIAL_STATUS: WebhookDeliveryStatus = 'pending';

/**
 * Delivery transitions (spec 6): `pending` (no attempt recorded yet) moves on its first attempt to
 * `succeeded` (2xx), `retrying` (failed, retries left) or `failed` (no retry left, or not
 * retryable), or to `cancelled` (endpoint disabled or deleted, event gone); `retrying` moves the
 * same way on a later attempt. `succeeded`, `failed` and `cancelled` are final. A replay never
 * moves a delivery: it creates a new one (`pending`, `replay_of` set). Being held while the
 * delivery switch is off is a flag (`held_at`) on a `pending` or `retrying` delivery, not a status.
 * Illegal: `409 conflict` code `webhook_delivery_state_changed`.
 */
export const webhookDeliveryTransitions: TransitionTable<WebhookDeliveryStatus> = transitionTable<WebhookDeliveryStatus>(
  'webhook_delivery',
  {
    pending: ['retrying', 'succeeded', 'failed', 'cancelled'],
    retrying: ['succeeded', 'failed', 'cancelled'],
    succeeded: [],
    failed: [],
    cancelled: [],
  },
);

/** Every delivery status, in wire order (the `status` filter of `GET /webhook_deliveries`). */
export const WEBHOOK_DELIVERY_STATUSES: readonly WebhookDeliveryStatus[] = webhookDeliveryTransitions.statuses;

/** True when a delivery in `status` is final (no attempt will be made, nothing is written any more). */
export function isFinalDeliveryStatus(status: string): boolean {
  return (webhookDeliveryTransitions.terminal as readonly string[]).includes(status);
}

/**
 * Statuses in which a delivery is still live (may be attempted, held or cancelled): `pending`,
 * `retrying`; the table's open set (what the recovery sweep wakes endpoints for).
 */
export const LIVE_DELIVERY_STATUSES: readonly WebhookDeliveryStatus[] = webhookDeliveryTransitions.open;

/**
 * Statuses a delivery's status may be written again in, not being a transition: `retrying` (a
 * further failed attempt with retries left keeps it). lib/status-writes.ts `moveRowsEach` `repeat`.
 */
export const DELIVERY_STATUS_REPEATS: readonly WebhookDeliveryStatus[] = Object.freeze(['retrying'] as WebhookDeliveryStatus[]);

/**
 * Statuses a delivery may be in when `to` is written: those the table lets move to `to`, plus
 * `to` itself when it is a repeat (DELIVERY_STATUS_REPEATS). The guard of every delivery status write.
 */
export function deliveryStatusesBefore(to: WebhookDeliveryStatus): WebhookDeliveryStatus[] {
  return webhookDeliveryTransitions.statuses.filter(
    (s) => webhookDeliveryTransitions.can(s, to) || (s === to && DELIVERY_STATUS_REPEATS.includes(to)),
  );
}

/**
 * Checks a delivery status write `from -> to` (see deliveryStatusesBefore); returns `to`.
 * Throws `IllegalTransition` (409 `webhook_delivery_state_changed`) otherwise.
 */
export function assertDeliveryWrite(from: string, to: WebhookDeliveryStatus): WebhookDeliveryStatus {
  if (from === to && DELIVERY_STATUS_REPEATS.includes(to)) return to;
  return webhookDeliveryTransitions.assert(from, to);
}

// ---------------------------------------------------------------------------------------------
// Endpoints
// ---------------------------------------------------------------------------------------------

/**
 * Status of a webhook endpoint, derived from its row (`deleted_at`, `enabled`); not a wire field
 * (the wire has `enabled` and `disabled_reason`).
 */
export type WebhookEndpointStatus = 'enabled' | 'disabled' | 'deleted';

/** Why an endpoint is disabled (`disabled_reason` on the wire; open enum on responses). */
export type WebhookEndpointDisabledReason = 'manual' | 'auto_disabled_repeated_failures';

/**
 * Endpoint transitions (spec 2.11, 6): enabled and disabled (by the owner, or automatically after
 * repeated failures) move to each other; either may be deleted (soft delete, final).
 */
export const webhookEndpointTransitions: TransitionTable<WebhookEndpointStatus> = transitionTable<WebhookEndpointStatus>(
  'webhook_endpoint',
  {
    enabled: ['disabled', 'deleted'],
    disabled: ['enabled', 'deleted'],
    deleted: [],
  },
);

/** The status of an endpoint row. */
export function webhookEndpointStatus(input: { enabled: boolean; deleted_at: Date | null }): WebhookEndpointStatus {
  return input.deleted_at ? 'deleted' : input.enabled ? 'enabled' : 'disabled';
}

/** Max non-deleted endpoints per account and mode. */
export const MAX_ENDPOINTS_PER_MODE = 16;
/** How long a rotated-out secret keeps signing (spec 8), ms. */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** When a secret rotated out at `rotatedAtMs` stops signing (epoch ms): SECRET_ROTATION_OVERLAP_MS later (spec 4.10, 8). */
export function previousSecretExpiresAtMs(rotatedAtMs: number): number {
  return rotatedAtMs + SECRET_ROTATION_OVERLAP_MS;
}

/** Whether a rotated-out secret expiring at `expiresAtMs` (null: none) still signs deliveries at `nowMs`. */
export function previousSecretSigns(expiresAtMs: number | null, nowMs: number): boolean {
  return expiresAtMs !== null && nowMs < expiresAtMs;
}
/** Characters of the secret shown as `secret_prefix`. */
export const SECRET_PREFIX_LENGTH = 10;

/**
 * Auto-disable threshold: when a delivery exhausts its retry schedule while the endpoint has at
 * least this many failed attempts in a row (across all its deliveries; any 2xx resets the count),
 * the endpoint is disabled with `disabled_reason: auto_disabled_repeated_failures` and a
 * `webhook_endpoint.disabled` event is emitted.
 */
export const AUTO_DISABLE_CONSECUTIVE_FAILURES = 20;

/** Switch gating endpoint registration and reads (spec 6). */
export const WEBHOOKS_SWITCH = 'api_v1.webhooks';
/** Switch gating actual delivery (spec 6): off = attempts are held, never lost. */
export const DELIVERY_SWITCH = 'api_v1.webhooks_delivery';

/**
 * Validates and de-duplicates requested event types against the closed catalogue (first
 * occurrence order kept); undefined stays undefined (not given). Throws `400 invalid_request`
 * `event_type_unknown`, param `event_types`, for an unknown or retired name.
 */
export function checkEventTypes(types: string[] | undefined): string[] | undefined {
  if (types === undefined) return undefined;
  for (const t of types) {
    if (!isKnownEventType(t)) {
      throw new DomainError('invalid_request', 'event_type_unknown', `Unknown event type \`${t}\` in \`event_types\`.`, {
        param: 'event_types',
        details: { event_type: t },
      });
    }
  }
  return [...new Set(types)];
}

/** Throws `400 webhook_endpoint_limit_reached` when `count` non-deleted endpoints already exist in the caller's mode. */
export function assertEndpointCapacity(count: number, livemode: boolean): void {
  if (count >= MAX_ENDPOINTS_PER_MODE) {
    throw new DomainError(
      'invalid_request',
      'webhook_endpoint_limit_reached',
      `An account can have at most ${MAX_ENDPOINTS_PER_MODE} ${livemode ? 'live' : 'test'} webhook endpoints; delete one first.`,
    );
  }
}

/** `send_test_event` precondition: throws `409 webhook_endpoint_disabled` for a disabled endpoint. */
export function assertCanSendTestEvent(input: { enabled: boolean }): void {
  if (!input.enabled)
    throw new DomainError('conflict', 'webhook_endpoint_disabled', 'The endpoint is disabled; enable it before sending a test event.');
}

/**
 * Replay precondition on the delivery's endpoint (null when gone): throws `409
 * webhook_endpoint_deleted` when deleted or missing, `409 webhook_endpoint_disabled` when disabled.
 */
export function assertCanReplay(input: { enabled: boolean; deleted_at: Date | null } | null): void {
  if (!input || input.deleted_at)
    throw new DomainError('conflict', 'webhook_endpoint_deleted', 'The endpoint of this delivery was deleted; it cannot be replayed.');
  if (!input.enabled)
    throw new DomainError('conflict', 'webhook_endpoint_disabled', 'The endpoint is disabled; enable it before replaying.');
}
