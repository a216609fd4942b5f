/**
 * Webhook delivery workflow (spec 6; ARCHITECTURE.md "Data flow" 5-6): one run per delivery
 * (workflow id = the `whd_` delivery id), started by the dispatcher, `send_test_event` or a
 * replay with signalWithStart + `deliverSignal`.
 *
 * Retry schedule (spec 6 leaves it open; decided here): attempt 1 at once, then after each failed
 * attempt wait 30 s, 2 min, 10 min, 1 h, 6 h, 12 h, 24 h: 8 attempts over about 43 h 42 min,
 * then the delivery is `failed`. A failure is any non-2xx status (3xx included: redirects are
 * never followed), a timeout (10 s) or a connection error. While the `api_v1.webhooks_delivery`
 * switch is off an attempt is "held": nothing is sent, the attempt number is not used up, and
 * the workflow waits for a `deliver` signal (the dispatcher nudges held deliveries as soon as the
 * switch is on) or re-checks on its own after 30 s, doubling up to 5 min while the hold lasts, so
 * deliveries go out once the switch is on again. Long holds continue-as-new (workflows/convention.ts)
 * to keep history short, carrying the delivery id and the next attempt number (the schedule is the
 * workflow's own state). A non-retryable failure of the bookkeeping activity parks the delivery for
 * an operator; the `retry` signal (or `deliver`) runs the attempt again. `waiting_for` says what
 * the delivery waits for.
 *
 * Deterministic: only @temporalio/workflow APIs. The HTTP attempt runs as a local activity with
 * retries off (the workflow owns the schedule); the database-only bookkeeping activity may retry.
 */
import { activityOptions, continueAsNewIfDue, isoAt, parkForOperator, workflowNowMs } from './convention';
import { ActivityFailure, condition, defineQuery, defineSignal, proxyActivities, proxyLocalActivities, setHandler, sleep } from '@temporalio/workflow';
import type * as webhookActivities from '../activities/webhooks/activities';

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

/** First re-check of a held delivery (delivery switch off), ms; doubles per consecutive hold. */
export const WEBHOOK_HOLD_RECHECK_MS = 30_000;
/** Longest wait between re-checks of a held delivery, ms (the dispatcher's nudge usually comes first). */
export const WEBHOOK_HOLD_RECHECK_MAX_MS = 5 * 60_000;

/** Wait after the `n`-th consecutive hold (1-based), ms. */
export function holdRecheckAfter(n: number): number {
  return Math.min(WEBHOOK_HOLD_RECHECK_MAX_MS, WEBHOOK_HOLD_RECHECK_MS * 2 ** Math.max(0, Math.min(n - 1, 10)));
}

/** Arguments of webhookDeliveryWorkflow; `attempt` and `waitMs` are set only by continue-as-new. */
export interface WebhookDeliveryArgs {
  deliveryId: string;
  /** Next attempt number (1-based); default 1. */
  attempt?: number;
  /** Wait before that attempt, ms; default 0. */
  waitMs?: number;
}

/** Final outcome of a delivery run. */
export type WebhookDeliveryOutcome = 'succeeded' | 'failed' | 'cancelled' | 'done';

// The HTTP attempt is a local activity: it runs inside the workflow task on the worker that holds
// the workflow, with no activity-task round trips through the server (about half the server work
// per delivery; see bench/webhooks.ts). Bounded at 10 s of HTTP plus a few statements.
const http = proxyLocalActivities<webhookActivities.WebhookDeliveryWorkflowActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 1 },
});

const bookkeeping = proxyActivities<webhookActivities.WebhookDeliveryWorkflowActivities>({
  startToCloseTimeout: '30 seconds',
  retry: activityOptions({ retry: { maximumAttempts: 20 } }).retry,
});

/** Start or replay the delivery now; no args. */
export const deliverSignal = defineSignal('deliver');
/** Operator: the cause of a parked step was fixed; run it again. No arguments. */
export const webhookRetrySignal = defineSignal('retry');
/** Query: a human-readable description of what the delivery waits for. */
export const webhookWaitingForQuery = defineQuery<string>('waiting_for');

/** The retry wait after failed attempt `attempt` (1-based), or null when it was the last one. */
export function retryDelayAfter(attempt: number): number | null {
  return attempt >= 1 && attempt < WEBHOOK_MAX_ATTEMPTS ? WEBHOOK_RETRY_DELAYS_MS[attempt - 1] : null;
}

/**
 * Delivers one webhook: attempts per the schedule above until a 2xx (`succeeded`), the
 * schedule is exhausted (`failed`), or the endpoint is disabled/deleted (`cancelled`).
 * Returns the final outcome (`done` when the delivery was already final).
 */
export async function webhookDeliveryWorkflow(args: WebhookDeliveryArgs): Promise<WebhookDeliveryOutcome> {
  let nudged = false;
  let waitingFor = 'sending the first attempt';
  setHandler(deliverSignal, () => { nudged = true; });
  setHandler(webhookRetrySignal, () => { nudged = true; });
  setHandler(webhookWaitingForQuery, () => waitingFor);

  let attempt = args.attempt ?? 1;
  let waitMs = args.waitMs ?? 0;
  let consecutiveHolds = 0;
  for (;;) {
    if (waitMs > 0) {
      waitingFor = `attempt ${attempt} of ${WEBHOOK_MAX_ATTEMPTS} at ${isoAt(workflowNowMs() + waitMs)}`;
      await sleep(waitMs);
    }
    waitMs = 0;
    const nextRetryInMs = retryDelayAfter(attempt);
    // A nudge that arrives while the attempt runs must not be lost: reset before, test after.
    nudged = false;
    waitingFor = `attempt ${attempt} of ${WEBHOOK_MAX_ATTEMPTS} (sending)`;
    let outcome: Awaited<ReturnType<typeof http.attemptDelivery>>['outcome'];
    try {
      try {
        outcome = (await http.attemptDelivery(args.deliveryId, attempt, { nextRetryInMs })).outcome;
      } catch (e) {
        const message = e instanceof ActivityFailure ? String(e.cause?.message ?? e.message) : String(e);
        outcome = await bookkeeping.recordAttemptFailure(args.deliveryId, attempt, message.slice(0, 300), nextRetryInMs);
      }
    } catch (e) {
      await parkForOperator(e, { setWaitingFor: (s) => { waitingFor = s; }, resumed: () => nudged });
      continue;
    }
    switch (outcome) {
      case 'held': {
        consecutiveHolds += 1;
        // A safe point: the held attempt was not used up; the next run starts with it.
        await continueAsNewIfDue<typeof webhookDeliveryWorkflow>(!nudged, { deliveryId: args.deliveryId, attempt });
        const recheckMs = holdRecheckAfter(consecutiveHolds);
        waitingFor = `the webhooks delivery switch (attempt ${attempt} held; re-check at ${isoAt(workflowNowMs() + recheckMs)} or on a \`deliver\` signal)`;
        await condition(() => nudged, recheckMs);
        continue;
      }
      case 'retrying':
        consecutiveHolds = 0;
        waitMs = nextRetryInMs ?? 0;
        attempt += 1;
        continue;
      default:
        waitingFor = 'nothing (completed)';
        return outcome;
    }
  }
}
