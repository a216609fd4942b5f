/**
 * Tier A: webhookEndpointWorkflow logic with a stub drain (no database, no HTTP): draining again
 * while deliveries are due, sleeping until the next retry, ending idle or closed, holds (re-check
 * back-off and the `deliver` nudge), parking on a non-retryable drain failure and the `retry`
 * signal, the `waiting_for` and `deliveries` answers, continue-as-new with the endpoint id only.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { webhookEndpointContract, type DrainSummary } from '../../../contracts/webhook-endpoint';
import { holdRecheckAfter } from '../../../domain/webhook-schedule';
import { webhookEndpointWorkflow } from '../../../workflows/webhook-endpoint';
import { callerRunId, startLogicEnv, timersOf, uid, waitingFor, withWorker, type Stubs } from './harness';

const { update: deliverSignal, retry: webhookRetrySignal } = webhookEndpointContract.signals;

/** A summary of an open drain with `live` deliveries left, `due` of them due now, the next retry `nextInMs` after `nowMs`. */
const open = (o: Partial<DrainSummary> = {}): DrainSummary => ({
  state: 'open', closedReason: null, sent: 0, succeeded: 0, retrying: 0, failed: 0, cancelled: 0, live: 0, due: 0, nextDueAtMs: null, failing: [], ...o,
});

/** Stub drains answering from `script` (functions of the workflow time passed in); `calls` gets each `nowMs`. */
function scripted(script: Array<((nowMs: number) => DrainSummary) | 'throw-nonretryable'>) {
  const calls: number[] = [];
  const acts: Stubs<typeof webhookEndpointContract> = {
    drainEndpoint: async (_id: string, nowMs: number) => {
      calls.push(nowMs);
      const next = script.shift() ?? (() => open());
      if (next === 'throw-nonretryable') throw ApplicationFailure.nonRetryable('endpoint row unreadable', 'NotFound');
      return next(nowMs);
    },
  };
  return { calls, acts };
}

let env: TestWorkflowEnvironment;
beforeAll(async () => { env = await startLogicEnv(); }, 120_000);
afterAll(async () => { await env?.teardown(); });

const start = (taskQueue: string, endpointId = uid('whe_')) =>
  env.client.workflow.start(webhookEndpointWorkflow, { taskQueue, workflowId: endpointId, args: [{ endpointId }] });

test('drains again at once while deliveries are due, then ends idle', async () => {
  const s = scripted([() => open({ sent: 500, live: 700, due: 200 }), () => open({ sent: 200, succeeded: 200 })]);
  await withWorker(env, webhookEndpointContract, s.acts, async (tq) => {
    const h = await start(tq);
    expect(await h.result()).toBe('idle');
    expect(await timersOf(h)).toEqual([]);
    expect(await h.query('waiting_for')).toBe('nothing (idle; the next delivery starts a new run)');
    expect(await h.query('deliveries')).toMatchObject({ state: 'open', sent: 200, live: 0 });
  });
  expect(s.calls).toHaveLength(2);
});

test('sleeps until the earliest retry, naming the failing deliveries; the drain gets the skipped time', async () => {
  const s = scripted([
    (now) => open({ sent: 2, retrying: 1, succeeded: 1, live: 1, nextDueAtMs: now + 30_000, failing: [{ id: 'whd_a', attempts: 1, nextAttemptAtMs: now + 30_000, lastError: 'http_status_500' }] }),
    (now) => open({ sent: 1, retrying: 1, live: 1, nextDueAtMs: now + 120_000, failing: [{ id: 'whd_a', attempts: 2, nextAttemptAtMs: now + 120_000, lastError: 'timeout' }] }),
    () => open({ sent: 1, succeeded: 1 }),
  ]);
  await withWorker(env, webhookEndpointContract, s.acts, async (tq) => {
    const h = await start(tq);
    expect(await waitingFor(h, /waiting for a retry/)).toMatch(
      /^1 delivery waiting for a retry; next retry at \d{4}-\d\d-\d\dT.*; failing: whd_a \(attempt 2 of 8, last error http_status_500\) \(or a `deliver` signal\)$/);
    expect(await h.result()).toBe('idle');
    // The wait is measured from the workflow's clock after the drain: the scheduled time less the drain's run time
    // (a few hundred ms on a quiet machine, more on a loaded one; never more than the scheduled time).
    const timers = await timersOf(h);
    expect(timers).toHaveLength(2);
    [30_000, 120_000].forEach((due, i) => { expect(timers[i]).toBeLessThanOrEqual(due); expect(timers[i]).toBeGreaterThan(due - 5_000); });
  });
  expect(s.calls[1] - s.calls[0]).toBeGreaterThanOrEqual(30_000);
  expect(s.calls[2] - s.calls[1]).toBeGreaterThanOrEqual(120_000);
});

