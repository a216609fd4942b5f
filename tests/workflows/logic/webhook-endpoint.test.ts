/**
 * Tier A: webhookEndpointWorkflow logic with a stub drain (no database, no HTTP): draining again
 * while deliveries are due, sleeping until the next retry, waiting for new deliveries when nothing is
 * live (a `deliver` drains again in the same run; the run ends idle after ENDPOINT_IDLE_MS; issue 36),
 * ending closed, holds (re-check back-off and the `deliver` nudge), parking on a non-retryable drain
 * failure and the `retry` signal, the `waiting_for` and `deliveries` answers, continue-as-new with the
 * endpoint id only.
 */
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { webhookEndpointContract, type DrainSummary } from '../../../contracts/webhook-endpoint';
import { holdRecheckAfter } from '../../../domain/webhook-schedule';
import { CONTINUE_AS_NEW_AFTER_EVENTS } from '../../../workflows/convention';
import { ENDPOINT_IDLE_MS, ENDPOINT_IDLE_WAIT_PATCH, webhookEndpointWorkflow } from '../../../workflows/webhook-endpoint';
import { callerRunId, startLogicEnv, timersOf, uid, waitingFor, withWorker, type Stubs } from './harness';

const { update: deliverSignal, retry: webhookRetrySignal } = webhookEndpointContract.signals;

/** A summary of an open drain with `live` deliveries left, `due` of them due now, the next retry `nextInMs` after `nowMs`. */
const open = (o: Partial<DrainSummary> = {}): DrainSummary => ({
  state: 'open',
  closedReason: null,
  sent: 0,
  succeeded: 0,
  retrying: 0,
  failed: 0,
  cancelled: 0,
  live: 0,
  due: 0,
  nextDueAtMs: null,
  failing: [],
  ...o,
});

/** Stub drains answering from `script` (functions of the workflow time passed in); `calls` gets each `nowMs`, `runs` the calling run ids. */
function scripted(script: Array<((nowMs: number) => DrainSummary) | 'throw-nonretryable'>) {
  const calls: number[] = [];
  const runs: string[] = [];
  const acts: Stubs<typeof webhookEndpointContract> = {
    drainEndpoint: async (_id: string, nowMs: number) => {
      calls.push(nowMs);
      runs.push(callerRunId());
      const next = script.shift() ?? (() => open());
      if (next === 'throw-nonretryable') throw ApplicationFailure.nonRetryable('endpoint row unreadable', 'NotFound');
      return next(nowMs);
    },
  };
  return { calls, runs, acts };
}

/** Resolves once `ready()` holds (polled every 20 ms; time does not skip meanwhile). */
async function until(what: string, ready: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The idle wait's `waiting_for`: since when, and when the run ends (ENDPOINT_IDLE_MS later). */
const IDLE_WAIT = /^new deliveries \(idle since (\S+); the run ends at (\S+) if none\)$/;

/** Checks an idle-wait answer: the end is ENDPOINT_IDLE_MS after the start; returns the start (ms). */
function idleSince(answer: string): number {
  const [, since, ends] = IDLE_WAIT.exec(answer)!;
  expect(Date.parse(ends) - Date.parse(since)).toBe(ENDPOINT_IDLE_MS);
  return Date.parse(since);
}

/** The history's markers, each as its name and its decoded details (JSON), in order. */
async function markers(h: WorkflowHandle): Promise<string[]> {
  const events = (await h.fetchHistory()).events ?? [];
  return events.flatMap((e) => {
    const m = e.markerRecordedEventAttributes;
    if (!m) return [];
    const values = Object.values(m.details ?? {})
      .flatMap((p) => p.payloads ?? [])
      .map((p) => defaultPayloadConverter.fromPayload(p));
    return [`${m.markerName} ${JSON.stringify(values)}`];
  });
}

/** Checks that the run recorded exactly one marker, the idle wait's patch. */
async function expectIdlePatchOnce(h: WorkflowHandle): Promise<void> {
  const all = await markers(h);
  expect(all).toHaveLength(1);
  expect(all[0]).toContain(`"${ENDPOINT_IDLE_WAIT_PATCH}"`);
}

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startLogicEnv();
}, 120_000);
afterAll(async () => {
  await env?.teardown();
});

