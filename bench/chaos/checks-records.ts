/**
 * The chaos harness's record invariants as pure functions (bench/chaos/checks.ts has the object and
 * money ones): one provider transfer per intent, every event once in the outbox and none lost, each
 * event delivered at most once per endpoint, no running workflow without its row. Inputs are plain
 * rows read by bench/chaos/invariants.ts.
 */
import { sample, type CheckResult } from './checks';

/** A provider's record of a transfer: which provider and the intent it was made for (its reference or key). */
export interface ProviderTransfer {
  provider: 'rail' | 'bridge' | 'chain';
  ref: string;
}

/** Exactly one provider transfer per intent (rail payments, bridge transfers, keyed chain transfers). */
export function oneTransferPerIntent(transfers: ProviderTransfer[]): CheckResult {
  const seen = new Map<string, number>();
  for (const t of transfers) seen.set(`${t.provider} ${t.ref}`, (seen.get(`${t.provider} ${t.ref}`) ?? 0) + 1);
  const bad = [...seen.entries()].filter(([, c]) => c > 1).map(([k, c]) => `${k} x${c}`);
  return {
    name: 'one provider transfer per intent',
    ok: bad.length === 0,
    detail: bad.length ? `${bad.length} intents with more than one${sample(bad)}` : `${transfers.length} provider transfers, none doubled`,
  };
}

/** The outbox grouped: how many events of `type` object `objectId` has. */
export interface EventCount {
  objectId: string;
  type: string;
  n: number;
}
/** Event types an object may carry more than once (updates, views, reminders, deposits, deliveries, attempts). */
const REPEATABLE = /(updated|viewed|reminder|deposit_received|delivery|attempt)/;

/** Every event once in the outbox: no object has the same status event twice. */
export function eventsOnce(events: EventCount[]): CheckResult {
  const dup = events.filter((e) => e.n > 1 && !REPEATABLE.test(e.type)).map((e) => `${e.objectId} ${e.type} x${e.n}`);
  const total = events.reduce((a, e) => a + e.n, 0);
  return {
    name: 'every event once in the outbox',
    ok: dup.length === 0,
    detail: dup.length ? `${dup.length} doubled${sample(dup)}` : `${total} events, none doubled`,
  };
}

/** An object and its status, for the lost-event check. */
export interface ObjectStatus {
  id: string;
  status: string;
}
/**
 * The events a status commits with it in the outbox (spec 6 live types; the status change and its
 * event are one transaction): object family -> status -> event type, or the types of which one is
 * due (a replacement payout is created with `payout.created_as_replacement`). `*` is every status.
 */
export const STATUS_EVENTS: Record<string, Record<string, string | string[]>> = {
  payment: { settled: 'payment.settled' },
  payout: { '*': ['payout.created', 'payout.created_as_replacement'] },
  payroll_run: { '*': 'payroll_run.created', completed: 'payroll_run.completed' },
  subscription: { '*': 'subscription.created', cancelled: 'subscription.cancelled' },
};

/** No event lost: every object of `family` in a status of `STATUS_EVENTS` has that event in the outbox. */
export function noEventLost(objects: Record<string, ObjectStatus[]>, events: EventCount[]): CheckResult {
  const have = new Set(events.map((e) => `${e.objectId} ${e.type}`));
  const lost: string[] = [];
  let expected = 0;
  for (const [family, rows] of Object.entries(objects)) {
    const rules = STATUS_EVENTS[family] ?? {};
    for (const r of rows) {
      for (const due of [rules['*'], rules[r.status]]) {
        if (!due) continue;
        const types = typeof due === 'string' ? [due] : due;
        expected += 1;
        if (!types.some((type) => have.has(`${r.id} ${type}`))) lost.push(`${r.id} (${r.status}) without ${types.join(' or ')}`);
      }
    }
  }
  return {
    name: 'no status event lost',
    ok: lost.length === 0,
    detail: lost.length ? `${lost.length} of ${expected} missing${sample(lost)}` : `${expected} status events expected, each in the outbox`,
  };
}

/** What the load's webhook receivers saw: per endpoint and event, the receipts and the attempts recorded. */
export interface Receipt {
  endpoint: string;
  eventId: string;
  received: number;
  attempts: number;
  okAttempts: number;
}
/** Delivery rows (replays apart) grouped by endpoint and event; deliveries with their successful attempts counted. */
export interface DeliveryData {
  rows: Array<{ endpointId: string; eventId: string; n: number }>;
  okAttempts: Array<{ deliveryId: string; n: number }>;
  succeeded: number;
  receipts: Receipt[];
}

/**
 * At most one delivery row per event and endpoint (replays apart) and never two successful attempts
 * recorded for one delivery. A receiver that saw an event twice is allowed when the sender failed in
 * between: an attempt recorded as failed, or one it never recorded (the worker died mid-attempt, so
 * it tried again); those are counted apart.
 */
export function deliveriesAtMostOnce(deliveries: DeliveryData): CheckResult {
  const twice: string[] = [];
  let afterFailure = 0;
  for (const r of deliveries.receipts) {
    if (r.received < 2) continue;
    if (r.okAttempts > 1) twice.push(`${r.endpoint}:${r.eventId} x${r.received}`);
    else if (r.attempts < r.received || r.attempts > r.okAttempts) afterFailure += 1;
    else twice.push(`${r.endpoint}:${r.eventId} x${r.received} (${r.attempts} attempts recorded)`);
  }
  const bad = [
    ...deliveries.rows.filter((r) => r.n > 1).map((r) => `row ${r.endpointId} ${r.eventId}`),
    ...deliveries.okAttempts.filter((a) => a.n > 1).map((a) => `delivery ${a.deliveryId} succeeded twice`),
    ...twice,
  ];
  const again = afterFailure ? `; ${afterFailure} received again after a failed or unrecorded attempt (at least once)` : '';
  return {
    name: 'each event delivered at most once per endpoint',
    ok: bad.length === 0,
    detail: bad.length
      ? `${bad.length} doubled${sample(bad)}${again}`
      : `${deliveries.succeeded} deliveries succeeded, none doubled${again}`,
  };
}

/** No running workflow without its row: `running` workflow ids, `known` ids of every row a workflow is named after. */
export function workflowsHaveRows(running: string[], known: Set<string>): CheckResult {
  const orphans = running.filter((id) => !known.has(id));
  return {
    name: 'no workflow without its row',
    ok: orphans.length === 0,
    detail: orphans.length
      ? `${orphans.length} of ${running.length} running without a row${sample(orphans)}`
      : `${running.length} running, each with its row`,
  };
}
