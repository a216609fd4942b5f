/**
 * Tier A: webhookDeliveryWorkflow logic with stub activities (no database, no HTTP): the retry
 * schedule to `failed`, `succeeded`, `cancelled`, `done`, holds (re-check back-off and the
 * `deliver` nudge), a crashed attempt recorded by bookkeeping, parking on a non-retryable
 * bookkeeping failure and the `retry` signal, the `waiting_for` answers, continue-as-new.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import {
  deliverSignal, holdRecheckAfter, WEBHOOK_MAX_ATTEMPTS, WEBHOOK_RETRY_DELAYS_MS, webhookDeliveryWorkflow, webhookRetrySignal,
} from '../../../workflows/webhook-delivery';
import { callerRunId, startLogicEnv, timersOf, uid, waitingFor, withWorker, type Stubs } from './harness';

type Outcome = 'succeeded' | 'retrying' | 'failed' | 'held' | 'cancelled' | 'done';
const result = (outcome: Outcome) => ({ outcome, ok: outcome === 'succeeded', retryable: outcome === 'retrying' || outcome === 'held', statusCode: null, error: null });

/** Stubs that answer attempts from `script` (then `fallback`); `calls` gets [attempt, nextRetryInMs]. */
function scripted(script: Array<Outcome | 'throw'>, fallback: Outcome = 'succeeded') {
  const calls: Array<[number, number | null]> = [];
  const failures: Array<[number, string, number | null]> = [];
  const acts: Stubs = {
    attemptDelivery: async (_id: string, n: number, o: { nextRetryInMs?: number | null }) => {
      calls.push([n, o.nextRetryInMs ?? null]);
      const next = script.shift() ?? fallback;
      if (next === 'throw') throw new Error('database unavailable');
      return result(next);
    },
    recordAttemptFailure: async (_id: string, n: number, error: string, next: number | null) => {
      failures.push([n, error, next]);
      return next === null ? 'failed' : 'retrying';
    },
  };
  return { calls, failures, acts };
}

let env: TestWorkflowEnvironment;
beforeAll(async () => { env = await startLogicEnv(); }, 120_000);
afterAll(async () => { await env?.teardown(); });

const start = (taskQueue: string, deliveryId = uid('whd_')) =>
  env.client.workflow.start(webhookDeliveryWorkflow, { taskQueue, workflowId: deliveryId, args: [{ deliveryId }] });

test('every attempt fails: the whole schedule, then failed', async () => {
  const s = scripted([], 'retrying');
  // The last attempt is told there is no next one; the stub then answers `failed`.
  const attempt = s.acts.attemptDelivery;
  s.acts.attemptDelivery = async (id, n, o) => (o.nextRetryInMs === null ? result('failed') : attempt(id, n, o));
  await withWorker(env, s.acts, async (tq) => {
    const h = await start(tq);
    expect(await h.result()).toBe('failed');
    expect(await timersOf(h)).toEqual([...WEBHOOK_RETRY_DELAYS_MS]);
    expect(await h.query('waiting_for')).toBe('nothing (completed)');
  });
  expect(s.calls.map((c) => c[0])).toEqual(Array.from({ length: WEBHOOK_MAX_ATTEMPTS - 1 }, (_, i) => i + 1));
});

test('success after retries; waiting_for names the next attempt and its time', async () => {
  const s = scripted(['retrying', 'retrying', 'succeeded']);
  await withWorker(env, s.acts, async (tq) => {
    const h = await start(tq);
    expect(await h.result()).toBe('succeeded');
    expect(await timersOf(h)).toEqual([30_000, 120_000]);
  });
  expect(s.calls).toEqual([[1, 30_000], [2, 120_000], [3, 600_000]]);

  // A delivery waiting for its retry says so.
  const slow = scripted(['retrying', 'retrying', 'retrying', 'retrying', 'succeeded']);
  await withWorker(env, slow.acts, async (tq) => {
    const h = await start(tq);
    expect(await waitingFor(h, /^attempt 2 of 8 at /)).toMatch(/^attempt 2 of 8 at \d{4}-\d\d-\d\dT/);
    expect(await h.result()).toBe('succeeded');
  });
});

