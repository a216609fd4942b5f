/**
 * The webhook retry schedule and the per-endpoint failure streak (spec 6 leaves both open; decided
 * here, docs/decisions/0052-webhooks-one-workflow-per-endpoint.md). Used by the endpoint drain
 * activity (activities/webhooks/drain.ts), which writes each delivery's `next_attempt_at`, and by
 * the endpoint workflow (workflows/webhook-endpoint.ts), which sleeps until the earliest one.
 *
 * Attempt 1 at once, then after each failed attempt wait 30 s, 2 min, 10 min, 1 h, 6 h, 12 h,
 * 24 h: 8 attempts over 43 h 12 min 30 s, then the delivery is `failed`.
 *
 * Pure: no I/O, no clock, no randomness. Safe to import from workflows.
 */

/** Wait before attempt n+1 after attempt n failed, ms: index 0 is the wait after attempt 1. */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = Object.freeze([
  30_000, // 30 s
  2 * 60_000, // 2 min
  10 * 60_000, // 10 min
  60 * 60_000, // 1 h
  6 * 60 * 60_000, // 6 h
  12 * 60 * 60_000, // 12 h
  24 * 60 * 60_000, // 24 h
]);

/** Attempts in total (first attempt plus one per retry delay). */
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS_MS.length + 1;

/** The retry wait after failed attempt `attempt` (1-based), ms, or null when it was the last one. */
export function retryDelayAfter(attempt: number): number | null {
  return attempt >= 1 && attempt < WEBHOOK_MAX_ATTEMPTS ? WEBHOOK_RETRY_DELAYS_MS[attempt - 1] : null;
}

/** First re-check of held deliveries (delivery switch off), ms; doubles per consecutive hold. */
export const WEBHOOK_HOLD_RECHECK_MS = 30_000;
/** Longest wait between re-checks while held, ms (the dispatcher's nudge usually comes first). */
export const WEBHOOK_HOLD_RECHECK_MAX_MS = 5 * 60_000;

/** Wait after the `n`-th consecutive hold (1-based), ms. */
export function holdRecheckAfter(count: number): number {
  return Math.min(WEBHOOK_HOLD_RECHECK_MAX_MS, WEBHOOK_HOLD_RECHECK_MS * 2 ** Math.max(0, Math.min(count - 1, 10)));
}

/**
 * Status written after one attempt: `succeeded` on 2xx; `retrying` when the failure is retryable
 * and the schedule has an attempt left; else `failed`.
 */
export function attemptOutcome(ok: boolean, retryable: boolean, attempt: number): 'succeeded' | 'retrying' | 'failed' {
  if (ok) return 'succeeded';
  return retryable && retryDelayAfter(attempt) !== null ? 'retrying' : 'failed';
}

/**
 * Status and next due time of attempt number `attempt` that finished at `finishedAtMs` (epoch ms):
 * attemptOutcome, and for `retrying` the finish time plus retryDelayAfter(attempt), else null.
 */
export function attemptResult(
  ok: boolean,
  retryable: boolean,
  attempt: number,
  finishedAtMs: number,
): { outcome: 'succeeded' | 'retrying' | 'failed'; nextAttemptAtMs: number | null } {
  const outcome = attemptOutcome(ok, retryable, attempt);
  const delay = outcome === 'retrying' ? retryDelayAfter(attempt) : null;
  return { outcome, nextAttemptAtMs: delay === null ? null : finishedAtMs + delay };
}

/**
 * How a batch of attempt outcomes (in completion order) moves an endpoint's consecutive-failure
 * count: `reset` when the batch holds a success (the count restarts from the failures after the
 * last success), and `failures` to add (after the reset, if any).
 */
export function failureStreakChange(outcomes: ReadonlyArray<'succeeded' | 'retrying' | 'failed'>): { reset: boolean; failures: number } {
  let reset = false;
  let failures = 0;
  for (const o of outcomes) {
    if (o === 'succeeded') {
      reset = true;
      failures = 0;
    } else failures += 1;
  }
  return { reset, failures };
}
