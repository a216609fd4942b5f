/**
 * The account activity feed (spec 4.10 `/activity`, `/activity/summary`; part 6: only shipped
 * event types appear, `test.ping` never does). Pure: maps an event type to its category and a
 * one-line description. No I/O.
 */

/** Activity categories, by the event type's object prefix (wire values of `category`). */
export const ACTIVITY_CATEGORIES = [
  'payment_links',
  'payments',
  'subscriptions',
  'payouts',
  'payroll',
  'customers',
  'orders',
  'developers',
] as const;
export type ActivityCategory = (typeof ACTIVITY_CATEGORIES)[number];

const BY_PREFIX: Record<string, ActivityCategory> = {
  payment_link: 'payment_links',
  payment: 'payments',
  subscription: 'subscriptions',
  payout: 'payouts',
  payroll_run: 'payroll',
  customer: 'customers',
  order: 'orders',
  webhook_endpoint: 'developers',
};

const NOUNS: Record<string, string> = {
  payment_link: 'Payment link',
  payment: 'Payment',
  subscription: 'Subscription',
  payout: 'Payout',
  payroll_run: 'Payroll run',
  customer: 'Customer',
  order: 'Order',
  webhook_endpoint: 'Webhook endpoint',
};

/** Verbs whose phrase is not "was <verb>". */
const PHRASES: Record<string, string> = {
  expired: 'expired',
  reminder_sent: 'reminder sent',
  reminder_schedule_updated: 'reminder schedule updated',
  awaiting: 'is awaiting funds',
  underpaid: 'was underpaid',
  overpaid: 'was overpaid',
  unmatched: 'could not be matched',
  invoice_issued: 'invoice issued',
  invoice_overdue: 'invoice overdue',
  invoice_paid: 'invoice paid',
  created_as_replacement: 'was created as a replacement',
  beneficiary_added: 'beneficiary added',
  funding_verified: 'funding verified',
  execution_started: 'execution started',
  completed: 'completed',
  partial: 'completed partially',
  failed: 'failed',
  verification_state_changed: 'verification state changed',
  requirements_updated: 'requirements updated',
  status_changed: 'status changed',
  disabled: 'was disabled',
};

/** Event types that are never activity (developer artefacts). */
export const NON_ACTIVITY_TYPES: readonly string[] = ['test.ping'];

/** Category of an event type; null for types outside the feed. */
export function activityCategory(type: string): ActivityCategory | null {
  if (NON_ACTIVITY_TYPES.includes(type)) return null;
  return BY_PREFIX[type.split('.')[0]] ?? null;
}

/** One-line description, e.g. `Payment link pl_123 was paid`. */
export function describeActivity(type: string, objectId: string): string {
  const [prefix, verb = ''] = type.split('.', 2);
  const noun = NOUNS[prefix] ?? prefix.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());
  const phrase = PHRASES[verb] ?? `was ${verb.replace(/_/g, ' ')}`;
  return `${noun} ${objectId} ${phrase}`;
}

/** Default length of the `GET /activity/summary` period, ms (30 days). */
export const ACTIVITY_SUMMARY_DEFAULT_MS = 30 * 86_400_000;

/**
 * The period of `GET /activity/summary` from its ISO-8601 `since` / `until` (already shape-checked):
 * `end` = until or `now`, `start` = since or 30 days before `end`. A period with `until` not after
 * `since` is empty and counts nothing (the filters are independent, as on `GET /activity`,
 * so every combination the document admits is answered; it was `400 parameter_invalid`).
 */
export function activityPeriod(since: string | undefined, until: string | undefined, now: Date): { start: Date; end: Date } {
  const end = until ? new Date(until) : now;
  const start = since ? new Date(since) : new Date(end.getTime() - ACTIVITY_SUMMARY_DEFAULT_MS);
  return { start, end };
}
