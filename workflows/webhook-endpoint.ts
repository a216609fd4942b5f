/**
 * Webhook endpoint workflow (spec 6; ARCHITECTURE.md "Data flow" 5-6;
 * docs/decisions/0052-webhooks-one-workflow-per-endpoint.md,
 * docs/decisions/0090-webhook-endpoint-run-waits.md): one run per webhook endpoint with live or
 * recent deliveries (workflow id = the `whe_` endpoint id, AccountId attribute). Started or woken
 * with signalWithStart + `deliver` by the dispatcher after it commits new deliveries (one signal per
 * endpoint per dispatch pass), by `send_test_event`, replays, re-enabling, disabling and deleting;
 * the dispatcher's sweep re-sends a lost wake-up. A signal to a run that is waiting wakes it; only
 * when no run is open does signalWithStart start one.
 *
 * The loop: call `drainEndpoint` (activities/webhooks/drain.ts: every due delivery, many requests
 * at once, results written in batches, the retry schedule of domain/webhook-schedule.ts written on
 * the rows as `next_attempt_at`), then
 * - `closed` (endpoint disabled, deleted or gone; its live deliveries cancelled): the run ends;
 * - deliveries still due (a full batch), or a `deliver` signal arrived meanwhile: drain again at once;
 * - `held` (the `api_v1.webhooks_delivery` switch is off; nothing sent, no attempt used up): wait
 *   for `deliver` (the dispatcher nudges held endpoints once the switch is on) or re-check after
 *   30 s, doubling up to 5 min while the hold lasts;
 * - retries pending: sleep until the earliest `next_attempt_at` or a `deliver` signal;
 * - nothing live: wait for `deliver` up to ENDPOINT_IDLE_MS (5 min) and drain again on the signal,
 *   so at a steady rate a delivery costs a signal and (at most) one drain call, never a new run;
 *   after that quiet period the run ends (`idle`) and the next delivery starts a new one. A run
 *   recorded before this wait (no ENDPOINT_IDLE_WAIT_PATCH marker) ends `idle` right after the
 *   drain, as it did (docs/workflow-versioning.md).
 * Deliveries and attempts stay in PostgreSQL and are what the API serves; the run holds no state a
 * restart could lose, and continues as new with the endpoint id only (workflows/convention.ts, and
 * before a drain when a `deliver` is pending: the signal means only "drain", which the next run does
 * first), so a run that waits and wakes for days keeps a short history.
 * A non-retryable drain failure parks the run for an operator; `retry` (or `deliver`) runs it again.
 *
 * Operators: `waiting_for` says what is pending and when the next retry is due, naming the failing
 * deliveries, or, while idle, since when and when the run ends; `deliveries` answers the last drain
 * summary as data.
 *
 * Deterministic: only @temporalio/workflow APIs and pure domain rules.
 */
import { continueAsNew, patched, proxyActivities } from '@temporalio/workflow';
import { holdRecheckAfter, WEBHOOK_MAX_ATTEMPTS } from '../domain/webhook-schedule';
import {
  webhookEndpointContract,
  type DrainSummary,
  type WebhookEndpointActivities,
  type WebhookEndpointArgs,
  type WebhookEndpointOutcome,
} from '../contracts/webhook-endpoint';
import { activityOptions, again, continueAsNewDue, done, isoAt, runObjectLoop, waitFor, workflowNowMs } from './convention';

// A drain sends up to 2,000 deliveries, 64 at a time, 10 s budget each: bounded well under 5 min.
// It heartbeats every 2 s, so a drain lost with a killed worker is retried within 10 s.
const acts = proxyActivities<WebhookEndpointActivities>(
  activityOptions('database', { startToCloseTimeout: '5 minutes', heartbeatTimeout: '10 seconds' }),
);

/**
 * How long a run with nothing live waits for the next `deliver` before it ends `idle`, ms (5 min).
 * Why wait: a run that ended after every drain cost a workflow start, a completion and a fresh
 * history per delivery. Five minutes is far longer than the gap between deliveries of any endpoint
 * with steady traffic (so those never start a run again), and short enough that an endpoint that
 * went quiet stops holding an open run, a worker cache slot and a timer within minutes. A waiting
 * run costs nothing but its timer; each wake-up adds about a dozen events, and the convention's
 * continue-as-new (CONTINUE_AS_NEW_AFTER_EVENTS) keeps the history short.
 */