const start = (taskQueue: string, endpointId = uid('whe_')) =>
  env.client.workflow.start(webhookEndpointWorkflow, { taskQueue, workflowId: endpointId, args: [{ endpointId }] });

test('drains again at once while deliveries are due; with nothing live waits for new deliveries, then ends idle after ENDPOINT_IDLE_MS', async () => {
  const s = scripted([() => open({ sent: 500, live: 700, due: 200 }), () => open({ sent: 200, succeeded: 200 })]);
  await withWorker(env, webhookEndpointContract, s.acts, async (tq) => {
    const h = await start(tq);
    const since = idleSince(await waitingFor(h, IDLE_WAIT));
    expect(s.calls).toHaveLength(2);
    expect(since).toBeGreaterThanOrEqual(s.calls[1]);
    // The run is open and answers its queries while it waits.
    expect((await h.describe()).status.name).toBe('RUNNING');
    expect(await h.query('deliveries')).toMatchObject({ state: 'open', sent: 200, live: 0 });
    const before = await env.currentTimeMs();
    expect(await h.result()).toBe('idle');
    expect((await env.currentTimeMs()) - before).toBeGreaterThanOrEqual(ENDPOINT_IDLE_MS - 5_000);
    expect(await timersOf(h)).toEqual([ENDPOINT_IDLE_MS]);
    expect(await h.query('waiting_for')).toBe(`nothing (idle since ${new Date(since).toISOString()}; the next delivery starts a new run)`);
    await expectIdlePatchOnce(h);
  });
  expect(s.calls).toHaveLength(2);
});

test('a deliver signal to a run waiting for new deliveries drains again in the same run; the idle period restarts from that drain', async () => {
  const s = scripted([() => open({ sent: 1, succeeded: 1 }), () => open({ sent: 3, succeeded: 3 }), () => open({ sent: 1, succeeded: 1 })]);
  await withWorker(env, webhookEndpointContract, s.acts, async (tq) => {
    const h = await start(tq);
    await waitingFor(h, IDLE_WAIT);
    // Two wake-ups, as the dispatcher sends them: each drains once, in the run that waits.
    for (const n of [2, 3]) {
      await h.signal(deliverSignal);
      await until(`drain ${n}`, () => s.calls.length === n);
      expect(idleSince(await waitingFor(h, IDLE_WAIT))).toBeGreaterThanOrEqual(s.calls[n - 1]);
    }
    expect(await h.query('deliveries')).toMatchObject({ sent: 1, live: 0 });
    expect(await h.result()).toBe('idle');
    expect(new Set(s.runs)).toEqual(new Set([h.firstExecutionRunId]));
    // One idle timer per wait (the first two cancelled by the signals), one patch marker per run.
    expect(await timersOf(h)).toEqual([ENDPOINT_IDLE_MS, ENDPOINT_IDLE_MS, ENDPOINT_IDLE_MS]);
    const events = (await h.fetchHistory()).events ?? [];
    expect(events.filter((e) => e.timerCanceledEventAttributes)).toHaveLength(2);
    expect(events.filter((e) => e.workflowExecutionSignaledEventAttributes)).toHaveLength(2);
    await expectIdlePatchOnce(h);
  });
  expect(s.calls).toHaveLength(3);
});

