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
 * deliveries go out once the switch is on again. Long holds continue-as-new to keep history short.
 *
 * Deterministic: only @temporalio/workflow APIs. The HTTP attempt runs as a local activity with
 * retries off (the workflow owns the schedule); the database-only bookkeeping activity may retry.
 */
import { ActivityFailure, condition, continueAsNew, defineSignal, proxyActivities, proxyLocalActivities, setHandler, sleep } from '@temporalio/workflow';
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

/** Held re-checks per run before continue-as-new. */
const HOLD_LOOPS_PER_RUN = 200;

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
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20 },
});

/** Start or replay the delivery now; no args. */
export const deliverSignal = defineSignal('deliver');

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
  setHandler(deliverSignal, () => { nudged = true; });

  let attempt = args.attempt ?? 1;
  let waitMs = args.waitMs ?? 0;
  let holds = 0;
  let consecutiveHolds = 0;
  for (;;) {
    if (waitMs > 0) await sleep(waitMs);
    waitMs = 0;
    const nextRetryInMs = retryDelayAfter(attempt);
    // A nudge that arrives while the attempt runs must not be lost: reset before, test after.
    nudged = false;
    let outcome: webhookActivities.AttemptResult['outcome'];
    try {
      outcome = (await http.attemptDelivery(args.deliveryId, attempt, { nextRetryInMs })).outcome;
    } catch (e) {
      const message = e instanceof ActivityFailure ? String(e.cause?.message ?? e.message) : String(e);
      outcome = await bookkeeping.recordAttemptFailure(args.deliveryId, attempt, message.slice(0, 300), nextRetryInMs);
    }
    switch (outcome) {
      case 'held':
        holds += 1;
        consecutiveHolds += 1;
        if (holds >= HOLD_LOOPS_PER_RUN) {
          await continueAsNew<typeof webhookDeliveryWorkflow>({ deliveryId: args.deliveryId, attempt });
        }
        await condition(() => nudged, holdRecheckAfter(consecutiveHolds));
        continue;
      case 'retrying':
        consecutiveHolds = 0;
        waitMs = nextRetryInMs ?? 0;
        attempt += 1;
        continue;
      default:
        return outcome;
    }
  }
}
