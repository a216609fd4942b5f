/**
 * Tier A: subscriptionWorkflow logic with stub activities (no database): each turn is
 * `advanceSubscription` at workflow time with the object clock's origin, sleeping to the wake time
 * it answers (the next period start or due date), woken early by `changed` (pause, resume,
 * cancel), and parking on a non-retryable failure.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { subscriptionContract, type SubscriptionProgress } from '../../../contracts/subscription';
import { subscriptionWorkflow } from '../../../workflows/subscription';
import { startLogicEnv, timersOf, uid, waitingFor, withWorker, type Stubs } from './harness';

const DAY = 86_400_000;
const PERIOD = 30 * DAY;
const { update: changed, retry } = subscriptionContract.signals;

const billing = (nowMs: number, n: number): SubscriptionProgress => ({
  done: false,
  status: 'active',
  wakeAtMs: nowMs + PERIOD,
  waitingFor: `the start of period ${n}`,
});
const ended = (status: string, nowMs: number): SubscriptionProgress => ({
  done: true,
  status,
  wakeAtMs: nowMs,
  waitingFor: `nothing (${status})`,
});

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startLogicEnv();
}, 120_000);
afterAll(async () => {
  await env?.teardown();
});

const start = (taskQueue: string, subscriptionId = uid('sub_')) =>
  env.client.workflow.start(subscriptionWorkflow, { taskQueue, workflowId: subscriptionId, args: [{ subscriptionId }] });

test('bills each period on its own timer and ends completed after the last one; the origin stays the same', async () => {
  const calls: Array<{ nowMs: number; originMs: number | undefined }> = [];
  const acts: Stubs<typeof subscriptionContract> = {
    advanceSubscription: async (_id, nowMs, originMs) => {
      calls.push({ nowMs, originMs });
      return calls.length < 3 ? billing(nowMs, calls.length) : ended('completed', nowMs);
    },
  };
  await withWorker(env, subscriptionContract, acts, async (tq) => {
    const h = await start(tq);
    expect(await waitingFor(h, /^the start of period/)).toBe('the start of period 1');
    expect(await h.result()).toBe('completed');
    const timers = await timersOf(h);
    expect(timers).toHaveLength(2);
    for (const t of timers) {
      expect(t).toBeGreaterThan(PERIOD - 60_000);
      expect(t).toBeLessThanOrEqual(PERIOD);
    }
  });
  expect(calls).toHaveLength(3);
  expect(calls[2].nowMs - calls[0].nowMs).toBeGreaterThanOrEqual(2 * PERIOD - 120_000);
  expect(calls.every((c) => c.originMs === calls[0].nowMs)).toBe(true);
});

test('`changed` (a cancel was written) wakes it before the period starts and it ends cancelled', async () => {
  const calls: number[] = [];
  let cancelled = false;
  const acts: Stubs<typeof subscriptionContract> = {
    advanceSubscription: async (_id, nowMs) => {
      calls.push(nowMs);
      return cancelled ? ended('cancelled', nowMs) : billing(nowMs, 1);
    },
  };
  await withWorker(env, subscriptionContract, acts, async (tq) => {
    const h = await start(tq);
    await waitingFor(h, /^the start of period 1/);
    cancelled = true;
    await h.signal(changed);
    expect(await h.result()).toBe('cancelled');
  });
  expect(calls).toHaveLength(2);
  expect(calls[1] - calls[0]).toBeLessThan(PERIOD);
});

test('a non-retryable failure parks the subscription for an operator; the retry signal runs the turn again', async () => {
  let n = 0;
  const acts: Stubs<typeof subscriptionContract> = {
    advanceSubscription: async (_id, nowMs) => {
      n += 1;
      if (n === 1) throw ApplicationFailure.nonRetryable('subscription sub_x not found', 'NotFound');
      return ended('cancelled', nowMs);
    },
  };
  await withWorker(env, subscriptionContract, acts, async (tq) => {
    const h = await start(tq);
    expect(await waitingFor(h, /^an operator: /)).toBe(
      'an operator: NotFound: subscription sub_x not found (fix the cause, then send the `retry` signal)',
    );
    await h.signal(retry);
    expect(await h.result()).toBe('cancelled');
  });
});
