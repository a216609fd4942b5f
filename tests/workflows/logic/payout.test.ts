/**
 * Tier A: payoutWorkflow logic with stub activities over an in-memory payout (no database, no
 * provider): funding, the provider transfer, deposits, the fiat payment and the rail (poll and
 * provider updates), recipient notification, expiry, held USDC (refund or waiting for an address),
 * the reconciliation signal, parking on a non-retryable failure and the `retry` signal,
 * continue-as-new.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { payoutContract } from '../../../contracts/payout';
import { payoutWorkflow } from '../../../workflows/payout';
import { activityNowMs, callerRunId, startLogicEnv, timersOf, uid, waitingFor, withWorker, type Stubs } from './harness';

// `fund`, `payoutDeposit` and `cancelled` are the legacy wire names (contracts/payout.ts): sending them proves the workflow still accepts them.
const { update: payoutProviderUpdateSignal, reconciliation: payoutReconciliationSignal, retry: payoutRetrySignal } = payoutContract.signals;
const { cancelled: payoutCancelledSignal, payoutDeposit: payoutDepositSignal, fund: payoutFundSignal } = payoutContract.legacySignals!;

const HOUR = 3_600_000;
const TERMINAL = new Set(['settled', 'paid_with_shortfall', 'failed', 'returned', 'expired', 'cancelled']);

/** The in-memory payout the stubs read and change; `log` records every activity call. */
function model(init: Partial<Payout> = {}) {
  const p: Payout = {
    status: 'draft',
    attemptId: null,
    needsTransfer: false,
    expiresAtMs: null,
    pendingDepositIds: [],
    held: false,
    canRefund: false,
    railPaymentId: null,
    ...init,
  };
  const log: unknown[][] = [];
  const state = () => ({
    ...p,
    pendingDepositIds: [...p.pendingDepositIds],
    terminal: TERMINAL.has(p.status),
    fundingTarget: '10.00 USDC on base',
  });
  const acts = {
    loadPayoutState: async () => state(),
    setPayoutNeedsAttention: async (_id, flag) => {
      log.push(['needsAttention', flag]);
    },
    applyPayoutDeposit: async (_id, dep) => {
      log.push(['deposit', dep]);
      p.pendingDepositIds = p.pendingDepositIds.filter((d) => d !== dep);
      p.status = 'funds_received';
      return state();
    },
    ensureProviderTransfer: async (_id, nowMs) => {
      log.push(['transfer', typeof nowMs]);
      p.needsTransfer = false;
      p.status = 'awaiting_funds';
      p.expiresAtMs = activityNowMs() + HOUR;
      return state();
    },
    expirePayout: async () => {
      log.push(['expire']);
      p.status = 'expired';
      return state();
    },
    submitFiatPayment: async () => {
      log.push(['submit']);
      p.status = 'processing';
      p.railPaymentId = 'rp_1';
      return state();
    },
    refundHeldFunds: async () => {
      log.push(['refund']);
      p.held = false;
      p.canRefund = false;
      return state();
    },
    notifyPayoutRecipient: async () => {
      log.push(['notify']);
    },
    syncRailPayment: async () => {
      log.push(['sync', p.status]);
      const next = rail.shift();
      let notify = false;
      if (next) {
        notify = next === 'paid';
        p.status = next;
      }
      return { ...state(), notify };
    },
  } satisfies Stubs<typeof payoutContract>;
  const rail: string[] = [];
  return { p, log, acts, rail };
}
interface Payout {
  status: string;
  attemptId: string | null;
  needsTransfer: boolean;
  expiresAtMs: number | null;
  pendingDepositIds: string[];
  held: boolean;
  canRefund: boolean;
  railPaymentId: string | null;
}

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startLogicEnv();
}, 120_000);
afterAll(async () => {
  await env?.teardown();
});

const start = (taskQueue: string, payoutId = uid('po_')) =>
  env.client.workflow.start(payoutWorkflow, { taskQueue, workflowId: payoutId, args: [{ payoutId }] });

test('draft -> fund -> transfer -> deposit -> fiat payment -> rail poll -> paid (recipient notified) -> settled', async () => {
  const m = model();
  await withWorker(env, payoutContract, m.acts, async (tq) => {
    const h = await start(tq);
    expect(await waitingFor(h, /^a funding/)).toBe('a funding confirmation (POST funding_instructions)');
    m.p.needsTransfer = true;
    m.p.attemptId = 'poa_1';
    await h.signal(payoutFundSignal);
    const w = await waitingFor(h, /^a deposit of /);
    expect(w).toBe(`a deposit of 10.00 USDC on base until ${new Date(m.p.expiresAtMs!).toISOString()}`);
    m.p.pendingDepositIds = ['pdep_1'];
    m.rail.push('processing', 'paid', 'settled');
    await h.signal(payoutDepositSignal, { depositId: 'pdep_1' });
    expect(await h.result()).toBe('settled');
    // The first rail read found nothing new: the workflow polled again an hour later.
    expect(await timersOf(h)).toContain(HOUR);
  });
  expect(m.log).toEqual([
    ['transfer', 'number'],
    ['deposit', 'pdep_1'],
    ['submit'],
    ['sync', 'processing'],
    ['sync', 'processing'],
    ['notify'],
    ['sync', 'paid'],
  ]);
});

