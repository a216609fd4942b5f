/**
 * Tier A: paymentWorkflow logic with stub activities (no database): expiry, deposits (signalled and
 * pending at start), settlement and the link workflow notification, the link ending, late deposits
 * recorded before ending, parking on a non-retryable failure and the `retry` signal, continue-as-new.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { depositSignal, linkEndedSignal, paymentContract, paymentRetrySignal, type PaymentStep } from '../../../contracts/payment';
import { paymentWorkflow } from '../../../workflows/payment';
import { activityNowMs, callerRunId, gate, startLogicEnv, timersOf, uid, waitingFor, withWorker, type Stubs } from './harness';
import { localActivityType } from '../../helpers/history';

const HOUR = 3_600_000;
/** Thrown like domain/transitions.ts's error: Temporal reports the class name as the failure type. */
class IllegalTransition extends Error {}
/** A watch state (contracts/payment.ts): awaiting, its window closing in an hour, unless `s` says otherwise. */
const st = (s: Partial<PaymentStep>): PaymentStep => ({
  status: 'awaiting',
  expiresAt: new Date(activityNowMs() + HOUR).toISOString(),
  createdAt: new Date(activityNowMs()).toISOString(),
  pendingDepositIds: [],
  needsSettlement: false,
  settlement: 'wallet',
  settlementPending: false,
  needsRefund: false,
  refundPending: false,
  done: false,
  linkEnded: false,
  linkId: null,
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
const start = (taskQueue: string, paymentId = uid('pay_'), legacy = false) =>
  env.client.workflow.start(paymentWorkflow, {
    taskQueue,
    workflowId: paymentId,
    args: legacy ? [{ paymentId }] : paymentContract.startArgs(paymentId),
  });

test('no deposit: waits until expires_at, then expires the payment', async () => {
  const calls: string[] = [];
  let expiresAt = '';
  const acts: Stubs<typeof paymentContract> = {
    loadPaymentState: async () => {
      const s = st({});
      expiresAt = s.expiresAt;
      return s;
    },
    expirePaymentActivity: async () => {
      calls.push('expire');
      return st({ status: 'expired', done: true });
    },
  };
  await withWorker(env, paymentContract, acts, async (tq) => {
    const h = await start(tq);
    expect(await waitingFor(h, /^a deposit until /)).toBe(`a deposit until ${expiresAt}`);
    expect(await h.result()).toBe('expired');
    expect(calls).toEqual(['expire']);
    const [timer] = await timersOf(h);
    expect(timer).toBeGreaterThan(HOUR - 60_000);
    expect(timer).toBeLessThanOrEqual(HOUR);
    expect(await h.query('waiting_for')).toBe('nothing (completed)');
  });
});

test('an exact deposit is applied, settled to the merchant, and the link workflow notified', async () => {
  const calls: unknown[][] = [];
  const acts: Stubs<typeof paymentContract> = {
    loadPaymentState: async () => st({}),
    applyDepositActivity: async (...a) => {
      calls.push(['apply', ...a]);
      return st({ status: 'paid', needsSettlement: true });
    },
    sendSettlement: async (...a) => {
      calls.push(['send', ...a]);
      return '0xtx';
    },
    recordSettlement: async (...a) => {
      calls.push(['record', ...a]);
      return st({ status: 'settled', done: true, linkEnded: true, linkId: 'pl_1' });
    },
    notifyLinkWorkflow: async (...a) => {
      calls.push(['notify', ...a]);
    },
  };
  await withWorker(env, paymentContract, acts, async (tq) => {
    const h = await start(tq, 'pay_exact');
    await waitingFor(h, /^a deposit until /);
    await h.signal(depositSignal, { depositId: 'dep_1' });
    expect(await h.result()).toBe('settled');
  });
  expect(calls).toEqual([
    ['apply', 'pay_exact', 'dep_1'],
    ['send', 'pay_exact'],
    ['record', 'pay_exact', '0xtx'],
    ['notify', 'pl_1'],
  ]);
});

/**
 * One exact deposit settled to the merchant, in a run of the product's form or (`legacy`) of a run
 * started before issue 36, whose recorded settlement result has no `linkNotified`. Returns the steps
 * called, in order, and the run's history.
 */
async function settleOneDeposit(legacy: boolean) {
  const calls: string[] = [];
  const acts: Stubs<typeof paymentContract> = {
    loadPaymentState: async () => st({}),
    applyDepositActivity: async () => {
      calls.push('apply');
      return st({ status: 'paid', needsSettlement: true });
    },
    sendSettlement: async () => {
      calls.push('send');
      return '0xtx';
    },
    recordSettlement: async () => {
      calls.push('record');
      return st({ status: 'settled', done: true, linkEnded: true, linkId: 'pl_1', ...(legacy ? {} : { linkNotified: true }) });
    },
    notifyLinkWorkflow: async () => {
      calls.push('notify');
    },
  };
  const events = await withWorker(env, paymentContract, acts, async (tq) => {
    const h = await start(tq, uid('pay_'), legacy);
    await waitingFor(h, /^a deposit until /);
    await h.signal(depositSignal, { depositId: 'dep_1' });
    expect(await h.result()).toBe('settled');
    return (await h.fetchHistory()).events ?? [];
  });
  return { calls, events };
}

test('a run started as the product starts it (issue 36) calls its steps as local activities and leaves the link to the step that already notified it', async () => {
  const { calls, events } = await settleOneDeposit(false);
  expect(calls).toEqual(['apply', 'send', 'record']);
  expect(events.filter((e) => e.activityTaskScheduledEventAttributes)).toHaveLength(0);
  expect(events.map(localActivityType).filter(Boolean)).toEqual([
    'loadPaymentState',
    'applyDepositActivity',
    'sendSettlement',
    'recordSettlement',
  ]);
});

test('a run started before issue 36 (its arguments without localSteps) completes on this code with remote activities, notifying the link itself', async () => {
  const { calls, events } = await settleOneDeposit(true);
  expect(calls).toEqual(['apply', 'send', 'record', 'notify']);
  expect(events.map(localActivityType).filter(Boolean)).toEqual([]);
  expect(events.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name).filter(Boolean)).toEqual([
    'loadPaymentState',
    'applyDepositActivity',
    'sendSettlement',
    'recordSettlement',
    'notifyLinkWorkflow',
  ]);
});

test('deposits pending at start are applied first (each once), and a link ending after the settlement is notified', async () => {
  const applied: string[] = [];
  const acts: Stubs<typeof paymentContract> = {
    loadPaymentState: async () => st({ pendingDepositIds: ['dep_a', 'dep_b', 'dep_a'] }),
    applyDepositActivity: async (_p, d) => {
      applied.push(d);
      return applied.length < 2 ? st({ status: 'underpaid' }) : st({ status: 'unmatched', done: true, linkEnded: true, linkId: 'pl_2' });
    },
    notifyLinkWorkflow: async () => undefined,
  };
  await withWorker(env, paymentContract, acts, async (tq) => {
    expect(await (await start(tq)).result()).toBe('unmatched');
  });
  expect(applied).toEqual(['dep_a', 'dep_b']);
});

test('underpaid: waits for a top-up or the link ending; linkEnded reloads and ends', async () => {
  let loads = 0;
  const acts: Stubs<typeof paymentContract> = {
    loadPaymentState: async () => {
      loads += 1;
      return loads === 1 ? st({ pendingDepositIds: ['dep_1'] }) : st({ status: 'abandoned', done: true });
    },
    applyDepositActivity: async () => st({ status: 'underpaid' }),
  };
  await withWorker(env, paymentContract, acts, async (tq) => {
    const h = await start(tq);
    expect(await waitingFor(h, /top-up/)).toBe('a top-up (status underpaid) or the link ending');
    await h.signal(linkEndedSignal, { reason: 'cancelled' });
    expect(await h.result()).toBe('abandoned');
  });
  expect(loads).toBe(2);
});

test('a deposit that arrives while the payment closes is recorded before the workflow ends', async () => {
  const applied: string[] = [];
  const hold = gate();
  const entered = gate();
  const acts: Stubs<typeof paymentContract> = {
    loadPaymentState: async () => st({ pendingDepositIds: ['dep_1'] }),
    applyDepositActivity: async (_p, d) => {
      applied.push(d);
      return d === 'dep_1' ? st({ status: 'paid', needsSettlement: true }) : st({ status: 'settled', done: true });
    },
    sendSettlement: async () => '0xtx',
    recordSettlement: async () => {
      entered.open();
      await hold.promise;
      return st({ status: 'settled', done: true });
    },
  };
  await withWorker(env, paymentContract, acts, async (tq) => {
    const h = await start(tq);
    await entered.promise;
    await h.signal(depositSignal, { depositId: 'dep_late' });
    hold.open();
    expect(await h.result()).toBe('settled');
  });
  // The late deposit is applied, once. A local step runs again when its workflow task is redone
  // (here: the signal raced the workflow's completion, so the server refused that task and the
  // steps before it ran again), so dep_1 may be applied twice: applyDeposit is idempotent
  // (convention.ts proxyDatabaseActivities).
  expect(applied.filter((d) => d === 'dep_late')).toEqual(['dep_late']);
  expect(new Set(applied)).toEqual(new Set(['dep_1', 'dep_late']));
});

test('a non-retryable failure parks the payment for an operator; the retry signal runs the step again', async () => {
  let loads = 0;
  let applies = 0;
  const acts: Stubs<typeof paymentContract> = {
    loadPaymentState: async () => {
      loads += 1;
      if (loads === 1) throw ApplicationFailure.nonRetryable('payment pay_x not found', 'NotFound');
      return st({ pendingDepositIds: ['dep_1'] });
    },
    applyDepositActivity: async () => {
      applies += 1;
      // Not marked non-retryable: the workflows' retry policy lists IllegalTransition (domain/transitions.ts).
      if (applies === 1) throw new IllegalTransition('payment cannot go from expired to paid');
      return st({ status: 'unmatched', done: true });
    },
  };
  await withWorker(env, paymentContract, acts, async (tq) => {
    const h = await start(tq);
    expect(await waitingFor(h, /^an operator: /)).toBe(
      'an operator: NotFound: payment pay_x not found (fix the cause, then send the `retry` signal)',
    );
    await h.signal(paymentRetrySignal);
    expect(await waitingFor(h, /^an operator: IllegalTransition/)).toMatch(
      /^an operator: IllegalTransition: payment cannot go from expired to paid/,
    );
    expect(applies).toBe(1); // never retried by Temporal
    await h.signal(paymentRetrySignal);
    expect(await h.result()).toBe('unmatched');
  });
  expect([loads, applies]).toEqual([3, 2]);
});

test('a long-lived payment continues as new with its id and its clock origin only, and carries on', async () => {
  const runs = new Set<string>();
  let expiries = 0;
  const acts: Stubs<typeof paymentContract> = {
    loadPaymentState: async () => {
      runs.add(callerRunId());
      return runs.size === 1 ? st({}) : st({ status: 'expired', done: true });
    },
    // Each expiry finds the window extended (a stub), so the run loops on its timer until history is long.
    expirePaymentActivity: async () => {
      expiries += 1;
      return st({ expiresAt: new Date(activityNowMs() + 1000).toISOString() });
    },
  };
  await withWorker(env, paymentContract, acts, async (tq) => {
    const h = await start(tq);
    expect(await h.result()).toBe('expired');
    const first = await env.client.workflow.getHandle(h.workflowId, h.firstExecutionRunId).fetchHistory();
    const can = first.events!.at(-1)!.workflowExecutionContinuedAsNewEventAttributes!;
    expect(can).toBeTruthy();
    expect(env.client.options.loadedDataConverter.payloadConverter.fromPayload(can.input!.payloads![0])).toEqual({
      paymentId: h.workflowId,
      originMs: expect.any(Number),
      localSteps: true,
    });
  });
  expect(runs.size).toBe(2);
  expect(expiries).toBeGreaterThan(100);
}, 60_000);