test('a deliver signal during a retry wait drains at once', async () => {
  const s = scripted([(now) => open({ live: 1, nextDueAtMs: now + 3_600_000 }), () => open()]);
  await withWorker(env, webhookEndpointContract, s.acts, async (tq) => {
    const h = await start(tq);
    await waitingFor(h, /waiting for a retry/);
    await h.signal(deliverSignal);
    expect(await h.result()).toBe('idle');
  });
  expect(s.calls[1] - s.calls[0]).toBeLessThan(3_600_000);
});

test('closed endpoints end the run with the reason', async () => {
  for (const reason of ['endpoint_disabled', 'endpoint_deleted', 'endpoint_not_found'] as const) {
    const s = scripted([() => ({ ...open({ cancelled: 3 }), state: 'closed', closedReason: reason })]);
    await withWorker(env, webhookEndpointContract, s.acts, async (tq) => {
      const h = await start(tq);
      expect(await h.result()).toBe(reason);
      expect(await h.query('waiting_for')).toBe(`nothing (${reason}; re-enabling the endpoint starts a new run)`);
    });
  }
});

test('held: re-checks back off; a deliver signal drains at once', async () => {
  const held = () => ({ ...open({ live: 4, due: 4 }), state: 'held' as const });
  const s = scripted([held, held, held, () => open({ sent: 4, succeeded: 4 })]);
  await withWorker(env, webhookEndpointContract, s.acts, async (tq) => {
    const h = await start(tq);
    // The first hold waits (time does not skip while the test queries) and is nudged; the next two
    // pass on their re-check timers (30 s, then doubled).
    await waitingFor(h, /^the webhooks delivery switch/);
    expect(await h.query('waiting_for')).toMatch(/^the webhooks delivery switch \(4 live deliveries held; re-check at .* or on a `deliver` signal\)$/);
    await h.signal(deliverSignal);
    expect(await h.result()).toBe('idle');
    expect(await timersOf(h)).toEqual([holdRecheckAfter(1), holdRecheckAfter(2), holdRecheckAfter(3)]);
  });
  expect(s.calls).toHaveLength(4);
});

test('a non-retryable drain failure parks the endpoint for an operator; the retry signal drains again', async () => {
  const s = scripted(['throw-nonretryable', () => open({ sent: 1, succeeded: 1 })]);
  await withWorker(env, webhookEndpointContract, s.acts, async (tq) => {
    const h = await start(tq);
    expect(await waitingFor(h, /^an operator: /)).toBe('an operator: NotFound: endpoint row unreadable (fix the cause, then send the `retry` signal)');
    await h.signal(webhookRetrySignal);
    expect(await h.result()).toBe('idle');
  });
  expect(s.calls).toHaveLength(2);
});

test('a long run continues as new with the endpoint id only', async () => {
  const runs = new Set<string>();
  let n = 0;
  const acts: Stubs<typeof webhookEndpointContract> = {
    drainEndpoint: async (_id: string, now: number) => {
      runs.add(callerRunId());
      n += 1;
      // A retry due every second until the second run begins, then nothing live.
      return runs.size === 1 ? open({ live: 1, nextDueAtMs: now + 1_000 }) : open();
    },
  };
  await withWorker(env, webhookEndpointContract, acts, async (tq) => {
    const h = await start(tq);
    expect(await h.result()).toBe('idle');
    const first = await env.client.workflow.getHandle(h.workflowId, h.firstExecutionRunId).fetchHistory();
    const can = first.events!.at(-1)!.workflowExecutionContinuedAsNewEventAttributes!;
    expect(env.client.options.loadedDataConverter.payloadConverter.fromPayload(can.input!.payloads![0])).toEqual({ endpointId: h.workflowId });
  });
  expect(runs.size).toBe(2);
  expect(n).toBeGreaterThan(100);
}, 120_000);
