/**
 * Tier A: orderWorkflow logic with stub activities (no database, no quote provider): each turn is
 * `advanceOrder` at workflow time with the object clock's origin, woken by the `update` signal or
 * at the wake time it answers (the checkout deadline), a report arriving during the last turn read
 * before ending, and parking on a non-retryable failure.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { orderContract, type OrderProgress } from '../../../contracts/order';
import { orderWorkflow } from '../../../workflows/order';
import { gate, startLogicEnv, timersOf, uid, waitingFor, withWorker, type Stubs } from './harness';

const MIN = 60_000;
const HOUR = 60 * MIN;
const { update, retry } = orderContract.signals;

/** Stubs playing `turns` (each from the turn's workflow time), recording every call's arguments. */
function turns(script: Array<(nowMs: number) => OrderProgress>) {
  const calls: Array<{ orderId: string; nowMs: number; originMs: number | undefined }> = [];
  const acts: Stubs<typeof orderContract> = {
    advanceOrder: async (orderId, nowMs, originMs) => {
      calls.push({ orderId, nowMs, originMs });
      return script.shift()!(nowMs);
    },
  };
  return { calls, acts };
}
const open = (status: string, wakeAtMs: number, waitingFor: string): OrderProgress => ({ done: false, status, wakeAtMs, waitingFor });
const done = (status: string, nowMs: number): OrderProgress => ({ done: true, status, wakeAtMs: nowMs, waitingFor: `nothing (${status})` });

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startLogicEnv();
}, 120_000);
afterAll(async () => {
  await env?.teardown();
});

const start = (taskQueue: string, orderId = uid('ord_')) =>
  env.client.workflow.start(orderWorkflow, { taskQueue, workflowId: orderId, args: [{ orderId }] });

test("the provider's reports (`update`) move the order to completed; every turn carries the object clock's origin", async () => {
  const t = turns([
    (now) => open('awaiting_payment', now + 10 * MIN, 'the payer to pay the sandbox order (card)'),
    (now) => open('processing', now + 10 * MIN, 'the provider sandbox to deliver (money captured)'),
    (now) => done('completed', now),
  ]);
  await withWorker(env, orderContract, t.acts, async (tq) => {
    const h = await start(tq, 'ord_reports');
    expect(await waitingFor(h, /^the payer/)).toBe('the payer to pay the sandbox order (card)');
    await h.signal(update);
    expect(await waitingFor(h, /^the provider/)).toBe('the provider sandbox to deliver (money captured)');
    await h.signal(update);
    expect(await h.result()).toBe('completed');
    expect(await h.query('waiting_for')).toBe('nothing (completed)');
  });
  expect(t.calls.map((c) => c.orderId)).toEqual(['ord_reports', 'ord_reports', 'ord_reports']);
  // The origin is when the workflow began: the first turn's time, the same on every turn.
  expect(t.calls.every((c) => c.originMs === t.calls[0].nowMs)).toBe(true);
});

test('no payment: wakes at the checkout deadline it was told, and the turn at that time expires the order', async () => {
  let deadline = 0;
  const t = turns([
    (now) => {
      deadline = now + HOUR;
      return open('awaiting_payment', deadline, 'the payer to pay the sandbox order (card until later)');
    },
    (now) => (now >= deadline ? done('failed', now) : open('awaiting_payment', deadline, 'early')),
  ]);
  await withWorker(env, orderContract, t.acts, async (tq) => {
    const h = await start(tq);
    expect(await h.result()).toBe('failed');
    const [timer] = await timersOf(h);
    expect(timer).toBeGreaterThan(HOUR - MIN);
    expect(timer).toBeLessThanOrEqual(HOUR);
  });
  expect(t.calls).toHaveLength(2);
  expect(t.calls[1].nowMs).toBeGreaterThanOrEqual(deadline);
});

test('a report that arrives during the turn that ends the order is read before the workflow ends', async () => {
  const entered = gate();
  const hold = gate();
  const calls: number[] = [];
  const acts: Stubs<typeof orderContract> = {
    advanceOrder: async (_id, nowMs) => {
      calls.push(nowMs);
      if (calls.length === 1) {
        entered.open();
        await hold.promise;
        return done('failed', nowMs);
      }
      return done('refunded', nowMs);
    },
  };
  await withWorker(env, orderContract, acts, async (tq) => {
    const h = await start(tq);
    await entered.promise;
    await h.signal(update);
    hold.open();
    expect(await h.result()).toBe('refunded');
  });
  expect(calls).toHaveLength(2);
});

test('a non-retryable failure parks the order for an operator; the retry signal runs the turn again', async () => {
  let n = 0;
  const acts: Stubs<typeof orderContract> = {
    advanceOrder: async (_id, nowMs) => {
      n += 1;
      if (n === 1) throw ApplicationFailure.nonRetryable('order ord_x cannot go from failed to completed', 'IllegalTransition');
      return done('completed', nowMs);
    },
  };
  await withWorker(env, orderContract, acts, async (tq) => {
    const h = await start(tq);
    expect(await waitingFor(h, /^an operator: /)).toMatch(
      /^an operator: IllegalTransition: order ord_x cannot go from failed to completed/,
    );
    await h.signal(retry);
    expect(await h.result()).toBe('completed');
  });
  expect(n).toBe(2);
});
