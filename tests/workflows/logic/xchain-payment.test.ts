/**
 * Tier A: xchainPaymentWorkflow logic with stub activities over an in-memory cross-network payment
 * (no database, no chains, no bridge): the source deposit (`deposit`), the bridge advanced on
 * `bridgeUpdate` until it delivers, the delivery applied (paid), the settlement to the merchant and
 * the link workflow told; and the deposit window closing with nothing seen, at `expires_at` mapped
 * onto workflow time from the workflow's start.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { PaymentStep } from '../../../contracts/payment';
import { xchainPaymentContract, type BridgeProgress, type XchainState } from '../../../contracts/xchain-payment';
import { BRIDGE_POLL_MS, xchainPaymentWorkflow } from '../../../workflows/xchain-payment';
import { activityNowMs, startLogicEnv, timersOf, uid, waitingFor, withWorker, type Stubs } from './harness';

const HOUR = 3_600_000;
const { deposit, update: bridgeUpdate } = xchainPaymentContract.signals;

/** The in-memory payment: created at the first read, its window open an hour; `bridge` lists what the bridge reports in turn. */
function model() {
  const x: XchainState = {
    status: 'awaiting',
    watcherState: 'address_issued',
    expiresAt: '',
    createdAt: '',
    pendingDepositIds: [],
    bridgeActive: false,
    needsRecovery: false,
    needsSettlement: false,
    done: false,
  };
  const bridge: BridgeProgress[] = [];
  const log: string[] = [];
  const state = (): XchainState => ({ ...x, pendingDepositIds: [...x.pendingDepositIds] });
  const step = (): PaymentStep => ({
    status: x.status,
    expiresAt: x.expiresAt,
    createdAt: x.createdAt,
    pendingDepositIds: [],
    needsSettlement: x.needsSettlement,
    settlement: 'wallet',
    settlementPending: false,
    needsRefund: false,
    refundPending: false,
    done: x.done,
    linkEnded: x.status === 'settled',
    linkId: 'pl_x',
  });
  const acts: Stubs<typeof xchainPaymentContract> = {
    loadXchainState: async () => {
      if (!x.createdAt) {
        x.createdAt = new Date(activityNowMs()).toISOString();
        x.expiresAt = new Date(activityNowMs() + HOUR).toISOString();
      }
      return state();
    },
    applyXchainDeposit: async (_p, d) => {
      log.push(`apply ${d}`);
      x.pendingDepositIds = x.pendingDepositIds.filter((p) => p !== d);
      if (d === 'dep_source') {
        x.watcherState = 'source_seen';
        x.bridgeActive = true;
      } else {
        x.status = 'paid';
        x.watcherState = 'delivered';
        x.needsSettlement = true;
      }
      return state();
    },
    advanceBridge: async () => {
      const b = bridge.shift() ?? 'in_flight';
      log.push(`bridge ${b}`);
      if (b === 'in_flight') x.watcherState = 'confirming';
      // The delivery is recorded as a deposit of the payment (its signal may race the reload).
      if (b === 'delivered') {
        x.bridgeActive = false;
        x.pendingDepositIds.push('dep_delivery');
      }
      return { ...state(), bridge: b };
    },
    sendSettlement: async () => {
      log.push('send');
      return '0xsettle';
    },
    recordSettlement: async (_p, tx) => {
      log.push(`record ${tx}`);
      x.status = 'settled';
      x.needsSettlement = false;
      x.done = true;
      return step();
    },
    notifyLinkWorkflow: async (linkId) => {
      log.push(`notify ${linkId}`);
    },
    expireXchainPayment: async () => {
      log.push('expire');
      x.status = 'expired';
      x.watcherState = 'expired';
      x.done = true;
      return state();
    },
  };
  return { x, bridge, log, acts };
}

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startLogicEnv();
}, 120_000);
afterAll(async () => {
  await env?.teardown();
});

const start = (taskQueue: string, paymentId = uid('pay_')) =>
  env.client.workflow.start(xchainPaymentWorkflow, { taskQueue, workflowId: paymentId, args: [{ paymentId }] });

test('source deposit, bridge advanced on `bridgeUpdate` until it delivers, paid, settled and the link told', async () => {
  const m = model();
  await withWorker(env, xchainPaymentContract, m.acts, async (tq) => {
    const h = await start(tq);
    expect(await waitingFor(h, /^a deposit on the source network/)).toBe(`a deposit on the source network until ${m.x.expiresAt}`);
    await h.signal(deposit, { depositId: 'dep_source' });
    expect(await waitingFor(h, /^the bridge \(/)).toBe('the bridge (in_flight)');
    m.bridge.push('delivered');
    await h.signal(bridgeUpdate);
    expect(await h.result()).toBe('settled');
    expect(await h.query('waiting_for')).toBe('nothing (completed)');
  });
  expect(m.log).toEqual([
    'apply dep_source',
    'bridge in_flight',
    'bridge delivered',
    'apply dep_delivery',
    'send',
    'record 0xsettle',
    'notify pl_x',
  ]);
});

test('a bridge that holds the funds is re-read every BRIDGE_POLL_MS without a signal', async () => {
  const m = model();
  m.x.pendingDepositIds = ['dep_source'];
  m.bridge.push('in_flight', 'in_flight', 'delivered');
  await withWorker(env, xchainPaymentContract, m.acts, async (tq) => {
    const h = await start(tq);
    expect(await h.result()).toBe('settled');
    const timers = await timersOf(h);
    expect(timers.slice(0, 2)).toEqual([BRIDGE_POLL_MS, BRIDGE_POLL_MS]);
  });
  expect(m.log.filter((l) => l.startsWith('bridge'))).toEqual(['bridge in_flight', 'bridge in_flight', 'bridge delivered']);
});

test('nothing seen: the window closes at expires_at (workflow time from the start) and the payment expires', async () => {
  const m = model();
  await withWorker(env, xchainPaymentContract, m.acts, async (tq) => {
    const h = await start(tq);
    expect(await h.result()).toBe('expired');
    const [timer] = await timersOf(h);
    expect(timer).toBeGreaterThan(HOUR - 60_000);
    expect(timer).toBeLessThanOrEqual(HOUR);
  });
  expect(m.log).toEqual(['expire']);
});