export const ENDPOINT_IDLE_MS = 5 * 60_000;

/**
 * Patch id of the idle wait (docs/workflow-versioning.md; never reused): a history recorded before
 * it ends `idle` right after a drain that left nothing live, and replays that way. The same marker
 * lets a run woken signal after signal continue as new before its next drain.
 */
export const ENDPOINT_IDLE_WAIT_PATCH = 'webhook-endpoint-waits-when-idle';

/** The `waiting_for` answer after an open drain that left deliveries waiting for a retry. */
export function describeRetries(drainSummary: DrainSummary): string {
  const failing = drainSummary.failing.map(
    (f) => `${f.id} (attempt ${f.attempts + 1} of ${WEBHOOK_MAX_ATTEMPTS}${f.lastError ? `, last error ${f.lastError}` : ''})`,
  );
  const next = drainSummary.nextDueAtMs === null ? '' : `; next retry at ${isoAt(drainSummary.nextDueAtMs)}`;
  return `${drainSummary.live} deliver${drainSummary.live === 1 ? 'y' : 'ies'} waiting for a retry${next}${failing.length ? `; failing: ${failing.join(', ')}` : ''} (or a \`deliver\` signal)`;
}

/** Drains endpoint `args.endpointId` until it has been idle for ENDPOINT_IDLE_MS or is closed (see module doc); returns why it ended. */
export async function webhookEndpointWorkflow(args: WebhookEndpointArgs): Promise<WebhookEndpointOutcome> {
  let last: DrainSummary | null = null;
  let consecutiveHolds = 0;
  return runObjectLoop({
    contract: webhookEndpointContract,
    initially: 'draining due deliveries',
    queries: { deliveries: () => last },
    continueAsNew: () => continueAsNew<typeof webhookEndpointWorkflow>(args),
    step: async (loop) => {
      // The loop continues as new only at a turn with no signal pending, which a run woken by `deliver` after
      // `deliver` never reaches. `deliver` carries nothing but "drain", and a new run drains first: continue here.
      if (continueAsNewDue() && patched(ENDPOINT_IDLE_WAIT_PATCH)) await continueAsNew<typeof webhookEndpointWorkflow>(args);
      // A signal that arrives while the drain runs is not lost: the loop clears the flag before the step, tests it after.
      loop.setWaitingFor('draining due deliveries (sending)');
      const s = await acts.drainEndpoint(args.endpointId, workflowNowMs());
      last = s;
      if (s.state === 'closed')
        return done(s.closedReason ?? 'endpoint_not_found', `nothing (${s.closedReason}; re-enabling the endpoint starts a new run)`);
      if (s.state === 'held') {
        consecutiveHolds += 1;
        const recheckAt = workflowNowMs() + holdRecheckAfter(consecutiveHolds);
        return waitFor(
          `the webhooks delivery switch (${s.live} live deliver${s.live === 1 ? 'y' : 'ies'} held; re-check at ${isoAt(recheckAt)} or on a \`deliver\` signal)`,
          { atMs: recheckAt },
        );
      }
      consecutiveHolds = 0;
      if (s.due > 0 || loop.woken()) return again();
      if (s.live === 0) {
        if (!patched(ENDPOINT_IDLE_WAIT_PATCH))
          return done<WebhookEndpointOutcome>('idle', 'nothing (idle; the next delivery starts a new run)');
        // Nothing live: wait for the next `deliver` (drain again) up to the idle period, then end.
        const idleSince = workflowNowMs();
        const endsAt = idleSince + ENDPOINT_IDLE_MS;
        return waitFor(`new deliveries (idle since ${isoAt(idleSince)}; the run ends at ${isoAt(endsAt)} if none)`, {
          atMs: endsAt,
          // A signal that lands with the timer in the same task still drains: the news is read before the run ends.
          after: async (woke) =>
            woke || loop.woken()
              ? undefined
              : done<WebhookEndpointOutcome>('idle', `nothing (idle since ${isoAt(idleSince)}; the next delivery starts a new run)`),
        });
      }
      return waitFor(describeRetries(s), { atMs: s.nextDueAtMs });
    },
  });
}