test('cancelled and done end at once', async () => {
  for (const outcome of ['cancelled', 'done'] as const) {
    await withWorker(env, scripted([outcome]).acts, async (tq) => {
      expect(await (await start(tq)).result()).toBe(outcome);
    });
  }
});

test('held: re-checks back off without using up attempts; a deliver signal re-attempts at once', async () => {
  const s = scripted(['held', 'held', 'held', 'succeeded']);
  await withWorker(env, s.acts, async (tq) => {
    const h = await start(tq);
    // The first hold waits (time does not skip while the test queries) and is nudged; the next two
    // pass on their re-check timers (30 s, then doubled).
    await waitingFor(h, /^the webhooks delivery switch/);
    expect(await h.query('waiting_for')).toMatch(/^the webhooks delivery switch \(attempt 1 held; re-check at .* or on a `deliver` signal\)$/);
    await h.signal(deliverSignal);
    expect(await h.result()).toBe('succeeded');
    expect(await timersOf(h)).toEqual([holdRecheckAfter(1), holdRecheckAfter(2), holdRecheckAfter(3)]);
  });
  expect(s.calls.map((c) => c[0])).toEqual([1, 1, 1, 1]);
});

test('a crashed attempt is recorded through bookkeeping and the schedule goes on', async () => {
  const s = scripted(['throw', 'succeeded']);
  await withWorker(env, s.acts, async (tq) => {
    expect(await (await start(tq)).result()).toBe('succeeded');
  });
  expect(s.failures).toEqual([[1, expect.stringContaining('database unavailable'), 30_000]]);
});

test('a non-retryable bookkeeping failure parks the delivery for an operator; the retry signal runs the attempt again', async () => {
  const s = scripted(['throw', 'succeeded']);
  let records = 0;
  const record = s.acts.recordAttemptFailure;
  s.acts.recordAttemptFailure = async (...a) => {
    records += 1;
    if (records === 1) throw ApplicationFailure.nonRetryable('delivery whd_x not found', 'NotFound');
    return record(...a);
  };
  await withWorker(env, s.acts, async (tq) => {
    const h = await start(tq);
    expect(await waitingFor(h, /^an operator: /)).toBe('an operator: NotFound: delivery whd_x not found (fix the cause, then send the `retry` signal)');
    await h.signal(webhookRetrySignal);
    expect(await h.result()).toBe('succeeded');
  });
  expect(s.calls.map((c) => c[0])).toEqual([1, 1]);
});

test('a long hold continues as new with the delivery id and the attempt number', async () => {
  const runs = new Set<string>();
  const s = scripted([], 'held');
  const attempt = s.acts.attemptDelivery;
  s.acts.attemptDelivery = async (id, n, o) => {
    runs.add(callerRunId());
    if (runs.size === 1 && n === 1 && s.calls.length === 0) { s.calls.push([n, o.nextRetryInMs ?? null]); return result('retrying'); }
    return runs.size === 1 ? attempt(id, n, o) : result('succeeded');
  };
  await withWorker(env, s.acts, async (tq) => {
    const h = await start(tq);
    expect(await h.result()).toBe('succeeded');
    const first = await env.client.workflow.getHandle(h.workflowId, h.firstExecutionRunId).fetchHistory();
    const can = first.events!.at(-1)!.workflowExecutionContinuedAsNewEventAttributes!;
    expect(env.client.options.loadedDataConverter.payloadConverter.fromPayload(can.input!.payloads![0])).toEqual({ deliveryId: h.workflowId, attempt: 2 });
  });
  expect(runs.size).toBe(2);
  expect(s.calls.length).toBeGreaterThan(100);
}, 60_000);
