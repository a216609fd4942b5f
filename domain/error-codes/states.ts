/**
 * Error registry (domain/error-codes.ts), the status changes: one `409 conflict` code
 * `<object>_state_changed` per transition table (domain/transitions.ts `transitionTable(object,
 * map, code?)`, ARCHITECTURE "Status changes"). A table that names its own code shares it
 * (`payroll_item_destination` and `payroll_item_attempt` answer `payroll_item_state_changed`). tests/unit/error-codes.test.ts
 * reads every `transitionTable(...)` call of the source, so a new table without its entry here fails.
 * Pure data.
 */
import type { ErrorCodeSpec } from './entry';

/** A transition table's object: its wire name, how the page names it, and whether only background work moves it. */
interface StatefulObject {
  object: string;
  label: string;
  background?: boolean;
  also?: string;
}

/** Every object with a transition table (domain/), by the code its table answers. */
export const STATEFUL_OBJECTS: readonly StatefulObject[] = [
  { object: 'payment_link', label: 'payment link' },
  { object: 'payment', label: 'payment' },
  { object: 'watcher', label: 'cross-network payment watcher', background: true },
  { object: 'payout', label: 'payout' },
  { object: 'payout_attempt', label: 'payout funding attempt', background: true },
  { object: 'payroll_run', label: 'payroll run' },
  { object: 'payroll_item', label: 'payroll item', also: "Also the readiness of an item's destination." },
  { object: 'payroll_funding_attempt', label: 'payroll funding attempt', background: true },
  { object: 'payroll_funds_return', label: 'payroll funds return', background: true },
  { object: 'webhook_delivery', label: 'webhook delivery' },
  { object: 'webhook_endpoint', label: 'webhook endpoint' },
  { object: 'virtual_account', label: 'virtual account' },
  { object: 'send_intent', label: 'wallet send intent' },
  { object: 'deposit_intent', label: 'wallet deposit intent' },
  { object: 'conversion', label: 'wallet conversion' },
  { object: 'offramp_intent', label: 'off-ramp intent' },
  { object: 'subscription', label: 'subscription' },
  { object: 'subscription_invoice', label: 'subscription invoice' },
  { object: 'order', label: 'order' },
  { object: 'customer', label: 'customer verification', background: true },
  {
    object: 'api_key',
    label: 'API key',
    also: 'Not answered by the API today: revoking a revoked key returns it unchanged and rolling one answers `api_key_revoked`.',
  },
];

export const STATE_CHANGED_CODES: readonly ErrorCodeSpec[] = STATEFUL_OBJECTS.map((o) => ({
  code: `${o.object}_state_changed`,
  type: 'conflict' as const,
  when: `A change the ${o.label}'s current status does not allow: it moved since it was read (another request or the ${o.label}'s own lifecycle got there first).${o.also ? ` ${o.also}` : ''}${o.background ? ' Mostly met by background work, which then stops for an operator; a request answers it only when it races that work.' : ''}`,
  details: {
    object: 'The object (`' + o.object + '`).',
    status: 'Its current status.',
    requested_status: 'The status the change asked for (when a status table refused it).',
  },
  recovery: `Re-read the ${o.label} and decide again from its current status.`,
}));
