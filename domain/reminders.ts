/**
 * Payment link reminder schedule (spec 2.3 ReminderSchedule, 4.1 reminder_schedule routes).
 * Offsets are whole days (86400 seconds, UTC; no calendar or DST arithmetic) after the
 * anchor, the link's activation time.
 *
 * Pure: no I/O, no clock (times are ISO strings passed in).
 */
import { invalidRequest } from './errors';

/**
 * Stored schedule. `offsets_days` is caller-owned (ascending, distinct, 1..365); `sent` is
 * server-owned: ISO timestamps of reminders sent, in offset order. `next_reminder_at` is
 * computed on read (`nextReminderAt`), never stored.
 */
export interface ReminderSchedule {
  status: 'on' | 'off';
  offsets_days: number[];
  sent: string[];
}

/** Default offsets, in days after activation. */
export const DEFAULT_REMINDER_OFFSETS_DAYS: readonly number[] = Object.freeze([3, 7, 14]);

/** Bounds of `offsets_days`: 1..10 entries, each an integer 1..365 days. */
export const REMINDER_OFFSETS_MAX_COUNT = 10;
export const REMINDER_OFFSET_MAX_DAYS = 365;

const DAY_MS = 86_400_000;

/** A new schedule: on, default offsets, nothing sent. */
export function defaultReminderSchedule(): ReminderSchedule {
  return { status: 'on', offsets_days: [...DEFAULT_REMINDER_OFFSETS_DAYS], sent: [] };
}

/**
 * Validate a caller's `offsets_days`: an array of 1..10 distinct integers (JS numbers, no
 * strings) each 1..365. Returns a new array sorted ascending.
 * Throws DomainError `invalid_request` (400) code `invalid_request` param `offsets_days`.
 */
export function validateOffsets(offsets: unknown): number[] {
  const fail = (why: string): never => {
    throw invalidRequest('invalid_request', `offsets_days ${why}.`, 'offsets_days');
  };
  if (!Array.isArray(offsets)) return fail('must be an array of whole days');
  if (offsets.length < 1 || offsets.length > REMINDER_OFFSETS_MAX_COUNT) {
    return fail(`must have 1 to ${REMINDER_OFFSETS_MAX_COUNT} entries`);
  }
  for (const o of offsets) {
    if (typeof o !== 'number' || !Number.isInteger(o) || o < 1 || o > REMINDER_OFFSET_MAX_DAYS) {
      return fail(`entries must be whole days from 1 to ${REMINDER_OFFSET_MAX_DAYS}`);
    }
  }
  if (new Set(offsets).size !== offsets.length) return fail('must not repeat a day');
  return [...(offsets as number[])].sort((a, b) => a - b);
}

function anchorMs(anchorIso: string): number {
  const ms = Date.parse(anchorIso);
  if (!Number.isFinite(ms)) throw new RangeError(`invalid anchor timestamp ${JSON.stringify(anchorIso)}`);
  return ms;
}

/**
 * Due time of every reminder: `anchor + offset days` as ISO-8601 UTC (`toISOString`), in
 * ascending offset order. Throws RangeError on an unparsable anchor.
 */
export function reminderDueTimes(anchorIso: string, offsets: readonly number[]): string[] {
  const base = anchorMs(anchorIso);
  return [...offsets].sort((a, b) => a - b).map((d) => new Date(base + d * DAY_MS).toISOString());
}

/**
 * `next_reminder_at` (spec 2.3): the due time of offset number `sent.length` (offsets
 * ascending), or null when the schedule is off, the anchor is null (link not activated), or
 * every offset has been sent. May lie in the past (e.g. after offsets were edited); the
 * reminder workflow then sends it at once. Throws RangeError on an unparsable anchor.
 */
export function nextReminderAt(anchorIso: string | null, schedule: ReminderSchedule): string | null {
  if (schedule.status !== 'on' || anchorIso === null) return null;
  const sorted = [...schedule.offsets_days].sort((a, b) => a - b);
  const idx = schedule.sent.length;
  if (idx >= sorted.length) return null;
  return new Date(anchorMs(anchorIso) + sorted[idx] * DAY_MS).toISOString();
}

/** Link statuses in which reminders go out (the payer can still pay). */
const REMINDABLE_STATUSES: readonly string[] = Object.freeze(['active', 'viewed', 'processing']);

/** The fields of a payment link `linkNextReminderAt` reads (structurally the stored link). */
export interface RemindableLink {
  status: string;
  payer_email: string | null;
  crypto_only: boolean;
  settlement_kind: string | null;
  activated_at: Date | null;
  reminder_schedule: ReminderSchedule;
}

/**
 * `next_reminder_at` of a link as a Date (or null): the next due time (activation + offset days,
 * `nextReminderAt`) when the schedule is on, the link is active/viewed/processing, has a
 * `payer_email` and is not crypto-only (`crypto_only` or settlement kind `crypto_only`); null
 * otherwise. Shared by the link view and the link workflow's state activity. Throws RangeError on
 * an unusable stored anchor.
 */
export function linkNextReminderAt(link: RemindableLink): Date | null {
  const cryptoOnly = link.crypto_only || link.settlement_kind === 'crypto_only';
  if (!REMINDABLE_STATUSES.includes(link.status) || !link.payer_email || cryptoOnly || !link.activated_at) return null;
  const next = nextReminderAt(link.activated_at.toISOString(), link.reminder_schedule);
  return next === null ? null : new Date(next);
}
