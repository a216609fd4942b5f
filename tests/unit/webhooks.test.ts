/**
 * Webhook rules (spec 2.11, 6): the delivery transition table (pending -> retrying / succeeded /
 * failed / cancelled; retrying -> succeeded / failed / cancelled, and retrying again on a further
 * failed attempt; final statuses stay), the endpoint table (enabled <-> disabled, either ->
 * deleted), event-type checks, the endpoint limit, test-event and replay preconditions.
 */
import { IllegalTransition } from '../../domain/transitions';
import {
  assertCanReplay,
  assertCanSendTestEvent,
  assertDeliveryWrite,
  assertEndpointCapacity,
  checkEventTypes,
  deliveryStatusesBefore,
  isFinalDeliveryStatus,
  LIVE_DELIVERY_STATUSES,
  MAX_ENDPOINTS_PER_MODE,
  WEBHOOK_DELIVERY_INITIAL_STATUS,
  WEBHOOK_DELIVERY_STATUSES,
  webhookDeliveryTransitions,
  webhookEndpointStatus,
  webhookEndpointTransitions,
  type WebhookDeliveryStatus,
} from '../../domain/webhooks';
import { DomainError } from '../../domain/errors';

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe('webhook delivery transitions', () => {
  it('lists the five wire statuses in order, starting pending, with three final ones', () => {
    expect(WEBHOOK_DELIVERY_STATUSES).toEqual(['pending', 'retrying', 'succeeded', 'failed', 'cancelled']);
    expect(WEBHOOK_DELIVERY_INITIAL_STATUS).toBe('pending');
    expect([...webhookDeliveryTransitions.terminal]).toEqual(['succeeded', 'failed', 'cancelled']);
    expect(LIVE_DELIVERY_STATUSES).toEqual(['pending', 'retrying']);
    expect(WEBHOOK_DELIVERY_STATUSES.filter(isFinalDeliveryStatus)).toEqual(['succeeded', 'failed', 'cancelled']);
    expect(isFinalDeliveryStatus('bogus')).toBe(false);
  });

  it('allows exactly the moves of an attempt and of a cancellation from a live delivery', () => {
    const allowed: Array<[WebhookDeliveryStatus, WebhookDeliveryStatus]> = [];
    for (const from of WEBHOOK_DELIVERY_STATUSES) {
      for (const to of WEBHOOK_DELIVERY_STATUSES) if (webhookDeliveryTransitions.can(from, to)) allowed.push([from, to]);
    }
    expect(allowed).toEqual([
      ['pending', 'retrying'],
      ['pending', 'succeeded'],
      ['pending', 'failed'],
      ['pending', 'cancelled'],
      ['retrying', 'succeeded'],
      ['retrying', 'failed'],
      ['retrying', 'cancelled'],
    ]);
    expect(webhookDeliveryTransitions.can('retrying', 'pending')).toBe(false);
  });

  it('guards each write with the statuses it may come from (retrying may be written again)', () => {
    expect(deliveryStatusesBefore('succeeded')).toEqual(['pending', 'retrying']);
    expect(deliveryStatusesBefore('failed')).toEqual(['pending', 'retrying']);
    expect(deliveryStatusesBefore('cancelled')).toEqual(['pending', 'retrying']);
    expect(deliveryStatusesBefore('retrying')).toEqual(['pending', 'retrying']);
    expect(deliveryStatusesBefore('pending')).toEqual([]);
    expect(assertDeliveryWrite('retrying', 'retrying')).toBe('retrying');
    expect(assertDeliveryWrite('pending', 'failed')).toBe('failed');
  });

  it('refuses any write to a final delivery with a 409 IllegalTransition', () => {
    for (const from of ['succeeded', 'failed', 'cancelled'] as const) {
      for (const to of WEBHOOK_DELIVERY_STATUSES) {
        const e = thrown(() => assertDeliveryWrite(from, to));
        expect(e).toBeInstanceOf(IllegalTransition);
        expect((e as IllegalTransition).type).toBe('conflict');
        expect((e as IllegalTransition).code).toBe('webhook_delivery_state_changed');
      }
    }
    expect(thrown(() => assertDeliveryWrite('pending', 'pending'))).toBeInstanceOf(IllegalTransition);
  });
});

describe('webhook endpoint transitions', () => {
  it('derives the status from the row', () => {
    expect(webhookEndpointStatus({ enabled: true, deleted_at: null })).toBe('enabled');
    expect(webhookEndpointStatus({ enabled: false, deleted_at: null })).toBe('disabled');
    expect(webhookEndpointStatus({ enabled: true, deleted_at: new Date() })).toBe('deleted');
  });

  it('moves between enabled and disabled, deletes either, and never leaves deleted', () => {
    expect(webhookEndpointTransitions.can('enabled', 'disabled')).toBe(true);
    expect(webhookEndpointTransitions.can('disabled', 'enabled')).toBe(true);
    expect(webhookEndpointTransitions.can('enabled', 'deleted')).toBe(true);
    expect(webhookEndpointTransitions.can('disabled', 'deleted')).toBe(true);
    expect([...webhookEndpointTransitions.terminal]).toEqual(['deleted']);
    expect(thrown(() => webhookEndpointTransitions.assert('deleted', 'enabled'))).toBeInstanceOf(IllegalTransition);
  });
});

describe('webhook request rules', () => {
  it('de-duplicates known event types and refuses unknown ones', () => {
    expect(checkEventTypes(undefined)).toBeUndefined();
    expect(checkEventTypes(['payment.paid', 'payment.settled', 'payment.paid'])).toEqual(['payment.paid', 'payment.settled']);
    const e = thrown(() => checkEventTypes(['nope.nothing'])) as DomainError;
    expect(e).toBeInstanceOf(DomainError);
    expect(e.code).toBe('event_type_unknown');
    expect(e.param).toBe('event_types');
  });

  it('caps endpoints per mode and checks test-event and replay preconditions', () => {
    expect(() => assertEndpointCapacity(MAX_ENDPOINTS_PER_MODE - 1, true)).not.toThrow();
    expect((thrown(() => assertEndpointCapacity(MAX_ENDPOINTS_PER_MODE, false)) as DomainError).code).toBe(
      'webhook_endpoint_limit_reached',
    );
    expect((thrown(() => assertCanSendTestEvent({ enabled: false })) as DomainError).code).toBe('webhook_endpoint_disabled');
    expect((thrown(() => assertCanReplay(null)) as DomainError).code).toBe('webhook_endpoint_deleted');
    expect((thrown(() => assertCanReplay({ enabled: true, deleted_at: new Date() })) as DomainError).code).toBe('webhook_endpoint_deleted');
    expect((thrown(() => assertCanReplay({ enabled: false, deleted_at: null })) as DomainError).code).toBe('webhook_endpoint_disabled');
    expect(() => assertCanReplay({ enabled: true, deleted_at: null })).not.toThrow();
  });
});
