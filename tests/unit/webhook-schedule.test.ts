/**
 * The webhook retry schedule and failure streak (domain/webhook-schedule.ts): waits after each
 * failed attempt, the outcome written after an attempt, hold re-check back-off, and how a batch of
 * outcomes in completion order moves an endpoint's consecutive-failure count.
 */
import {
  attemptOutcome,
  attemptResult,
  failureStreakChange,
  holdRecheckAfter,
  retryDelayAfter,
  WEBHOOK_HOLD_RECHECK_MAX_MS,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_RETRY_DELAYS_MS,
} from '../../domain/webhook-schedule';

const MIN = 60_000;
const HOUR = 60 * MIN;

test('8 attempts: at once, then 30 s, 2 min, 10 min, 1 h, 6 h, 12 h, 24 h', () => {
  expect(WEBHOOK_MAX_ATTEMPTS).toBe(8);
  expect([1, 2, 3, 4, 5, 6, 7].map(retryDelayAfter)).toEqual([30_000, 2 * MIN, 10 * MIN, HOUR, 6 * HOUR, 12 * HOUR, 24 * HOUR]);
  expect(retryDelayAfter(8)).toBeNull();
  expect(retryDelayAfter(0)).toBeNull();
  expect(WEBHOOK_RETRY_DELAYS_MS.reduce((a, b) => a + b, 0)).toBe(43 * HOUR + 12 * MIN + 30_000);
});

test('the outcome of an attempt: succeeded on 2xx, retrying while the schedule allows a retryable failure, else failed', () => {
  expect(attemptOutcome(true, false, 8)).toBe('succeeded');
  expect(attemptOutcome(false, true, 1)).toBe('retrying');
  expect(attemptOutcome(false, true, 7)).toBe('retrying');
  expect(attemptOutcome(false, true, 8)).toBe('failed');
  expect(attemptOutcome(false, false, 1)).toBe('failed');
});

test("the result of an attempt: its status, and for a retry the finish time plus that attempt's wait", () => {
  expect(attemptResult(true, false, 1, 1_000)).toEqual({ outcome: 'succeeded', nextAttemptAtMs: null });
  expect(attemptResult(false, true, 1, 1_000)).toEqual({ outcome: 'retrying', nextAttemptAtMs: 31_000 });
  expect(attemptResult(false, true, 2, 1_000)).toEqual({ outcome: 'retrying', nextAttemptAtMs: 1_000 + 2 * MIN });
  expect(attemptResult(false, true, 8, 1_000)).toEqual({ outcome: 'failed', nextAttemptAtMs: null });
});

test('held re-checks double from 30 s up to 5 min', () => {
  expect([1, 2, 3, 4, 5, 6, 50].map(holdRecheckAfter)).toEqual([
    30_000,
    60_000,
    120_000,
    240_000,
    300_000,
    300_000,
    WEBHOOK_HOLD_RECHECK_MAX_MS,
  ]);
});

test('a batch with a success restarts the failure count from the failures after its last success', () => {
  expect(failureStreakChange([])).toEqual({ reset: false, failures: 0 });
  expect(failureStreakChange(['retrying', 'failed'])).toEqual({ reset: false, failures: 2 });
  expect(failureStreakChange(['retrying', 'succeeded', 'retrying'])).toEqual({ reset: true, failures: 1 });
  expect(failureStreakChange(['retrying', 'retrying', 'succeeded'])).toEqual({ reset: true, failures: 0 });
});
