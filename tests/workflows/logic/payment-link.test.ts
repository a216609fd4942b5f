/**
 * Tier A: paymentLinkWorkflow logic with stub activities (no database): ending, reminders on their
 * timers, expiry (with the payments told), waiting for a change, `linkChanged` re-planning, parking
 * on a non-retryable failure and the `retry` signal, continue-as-new.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { paymentLinkContract, type LinkWorkflowState as State } from '../../../contracts/payment-link';
import { paymentLinkWorkflow } from '../../../workflows/payment-link';
import { activityNowMs, callerRunId, startLogicEnv, timersOf, uid, waitingFor, withWorker, type Stubs } from './harness';

const { update: linkChangedSignal, retry: linkRetrySignal } = paymentLinkContract.signals;

const DAY = 86_400_000;
const st = (s: Partial<State>): State => ({
  exists: true,
  status: 'active',
  ended: false,
  expiresAt: null,
  nextReminderAt: null,
  reminderIndex: 0,
  ...s,
});

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startLogicEnv();
}, 120_000);
afterAll(async () => {
  await env?.teardown();
});

/** Starts a run as the product does (contract startArgs: local-activity steps); `legacy`: as a run started before issue 36 (remote activities). */
const start = (taskQueue: string, linkId = uid('pl_'), legacy = false) =>
  env.client.workflow.start(paymentLinkWorkflow, {
    taskQueue,
    workflowId: linkId,
    args: legacy ? [{ linkId }] : paymentLinkContract.startArgs(linkId),
  });

test('an ended (or missing) link ends the workflow at once with its status', async () => {
  await withWorker(env, paymentLinkContract, { loadPaymentLinkState: async () => st({ ended: true, status: 'paid' }) }, async (tq) => {
    expect(await (await start(tq)).result()).toBe('paid');
  });
  await withWorker(
    env,
    paymentLinkContract,
    { loadPaymentLinkState: async () => st({ exists: false, ended: true, status: null }) },
    async (tq) => {
      expect(await (await start(tq)).result()).toBe('missing');
    },
  );
});

test('sends each reminder when due, then expires the link and tells its open payments', async () => {
  const calls: unknown[] = [];
  let t0 = 0;
  let sent = 0;
  let expired = false;
  const acts: Stubs<typeof paymentLinkContract> = {
    loadPaymentLinkState: async () => {
      t0 ||= activityNowMs();
      if (expired) return st({ ended: true, status: 'expired' });
      return st({ expiresAt: t0 + 10 * DAY, nextReminderAt: sent < 2 ? t0 + (sent + 1) * 3 * DAY : null, reminderIndex: sent });
    },
    sendPaymentLinkReminder: async (a) => {
      calls.push(['remind', a.index]);
      sent += 1;
      return { sent: true, emailId: `em_${sent}` };
    },
    expirePaymentLink: async (a) => {
      calls.push(['expire', a.at >= t0 + 10 * DAY]);
      expired = true;
      return { expired: true, accountId: 'acc_1', paymentIds: ['pay_1'] };
    },
    signalPaymentsLinkEnded: async (a) => {
      calls.push(['signal', a]);
    },
  };
  await withWorker(env, paymentLinkContract, acts, async (tq) => {
    const h = await start(tq, 'pl_timers');
    expect(await waitingFor(h, /^reminder 1 at /)).toBe(`reminder 1 at ${new Date(t0 + 3 * DAY).toISOString()}`);
    expect(await h.result()).toBe('expired');
    const timers = await timersOf(h);
    expect(timers).toHaveLength(3);
    expect(timers.reduce((a, b) => a + b, 0)).toBeGreaterThan(10 * DAY - 60_000);
    expect(timers.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(10 * DAY);
  });
  expect(calls).toEqual([
    ['remind', 0],
    ['remind', 1],
    ['expire', true],
    ['signal', { paymentIds: ['pay_1'], accountId: 'acc_1', reason: 'expired' }],
  ]);
});

test('waits for expiry (waiting_for says so); linkChanged re-plans; with nothing pending it waits for a change', async () => {
  let loads = 0;
  let t0 = 0;
  const acts: Stubs<typeof paymentLinkContract> = {
    loadPaymentLinkState: async () => {
      loads += 1;
      t0 ||= activityNowMs();
      if (loads === 1) return st({ expiresAt: t0 + DAY });
      if (loads === 2) return st({ status: 'processing' });
      return st({ ended: true, status: 'settled' });
    },
  };
  await withWorker(env, paymentLinkContract, acts, async (tq) => {
    const h = await start(tq);
    expect(await waitingFor(h, /^expiry at /)).toBe(`expiry at ${new Date(t0 + DAY).toISOString()}`);
    await h.signal(linkChangedSignal);
    expect(await waitingFor(h, /^a change/)).toBe('a change to the link (status processing; no reminder or expiry pending)');
    await h.signal(linkChangedSignal);
    expect(await h.result()).toBe('settled');
    expect(await h.query('waiting_for')).toBe('nothing (completed)');
  });
});

test('a non-retryable failure parks the link for an operator; the retry signal runs the step again', async () => {
  let loads = 0;
  const acts: Stubs<typeof paymentLinkContract> = {
    loadPaymentLinkState: async () => {
      loads += 1;
      if (loads === 1) throw ApplicationFailure.nonRetryable('payment link pl_x has an unusable reminder schedule', 'LinkStateCorrupt');
      return st({ ended: true, status: 'cancelled' });
    },
  };
  await withWorker(env, paymentLinkContract, acts, async (tq) => {
    const h = await start(tq);
    expect(await waitingFor(h, /^an operator: /)).toBe(
      'an operator: LinkStateCorrupt: payment link pl_x has an unusable reminder schedule (fix the cause, then send the `retry` signal)',
    );
    await h.signal(linkRetrySignal);
    expect(await h.result()).toBe('cancelled');
  });
  expect(loads).toBe(2);
});

test('a long-lived link continues as new with its id only', async () => {
  const runs = new Set<string>();
  let loads = 0;
  const acts: Stubs<typeof paymentLinkContract> = {
    loadPaymentLinkState: async () => {
      loads += 1;
      runs.add(callerRunId());
      // A reminder a second ahead on every turn: the run loops on its timer until the history is long.
      return runs.size === 1 ? st({ nextReminderAt: activityNowMs() + 1000 }) : st({ ended: true, status: 'expired' });
    },
  };
  await withWorker(env, paymentLinkContract, acts, async (tq) => {
    const h = await start(tq);
    expect(await h.result()).toBe('expired');
    const first = await env.client.workflow.getHandle(h.workflowId, h.firstExecutionRunId).fetchHistory();
    const can = first.events!.at(-1)!.workflowExecutionContinuedAsNewEventAttributes!;
    expect(env.client.options.loadedDataConverter.payloadConverter.fromPayload(can.input!.payloads![0])).toEqual({
      linkId: h.workflowId,
      localSteps: true,
    });
  });
  expect(runs.size).toBe(2);
  expect(loads).toBeGreaterThan(100);
}, 60_000);
