/**
 * Webhook endpoint workflow (spec 6; ARCHITECTURE.md "Data flow" 5-6;
 * docs/decisions/0052-webhooks-one-workflow-per-endpoint.md): one run per webhook endpoint with live deliveries (workflow id = the
 * `whe_` endpoint id, AccountId attribute). Started or woken with signalWithStart + `deliver` by the
 * dispatcher after it commits new deliveries, by `send_test_event`, replays, re-enabling, disabling
 * and deleting; the dispatcher's sweep re-sends a lost wake-up.
 *
 * The loop: call `drainEndpoint` (activities/webhooks/drain.ts: every due delivery, many requests
 * at once, results written in batches, the retry schedule of domain/webhook-schedule.ts written on
 * the rows as `next_attempt_at`), then
 * - `closed` (endpoint disabled, deleted or gone; its live deliveries cancelled): the run ends;
 * - deliveries still due (a full batch): drain again at once;
 * - `held` (the `api_v1.webhooks_delivery` switch is off; nothing sent, no attempt used up): wait
 *   for `deliver` (the dispatcher nudges held endpoints once the switch is on) or re-check after
 *   30 s, doubling up to 5 min while the hold lasts;
 * - retries pending: sleep until the earliest `next_attempt_at` or a `deliver` signal;
 * - nothing live: the run ends (`idle`); the next delivery starts a new one.
 * Deliveries and attempts stay in PostgreSQL and are what the API serves; the run holds no state a
 * restart could lose, and continues as new with the endpoint id only (workflows/convention.ts).
 * A non-retryable drain failure parks the run for an operator; `retry` (or `deliver`) runs it again.
 *
 * Operators: `waiting_for` says what is pending and when the next retry is due, naming the failing
 * deliveries; `deliveries` answers the last drain summary as data.
 *
 * Deterministic: only @temporalio/workflow APIs and pure domain rules.
 */
import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import { holdRecheckAfter, WEBHOOK_MAX_ATTEMPTS } from '../domain/webhook-schedule';
import {
  webhookEndpointContract, type DrainSummary, type WebhookEndpointActivities, type WebhookEndpointArgs, type WebhookEndpointOutcome,
} from '../contracts/webhook-endpoint';
import { activityOptions, again, done, isoAt, runObjectLoop, waitFor, workflowNowMs } from './convention';

// A drain sends up to 2,000 deliveries, 64 at a time, 10 s budget each: bounded well under 5 min.
// It heartbeats every 2 s, so a drain lost with a killed worker is retried within 10 s.
const acts = proxyActivities<WebhookEndpointActivities>(activityOptions('database', { startToCloseTimeout: '5 minutes', heartbeatTimeout: '10 seconds' }));

/** The `waiting_for` answer after an open drain that left deliveries waiting for a retry. */
export function describeRetries(s: DrainSummary): string {
  const failing = s.failing.map((f) => `${f.id} (attempt ${f.attempts + 1} of ${WEBHOOK_MAX_ATTEMPTS}${f.lastError ? `, last error ${f.lastError}` : ''})`);
  const next = s.nextDueAtMs === null ? '' : `; next retry at ${isoAt(s.nextDueAtMs)}`;
  return `${s.live} deliver${s.live === 1 ? 'y' : 'ies'} waiting for a retry${next}${failing.length ? `; failing: ${failing.join(', ')}` : ''} (or a \`deliver\` signal)`;
}

/** Drains endpoint `args.endpointId` until it is idle or closed (see module doc); returns why it ended. */
export async function webhookEndpointWorkflow(args: WebhookEndpointArgs): Promise<WebhookEndpointOutcome> {
  let last: DrainSummary | null = null;
  let consecutiveHolds = 0;
  return runObjectLoop({
    contract: webhookEndpointContract,
    initially: 'draining due deliveries',
    queries: { deliveries: () => last },
    continueAsNew: () => continueAsNew<typeof webhookEndpointWorkflow>(args),
    step: async (loop) => {
      // A signal that arrives while the drain runs is not lost: the loop clears the flag before the step, tests it after.
      loop.setWaitingFor('draining due deliveries (sending)');
      const s = await acts.drainEndpoint(args.endpointId, workflowNowMs());
      last = s;
      if (s.state === 'closed') return done(s.closedReason ?? 'endpoint_not_found', `nothing (${s.closedReason}; re-enabling the endpoint starts a new run)`);
      if (s.state === 'held') {
        consecutiveHolds += 1;
        const recheckAt = workflowNowMs() + holdRecheckAfter(consecutiveHolds);
        return waitFor(`the webhooks delivery switch (${s.live} live deliver${s.live === 1 ? 'y' : 'ies'} held; re-check at ${isoAt(recheckAt)} or on a \`deliver\` signal)`, { atMs: recheckAt });
      }
      consecutiveHolds = 0;
      if (s.due > 0 || loop.woken()) return again();
      if (s.live === 0) return done<WebhookEndpointOutcome>('idle', 'nothing (idle; the next delivery starts a new run)');
      return waitFor(describeRetries(s), { atMs: s.nextDueAtMs });
    },
  });
}
