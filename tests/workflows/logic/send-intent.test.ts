/**
 * Tier A: sendIntentWorkflow logic with stub activities (no database, no chain): each turn is
 * `advanceSendIntent` at workflow time, sleeping to the wake time it answers; the holder's hash
 * (`update`) moves it on, the poll follows the chain to settled, and with no signature the turn at
 * the expiry time expires it.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { sendIntentContract, type SendProgress } from '../../../contracts/send-intent';
import type { SendIntentStatus } from '../../../domain/wallet-sends';
import { sendIntentWorkflow } from '../../../workflows/send-intent';
import { startLogicEnv, timersOf, uid, waitingFor, withWorker, type Stubs } from './harness';

const MIN = 60_000;
const POLL = 15_000;
const { update } = sendIntentContract.signals;

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startLogicEnv();
}, 120_000);
afterAll(async () => {
  await env?.teardown();
});

const start = (taskQueue: string, intentId = uid('wsi_')) =>
  env.client.workflow.start(sendIntentWorkflow, { taskQueue, workflowId: intentId, args: [{ intentId }] });

/** An in-memory intent: created until `hash` is set; then on chain after one poll; expired at `expiresAtMs`. */
function intent() {
  const s = { hash: false, expiresAtMs: 0, polls: 0 };
  const calls: Array<{ nowMs: number; status: SendIntentStatus }> = [];
  const answer = (nowMs: number): SendProgress => {
    if (!s.expiresAtMs) s.expiresAtMs = nowMs + 15 * MIN;
    if (!s.hash) {
      if (nowMs >= s.expiresAtMs) return { status: 'expired', wakeAtMs: null, waitingFor: 'nothing (expired)' };
      return {
        status: 'created',
        wakeAtMs: s.expiresAtMs,
        waitingFor: `the holder's signed transaction until ${new Date(s.expiresAtMs).toISOString()}`,
      };
    }
    s.polls += 1;
    if (s.polls === 1) return { status: 'source_submitted', wakeAtMs: nowMs + POLL, waitingFor: 'the transaction on the chain' };
    return { status: 'settled', wakeAtMs: null, waitingFor: 'nothing (settled)' };
  };
  const acts: Stubs<typeof sendIntentContract> = {
    advanceSendIntent: async (_id, nowMs) => {
      const p = answer(nowMs);
      calls.push({ nowMs, status: p.status });
      return p;
    },
  };
  return { s, calls, acts };
}

test("the holder's hash (`update`) moves it on; the chain poll settles it", async () => {
  const m = intent();
  await withWorker(env, sendIntentContract, m.acts, async (tq) => {
    const h = await start(tq);
    expect(await waitingFor(h, /^the holder's signed transaction until /)).toBe(
      `the holder's signed transaction until ${new Date(m.s.expiresAtMs).toISOString()}`,
    );
    m.s.hash = true;
    await h.signal(update);
    expect(await h.result()).toBe('settled');
    expect(await h.query('waiting_for')).toBe('nothing (settled)');
    const timers = await timersOf(h);
    expect(timers).toHaveLength(2);
    expect(timers[1]).toBeLessThanOrEqual(POLL);
  });
  expect(m.calls.map((c) => c.status)).toEqual(['created', 'source_submitted', 'settled']);
});

test('no signature: wakes at the expiry time and that turn expires the intent', async () => {
  const m = intent();
  await withWorker(env, sendIntentContract, m.acts, async (tq) => {
    const h = await start(tq);
    expect(await h.result()).toBe('expired');
    const [timer] = await timersOf(h);
    expect(timer).toBeGreaterThan(15 * MIN - MIN);
    expect(timer).toBeLessThanOrEqual(15 * MIN);
  });
  expect(m.calls.map((c) => c.status)).toEqual(['created', 'expired']);
  expect(m.calls[1].nowMs).toBeGreaterThanOrEqual(m.s.expiresAtMs);
});