test('a provider update wakes the rail wait at once; waiting_for names the rail payment', async () => {
  const m = model({ status: 'processing', railPaymentId: 'rp_9' });
  m.rail.push('processing');
  await withWorker(env, payoutContract, m.acts, async (tq) => {
    const h = await start(tq);
    expect(await waitingFor(h, /^the rp_9 payment/)).toBe('the rp_9 payment to be paid, fail or be returned');
    m.rail.push('returned');
    await h.signal(payoutProviderUpdateSignal);
    expect(await h.result()).toBe('returned');
  });
});

test('the funding window closes without a deposit: expirePayout, then the final status', async () => {
  const m = model({ status: 'awaiting_funds', expiresAtMs: null });
  const load = m.acts.loadPayoutState;
  m.acts.loadPayoutState = async (...a) => {
    if (m.p.expiresAtMs === null) m.p.expiresAtMs = activityNowMs() + 2 * HOUR;
    return load(...a);
  };
  await withWorker(env, payoutContract, m.acts, async (tq) => {
    const h = await start(tq);
    expect(await h.result()).toBe('expired');
    expect((await timersOf(h))[0]).toBeGreaterThan(2 * HOUR - 60_000);
    expect((await timersOf(h))[0]).toBeLessThanOrEqual(2 * HOUR);
  });
  expect(m.log).toEqual([['expire']]);
});

test('held USDC: waits for a refund address (missing_return_policy), then returns it and ends', async () => {
  const m = model({ status: 'cancelled', held: true, canRefund: false });
  await withWorker(env, payoutContract, m.acts, async (tq) => {
    const h = await start(tq);
    expect(await waitingFor(h, /refund address/)).toBe('a refund address for held USDC (missing_return_policy)');
    m.p.canRefund = true;
    await h.signal(payoutCancelledSignal);
    expect(await h.result()).toBe('cancelled');
  });
  expect(m.log).toEqual([['refund']]);
});

test('the reconciliation signal is recorded, even when it arrives as the payout ends', async () => {
  const m = model({ status: 'processing' });
  m.rail.push('processing');
  await withWorker(env, payoutContract, m.acts, async (tq) => {
    const h = await start(tq);
    await waitingFor(h, /payment to be paid/);
    m.rail.push('paid_with_shortfall');
    await h.signal(payoutReconciliationSignal, { needsAttention: true });
    expect(await h.result()).toBe('paid_with_shortfall');
  });
  expect(m.log).toContainEqual(['needsAttention', true]);
});

test('a non-retryable failure parks the payout for an operator; the retry signal runs the step again', async () => {
  const m = model({ status: 'funds_received' });
  let submits = 0;
  const submit = m.acts.submitFiatPayment;
  m.acts.submitFiatPayment = async (...a) => {
    submits += 1;
    if (submits === 1) throw ApplicationFailure.nonRetryable('payout po_x has no beneficiary for sepa', 'BeneficiaryMissing');
    return submit(...a);
  };
  m.rail.push('failed');
  await withWorker(env, payoutContract, m.acts, async (tq) => {
    const h = await start(tq);
    expect(await waitingFor(h, /^an operator: /)).toBe(
      'an operator: BeneficiaryMissing: payout po_x has no beneficiary for sepa (fix the cause, then send the `retry` signal)',
    );
    await h.signal(payoutRetrySignal);
    expect(await h.result()).toBe('failed');
  });
  expect(submits).toBe(2);
});

test('a failure Temporal may retry is retried, not parked', async () => {
  const m = model({ status: 'funds_received' });
  let submits = 0;
  const submit = m.acts.submitFiatPayment;
  m.acts.submitFiatPayment = async (...a) => {
    submits += 1;
    if (submits === 1) throw new Error('provider timeout');
    return submit(...a);
  };
  m.rail.push('failed');
  await withWorker(env, payoutContract, m.acts, async (tq) => {
    expect(await (await start(tq)).result()).toBe('failed');
  });
  expect(submits).toBe(2);
});

test('a long-lived payout continues as new with its id only (hourly rail polls)', async () => {
  const m = model({ status: 'processing' });
  const runs = new Set<string>();
  const load = m.acts.loadPayoutState;
  m.acts.loadPayoutState = async (...a) => {
    runs.add(callerRunId());
    if (runs.size === 2) m.p.status = 'settled';
    return load(...a);
  };
  await withWorker(env, payoutContract, m.acts, async (tq) => {
    const h = await start(tq);
    expect(await h.result()).toBe('settled');
    const first = await env.client.workflow.getHandle(h.workflowId, h.firstExecutionRunId).fetchHistory();
    const can = first.events!.at(-1)!.workflowExecutionContinuedAsNewEventAttributes!;
    expect(env.client.options.loadedDataConverter.payloadConverter.fromPayload(can.input!.payloads![0])).toEqual({
      payoutId: h.workflowId,
    });
  });
  expect(runs.size).toBe(2);
}, 60_000);
