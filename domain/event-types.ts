/**
 * The event type catalogue (spec part 6):
 * - LIVE_EVENT_TYPES: shipped types, always listed in `GET /events` and delivered to webhook
 *   endpoints (`test.ping` only through `send_test_event`).
 * - UNSHIPPED_EVENT_TYPES: the catalogued-but-unshipped ones (spec 6 "Catalogued"), per family.
 * - CATALOGUED_EVENT_TYPES: every name a request may carry (`type` filter, endpoint
 *   `event_types`): the live types plus the unshipped ones. Unshipped names are accepted for
 *   subscription but never delivered nor listed until their family ships.
 * - SHIPPABLE_EVENT_FAMILIES: every family with unshipped types (derived from them: `payment`,
 *   `payout`, `payroll_run`, `payroll_item`, `payroll_template`, the wallet families, `capability`,
 *   `screening`, `account`, `address_book`, `credit`). Each ships by its own operator switch
 *   `events.ship.<family>` (off by default; globally or for an account's cohort, lib/switches.ts):
 *   while on, that family's unshipped types are listed and delivered like live ones
 *   (`shippedEventTypes(families)`); a family's live types ship whatever its switch says.
 * - UNWRITTEN_EVENT_TYPES: catalogued types no state change of this product produces.
 * On requests the catalogue is closed (unknown or retired name: `400 invalid_request`); on
 * responses it is open. No type has been retired yet (RETIRED_EVENT_TYPES is empty).
 *
 * Pure: no I/O. Safe to import from Temporal workflows.
 */
import { DomainError } from './errors';

const expand = (prefix: string, names: string[]): string[] => names.map((n) => `${prefix}.${n}`);

/** Shipped event types (spec 6 "Live types"), in catalogue order. */
export const LIVE_EVENT_TYPES: readonly string[] = Object.freeze([
  ...expand('payment_link', [
    'created',
    'activated',
    'viewed',
    'paid',
    'settled',
    'partially_paid',
    'refunded',
    'cancelled',
    'expired',
    'reminder_sent',
    'reminder_schedule_updated',
  ]),
  ...expand('payment', ['created', 'marked_sent', 'awaiting', 'paid', 'settled', 'underpaid', 'overpaid', 'unmatched', 'expired']),
  ...expand('subscription', ['created', 'paused', 'resumed', 'cancelled', 'invoice_issued', 'invoice_overdue', 'invoice_paid']),
  ...expand('payout', ['created', 'funded', 'cancelled', 'marked_sent', 'created_as_replacement', 'beneficiary_added']),
  ...expand('payroll_run', ['created', 'approved', 'cancelled', 'funding_verified', 'execution_started', 'completed', 'partial', 'failed']),
  ...expand('customer', ['verification_state_changed', 'rejected', 'requirements_updated']),
  ...expand('order', ['created', 'status_changed', 'failed', 'refunded', 'cancelled']),
  'test.ping',
  'webhook_endpoint.disabled',
]);

/**
 * The catalogued-but-unshipped names of each family (spec 6 "Catalogued"), in catalogue order: the
 * one table UNSHIPPED_EVENT_TYPES, SHIPPABLE_EVENT_FAMILIES and ShippableEventFamily come from.
 */
const UNSHIPPED_BY_FAMILY = {
  payment: ['detected', 'processing'],
  payout: [
    'awaiting_funds',
    'funds_received',
    'processing',
    'paid',
    'settled',
    'failed',
    'returned',
    'paid_with_shortfall',
    'replaced',
    'configuration_committed',
  ],
  payroll_run: [
    'funding_instructions_requested',
    'funding_instructions_verified',
    'funding_instructions_failed',
    'funding_instructions_blocked',
    'underfunded',
    'execution_requested',
    'execution_blocked',
    // Ours (docs/decisions/0064-payroll-money-owed-back.md): an operator's return of money a run owed back.
    'funds_returned',
    'funds_return_failed',
  ],
  payroll_item: [
    'destination_updated',
    'destination_changed',
    'payout_queued',
    'payout_processing',
    'payout_paid',
    'payout_failed',
    'payout_returned',
  ],
  payroll_template: ['created'],
  deposit_intent: [
    'created',
    'source_detected',
    'bridging_started',
    'settled',
    'failed',
    'expired',
    'recovery_started',
    'manual_recovery_required',
  ],
  send_intent: ['created', 'source_submitted', 'bridging_started', 'settled', 'failed', 'expired'],
  offramp_intent: ['created', 'funds_received', 'payment_submitted', 'payment_processed', 'refunded', 'refund_failed', 'canceled'],
  virtual_account: ['created', 'deactivated', 'reactivated', 'deposit_received'],
  wallet: ['created'],
  conversion: ['built', 'submitted', 'settled', 'failed'],
  capability: ['blocked', 'unblocked'],
  screening: ['completed', 'risk_elevated'],
  account: ['access_state_changed'],
  address_book: ['entry_rechecked'],
  credit: ['consumed', 'purchased'],
} as const satisfies Record<string, readonly string[]>;

/** Catalogued but not shipped (spec 6 "Catalogued"): accepted on requests, listed and delivered only once their family ships. */
export const UNSHIPPED_EVENT_TYPES: readonly string[] = Object.freeze(
  Object.entries(UNSHIPPED_BY_FAMILY).flatMap(([family, names]) => expand(family, [...names])),
);

