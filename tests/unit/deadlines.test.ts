/**
 * Deadlines computed by pure domain functions, each bounded on both sides against the value of
 * tests/fixtures/deadlines.ts (written from the spec or its decision, never read from the product's
 * constant): open BEFORE_MS before the deadline, closed `slackMs` after it. And the list's own
 * check: every family names test files that exist and read it with `deadline('<key>')`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isReplayable } from '../../domain/idempotency';
import { walletSendCancelBlock } from '../../domain/payouts/deadlines';
import { defaultReminderSchedule, nextReminderAt, reminderDueTimes } from '../../domain/reminders';
import { reportCacheSince } from '../../domain/screening';
import { dueAt } from '../../domain/subscriptions';
import { attemptResult } from '../../domain/webhook-schedule';
import { previousSecretExpiresAtMs, previousSecretSigns } from '../../domain/webhooks';
import { BEFORE_MS, deadline, DEADLINES, type DeadlineFamily, type DeadlineKey } from '../fixtures/deadlines';

/** An arbitrary instant the computations start from (epoch ms). */
const T0 = Date.parse('2026-03-14T09:26:53.589Z');

/** Checks `isOpen` true at T0 + ms - BEFORE_MS and false at T0 + ms + slackMs, for a family. */
function boundedBothSides({ ms, slackMs }: DeadlineFamily, isOpen: (atMs: number) => boolean) {
  expect(isOpen(T0 + ms - BEFORE_MS)).toBe(true);
  expect(isOpen(T0 + ms + slackMs)).toBe(false);
}

describe('computed deadlines, open a minute before and closed within the slack after', () => {
  test('idempotency replay window (spec 8: 24 hours)', () => {
    boundedBothSides(deadline('idempotency_replay'), (at) => isReplayable((at - T0) / 1000));
  });

  test('webhook secret rotation overlap (spec 4.10, 8: 24 hours)', () => {
    const expires = previousSecretExpiresAtMs(T0);
    expect(expires - T0).toBe(deadline('secret_rotation_overlap').ms);
    boundedBothSides(deadline('secret_rotation_overlap'), (at) => previousSecretSigns(expires, at));
    expect(previousSecretSigns(null, T0)).toBe(false);
  });

  test('wallet funding cancel hold (spec 4.3, 8: 30 minutes after the send expires)', () => {
    // The send stops being signable at T0; cancel is refused until the hold ends, whether or not it was marked expired yet.
    for (const status of ['signable', 'expired']) {
      boundedBothSides(deadline('wallet_funding_cancel_hold'), (at) => walletSendCancelBlock({ status, signableUntilMs: T0 }, at) !== null);
      expect(walletSendCancelBlock({ status, signableUntilMs: T0 }, T0)).toBe(T0 + deadline('wallet_funding_cancel_hold').ms);
    }
    expect(walletSendCancelBlock({ status: 'signed', signableUntilMs: T0 }, T0 - BEFORE_MS)).toBeNull();
  });

  test('screening report cache (spec 4.8, 8: 30 days)', () => {
    // A report created at T0 is served from cache at `at` while its creation is after reportCacheSince(at).
    boundedBothSides(deadline('screening_report_cache'), (at) => T0 > reportCacheSince(at).getTime());
  });

  test('webhook retry schedule (decisions 0009, 0052): each wait exactly, none after the last attempt', () => {
    const waits = deadline('webhook_retry_schedule').schedule!;
    waits.forEach((wait, i) => {
      const r = attemptResult(false, true, i + 1, T0);
      expect(r).toEqual({ outcome: 'retrying', nextAttemptAtMs: T0 + wait });
      // Not due a minute before the wait ends, due once it has.
      expect(r.nextAttemptAtMs! > T0 + wait - BEFORE_MS).toBe(true);
      expect(r.nextAttemptAtMs! <= T0 + wait + deadline('webhook_retry_schedule').slackMs).toBe(true);
    });
    expect(attemptResult(false, true, waits.length + 1, T0)).toEqual({ outcome: 'failed', nextAttemptAtMs: null });
    expect(waits.reduce((a, b) => a + b, 0)).toBe((43 * 3600 + 12 * 60 + 30) * 1000); // "8 attempts over 43 h 12 min 30 s"
  });

  test('payment link reminders (decision 0006: days 3, 7 and 14 after activation)', () => {
    const anchor = new Date(T0).toISOString();
    const schedule = defaultReminderSchedule();
    const due = reminderDueTimes(anchor, schedule.offsets_days).map((iso) => Date.parse(iso) - T0);
    expect(due).toEqual(deadline('reminders').schedule);
    // next_reminder_at walks the same instants as reminders are sent, then null.
    const sent: string[] = [];
    for (const offset of deadline('reminders').schedule!) {
      expect(Date.parse(nextReminderAt(anchor, { ...schedule, sent })!)).toBe(T0 + offset);
      sent.push(new Date(T0 + offset).toISOString());
    }
    expect(nextReminderAt(anchor, { ...schedule, sent })).toBeNull();
  });

  test('subscription invoice grace (decision 0050: due 7 days after the period start by default)', () => {
    const { ms } = deadline('subscription_grace');
    expect(dueAt(T0, 7)).toBe(T0 + ms);
    boundedBothSides(deadline('subscription_grace'), (at) => at < dueAt(T0, 7));
  });
});

describe('the list of deadline families', () => {
  const root = path.resolve(__dirname, '../..');
  const keys = Object.keys(DEADLINES) as DeadlineKey[];

  test.each(keys)('%s is bounded by the test files it names', (key) => {
    const f = deadline(key);
    expect(f.tests.length).toBeGreaterThan(0);
    expect(f.source).toMatch(/^(spec|decisions?) \d/);
    expect(f.ms).toBeGreaterThan(0);
    for (const file of f.tests) {
      const text = fs.readFileSync(path.join(root, file), 'utf8');
      expect({ file, reads: text.includes(`deadline('${key}')`) }).toEqual({ file, reads: true });
    }
  });

  test('names the families the issue lists and every time value of spec 8', () => {
    expect(keys).toEqual(
      expect.arrayContaining([
        'payment_ttl',
        'link_expiry',
        'payout_funding_window',
        'wallet_funding_cancel_hold',
        'conversion_signable',
        'deposit_intent_window',
        'send_intent_unsigned',
        'offramp_funding',
        'subscription_grace',
        'payroll_funding_poll',
        'reminders',
        'webhook_retry_schedule',
        'secret_rotation_overlap',
        'idempotency_replay',
        'screening_report_cache',
      ]),
    );
  });
});
