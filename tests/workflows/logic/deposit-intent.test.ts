/**
 * Tier A: depositIntentWorkflow logic with stub activities (no database, no chain, no bridge):
 * waiting for USDC at the deposit address (polling every DEPOSIT_POLL_MS, woken by
 * `depositIntentUpdate`), stepping again at once after a change, following the bridge to settled;
 * and the expiry at `expires_at`, mapped onto workflow time from the workflow's start.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { depositIntentContract, type DepositIntentState } from '../../../contracts/deposit-intent';
import { DEPOSIT_POLL_MS, depositIntentWorkflow } from '../../../workflows/deposit-intent';
import { activityNowMs, startLogicEnv, timersOf, uid, waitingFor, withWorker, type Stubs } from './harness';

const { update: depositIntentUpdate } = depositIntentContract.signals;

/** An in-memory intent created now, expiring `ttlMs` later (database times: the workflow maps them from its start). */
function intent(ttlMs: number) {
  const created = activityNowMs;
  const s = { status: 'awaiting_funds', createdAtMs: 0, arrived: false, bridgeDelivered: false };
  const log: string[] = [];
  const state = (changed: boolean): DepositIntentState => ({
    status: s.status,
    sourceChain: 'arbitrum',
    createdAt: new Date(s.createdAtMs).toISOString(),
    expiresAt: new Date(s.createdAtMs + ttlMs).toISOString(),
    terminal: ['settled', 'failed', 'expired', 'manual_recovery_required'].includes(s.status),
    changed,
  });
  const acts: Stubs<typeof depositIntentContract> = {
    advanceDepositIntent: async () => {
      if (!s.createdAtMs) s.createdAtMs = created();
      const before = s.status;
      if (s.status === 'awaiting_funds' && s.arrived) s.status = 'source_detected';
      else if (s.status === 'source_detected') s.status = 'bridging';
      else if (s.status === 'bridging' && s.bridgeDelivered) s.status = 'settled';
      log.push(`advance ${before}->${s.status}`);
      return state(s.status !== before);
    },
    expireDepositIntent: async () => {
      log.push('expire');
      if (s.status === 'awaiting_funds') s.status = 'expired';
      return state(true);
    },
  };
  return { s, log, acts, state };
}

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startLogicEnv();
}, 120_000);
afterAll(async () => {
  await env?.teardown();
});

const start = (taskQueue: string, depositIntentId = uid('dpi_')) =>
  env.client.workflow.start(depositIntentWorkflow, { taskQueue, workflowId: depositIntentId, args: [{ depositIntentId }] });

test('USDC arrives (`depositIntentUpdate`): steps on at once, then follows the bridge until it delivers', async () => {
  const m = intent(3_600_000);
  await withWorker(env, depositIntentContract, m.acts, async (tq) => {
    const h = await start(tq);
    const w = await waitingFor(h, /^USDC on arbitrum/);
    expect(w).toBe(`USDC on arbitrum at the deposit address until ${m.state(false).expiresAt}`);
    m.s.arrived = true;
    await h.signal(depositIntentUpdate);
    expect(await waitingFor(h, /^the bridge/)).toBe('the bridge (status bridging)');
    m.s.bridgeDelivered = true;
    expect(await h.result()).toBe('settled');
    // The bridge wait is the poll: no signal came, the next look found the delivery.
    expect((await timersOf(h)).at(-1)).toBe(DEPOSIT_POLL_MS);
  });
  expect(m.log.filter((l) => !l.startsWith('advance awaiting_funds->awaiting_funds'))).toEqual([
    'advance awaiting_funds->source_detected',
    'advance source_detected->bridging',
    'advance bridging->bridging',
    'advance bridging->settled',
  ]);
});

test('nothing arrives: polls every DEPOSIT_POLL_MS and expires the intent at expires_at', async () => {
  const m = intent(2 * DEPOSIT_POLL_MS);
  await withWorker(env, depositIntentContract, m.acts, async (tq) => {
    const h = await start(tq);
    expect(await h.result()).toBe('expired');
    const timers = await timersOf(h);
    expect(timers).toHaveLength(2);
    expect(timers[0]).toBe(DEPOSIT_POLL_MS);
    // The second wait ends exactly at the deadline (two polls after the start).
    expect(timers[0] + timers[1]).toBeGreaterThan(2 * DEPOSIT_POLL_MS - 1_000);
    expect(timers[0] + timers[1]).toBeLessThanOrEqual(2 * DEPOSIT_POLL_MS);
  });
  expect(m.log).toEqual(['advance awaiting_funds->awaiting_funds', 'advance awaiting_funds->awaiting_funds', 'expire']);
});