/** Every name accepted on requests: live plus catalogued-but-unshipped (spec 6). */
export const CATALOGUED_EVENT_TYPES: readonly string[] = Object.freeze([...LIVE_EVENT_TYPES, ...UNSHIPPED_EVENT_TYPES]);

/** Names once catalogued and since retired: refused on requests like unknown names. None yet. */
export const RETIRED_EVENT_TYPES: readonly string[] = Object.freeze([]);

/** Delivered only to the one endpoint named by `POST /webhook_endpoints/{id}/send_test_event`. */
export const TEST_PING_EVENT_TYPE = 'test.ping';

/** Emitted when an endpoint is auto-disabled after repeated failures. */
export const ENDPOINT_DISABLED_EVENT_TYPE = 'webhook_endpoint.disabled';

/** A family that has catalogued types (spec 6), e.g. `payment` or `send_intent`: each ships by its own switch. */
export type ShippableEventFamily = keyof typeof UNSHIPPED_BY_FAMILY;

/**
 * Every family with catalogued types, derived from UNSHIPPED_EVENT_TYPES in catalogue order (16:
 * `payment` ... `credit`). Each ships by the operator switch `events.ship.<family>` (shipSwitchName),
 * off by default; a family with live types too (`payment`, `payout`, `payroll_run`) ships only its
 * catalogued ones that way, its live ones always ship.
 */
export const SHIPPABLE_EVENT_FAMILIES: readonly ShippableEventFamily[] = Object.freeze([
  ...new Set(UNSHIPPED_EVENT_TYPES.map(eventFamily)),
] as ShippableEventFamily[]);

/**
 * Catalogued types this product never writes, because it has no state change they would describe
 * (docs/decisions/0068-every-catalogued-family-ships-by-its-switch.md): still accepted on
 * requests and shipped with their family, but no event of these types is ever recorded.
 */
export const UNWRITTEN_EVENT_TYPES: readonly string[] = Object.freeze([
  'payment.processing',
  'payroll_run.execution_requested',
  'payroll_run.execution_blocked',
  'capability.blocked',
  'capability.unblocked',
  'account.access_state_changed',
]);

/** The catalogued (unshipped) types of `family`, in catalogue order (empty for a family without any). */
export function cataloguedTypesOf(family: string): readonly string[] {
  return UNSHIPPED_EVENT_TYPES.filter((t) => eventFamily(t) === family);
}

/** The family of event type `t` (`send_intent` of `send_intent.settled`). */
export function eventFamily(text: string): string {
  return text.slice(0, Math.max(0, text.indexOf('.')));
}

/** The operator switch that ships `family`: `events.ship.<family>` (lib/switches.ts SWITCH_DEFAULTS). */
export function shipSwitchName(family: ShippableEventFamily): string {
  return `events.ship.${family}`;
}

/**
 * The shipped types when the families `shipped` are switched on (spec 6): the live types plus the
 * unshipped (catalogued) types of those families, e.g. `['payout']` adds `payout.awaiting_funds`
 * ... `payout.configuration_committed` (the live `payout.*` are in anyway). Names that are not a
 * shippable family are ignored.
 */
export function shippedEventTypes(shipped: readonly string[]): readonly string[] {
  if (shipped.length === 0) return LIVE_EVENT_TYPES;
  const on = new Set(shipped.filter((f) => (SHIPPABLE_EVENT_FAMILIES as readonly string[]).includes(f)));
  return Object.freeze([...LIVE_EVENT_TYPES, ...UNSHIPPED_EVENT_TYPES.filter((t) => on.has(eventFamily(t)))]);
}

const LIVE = new Set(LIVE_EVENT_TYPES);
const KNOWN = new Set(CATALOGUED_EVENT_TYPES.filter((t) => !RETIRED_EVENT_TYPES.includes(t)));

/** True when `t` may appear on a request (`type` filter, `event_types`): catalogued and not retired. */
export function isKnownEventType(value: unknown): value is string {
  return typeof value === 'string' && KNOWN.has(value);
}

/** True when `t` is shipped (live, or in `shipped`: see shippedEventTypes): listed in `GET /events` and deliverable to webhooks. */
export function isShippedEventType(value: unknown, shipped: ReadonlySet<string> = LIVE): value is string {
  return typeof value === 'string' && shipped.has(value);
}

/**
 * True when an event of type `t` is fanned out by the dispatcher to an endpoint subscribed to
 * `subscribed` (empty = all): shipped (live, or in `shipped`), not `test.ping`, and named or
 * subscribed to everything.
 */
export function endpointReceives(subscribed: readonly string[], text: string, shipped: ReadonlySet<string> = LIVE): boolean {
  if (!isShippedEventType(text, shipped) || text === TEST_PING_EVENT_TYPE) return false;
  return subscribed.length === 0 || subscribed.includes(text);
}

/**
 * Checks a `type` filter (events, stream, activity) against the closed catalogue; returns it.
 * Throws `400 invalid_request` `event_type_unknown`, param `type`, for an unknown or retired name.
 */
export function checkEventTypeParam(text: string): string {
  if (!isKnownEventType(text))
    throw new DomainError('invalid_request', 'event_type_unknown', `Unknown event type \`${text}\`.`, { param: 'type' });
  return text;
}