test('sleeps until the earliest retry, naming the failing deliveries; the drain gets the skipped time', async () => {
  const s = scripted([
    (now) =>
      open({
        sent: 2,
        retrying: 1,
        succeeded: 1,
        live: 1,
        nextDueAtMs: now + 30_000,
        failing: [{ id: 'whd_a', attempts: 1, nextAttemptAtMs: now + 30_000, lastError: 'http_status_500' }],
      }),
    (now) =>
      open({
        sent: 1,
        retrying: 1,
        live: 1,
        nextDueAtMs: now + 120_000,
        failing: [{ id: 'whd_a', attempts: 2, nextAttemptAtMs: now + 120_000, lastError: 'timeout' }],
      }),
    () => open({ sent: 1, succeeded: 1 }),
  ]);
  await withWorker(env, webhookEndpointContract, s.acts, async (tq) => {
    const h = await start(tq);
    expect(await waitingFor(h, /waiting for a retry/)).toMatch(
      /^1 delivery waiting for a retry; next retry at \d{4}-\d\d-\d\dT.*; failing: whd_a \(attempt 2 of 8, last error http_status_500\) \(or a `deliver` signal\)$/,
    );
    expect(await h.result()).toBe('idle');
    // The wait is measured from the workflow's clock after the drain: the scheduled time less the drain's run time
    // (a few hundred ms on a quiet machine, more on a loaded one; never more than the scheduled time).
    // Then the idle wait once nothing is live.
    const timers = await timersOf(h);
    expect(timers).toHaveLength(3);
    [30_000, 120_000].forEach((due, i) => {
      expect(timers[i]).toBeLessThanOrEqual(due);
      expect(timers[i]).toBeGreaterThan(due - 5_000);
    });
    expect(timers[2]).toBe(ENDPOINT_IDLE_MS);
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
    expect(await h.query('waiting_for')).toMatch(
      /^the webhooks delivery switch \(4 live deliveries held; re-check at .* or on a `deliver` signal\)$/,
    );
    await h.signal(deliverSignal);
    expect(await h.result()).toBe('idle');
    expect(await timersOf(h)).toEqual([holdRecheckAfter(1), holdRecheckAfter(2), holdRecheckAfter(3), ENDPOINT_IDLE_MS]);
  });
  expect(s.calls).toHaveLength(4);
});

test('a non-retryable drain failure parks the endpoint for an operator; the retry signal drains again', async () => {
  const s = scripted(['throw-nonretryable', () => open({ sent: 1, succeeded: 1 })]);
  await withWorker(env, webhookEndpointContract, s.acts, async (tq) => {
    const h = await start(tq);
    expect(await waitingFor(h, /^an operator: /)).toBe(
      'an operator: NotFound: endpoint row unreadable (fix the cause, then send the `retry` signal)',
    );
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
    expect(env.client.options.loadedDataConverter.payloadConverter.fromPayload(can.input!.payloads![0])).toEqual({
      endpointId: h.workflowId,
    });
  });
  expect(runs.size).toBe(2);
  expect(n).toBeGreaterThan(100);
}, 120_000);

test('a run woken by deliver after deliver continues as new before a drain once its history is long; the next run drains first', async () => {
  const runs: string[] = [];
  const acts: Stubs<typeof webhookEndpointContract> = {
    drainEndpoint: async () => {
      runs.push(callerRunId());
      return open({ sent: 1, succeeded: 1 });
    },
  };
  await withWorker(env, webhookEndpointContract, acts, async (tq) => {
    const h = await start(tq);
    await waitingFor(h, IDLE_WAIT);
    // Each wake-up: one signal, one drain, the idle wait again (about a dozen events), never a turn without a signal pending.
    while (new Set(runs).size < 2) {
      if (runs.length > 400) throw new Error(`${runs.length} drains and no continue-as-new`);
      const n = runs.length;
      await h.signal(deliverSignal);
      await until(`drain ${n + 1}`, () => runs.length > n);
    }
    const first = await env.client.workflow.getHandle(h.workflowId, h.firstExecutionRunId).fetchHistory();
    const events = first.events ?? [];
    expect(events.length).toBeGreaterThan(CONTINUE_AS_NEW_AFTER_EVENTS);
    expect(events.at(-1)!.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
    // The signal that found the history long was handled by the next run's first drain.
    expect(runs.at(-1)).not.toBe(h.firstExecutionRunId);
    expect(runs.filter((r) => r === h.firstExecutionRunId).length).toBe(runs.length - 1);
    await waitingFor(h, IDLE_WAIT);
    expect(await h.result()).toBe('idle');
  });
}, 120_000);
