/**
 * Tier A: virtualAccountWorkflow logic with stub activities (no database, no bank, no chain): each
 * wake (`update`: a credit recorded, a status change) settles the pending credits; an active account
 * re-checks hourly; a deactivated one ends once nothing is pending, unless a signal arrived during
 * the settlement.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { virtualAccountContract } from '../../../contracts/virtual-account';
import type { VirtualAccountStatus } from '../../../domain/virtual-accounts';
import { virtualAccountWorkflow } from '../../../workflows/virtual-account';
import { activityNowMs, gate, startLogicEnv, timersOf, uid, waitingFor, withWorker, type Stubs } from './harness';

/** An active account re-checks hourly (workflows/virtual-account.ts RECHECK_MS). */
const HOUR = 3_600_000;
const { update } = virtualAccountContract.signals;

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startLogicEnv();
}, 120_000);
afterAll(async () => {
  await env?.teardown();
});

const start = (taskQueue: string, virtualAccountId = uid('va_')) =>
  env.client.workflow.start(virtualAccountWorkflow, { taskQueue, workflowId: virtualAccountId, args: [{ virtualAccountId }] });

/** Resolves once `done()` holds (polled; time does not skip meanwhile). */
async function until(done: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > end) throw new Error('until: timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** An in-memory account: `credits` pending, `status` set by the test. */
function account() {
  const s = { status: 'active' as VirtualAccountStatus, credits: 0 };
  const settlements: Array<{ atMs: number; settled: number }> = [];
  const acts: Stubs<typeof virtualAccountContract> = {
    settleVirtualAccountCredits: async () => {
      settlements.push({ atMs: activityNowMs(), settled: s.credits });
      const settled = s.credits;
      s.credits = 0;
      return { status: s.status, settled };
    },
  };
  return { s, settlements, acts };
}

test('a credit (`update`) is settled at once; deactivated, the workflow ends', async () => {
  const m = account();
  await withWorker(env, virtualAccountContract, m.acts, async (tq) => {
    const h = await start(tq);
    expect(await waitingFor(h, /^the next bank credit/)).toBe('the next bank credit (or an hourly re-check)');
    m.s.credits = 1;
    await h.signal(update);
    await until(() => m.settlements.length === 2);
    await waitingFor(h, /^the next bank credit/);
    m.s.status = 'inactive';
    await h.signal(update);
    expect(await h.result()).toBe('inactive');
    expect(await h.query('waiting_for')).toBe('nothing (inactive)');
  });
  expect(m.settlements.map((x) => x.settled)).toEqual([0, 1, 0]);
  expect(m.settlements[2].atMs - m.settlements[0].atMs).toBeLessThan(HOUR);
});

test('nothing wakes it: the hourly re-check settles again, and ends once the account is inactive', async () => {
  const m = account();
  let n = 0;
  const settle = m.acts.settleVirtualAccountCredits!;
  const acts: Stubs<typeof virtualAccountContract> = {
    settleVirtualAccountCredits: async (id) => {
      n += 1;
      if (n === 2) m.s.status = 'inactive';
      return settle(id);
    },
  };
  await withWorker(env, virtualAccountContract, acts, async (tq) => {
    const h = await start(tq);
    expect(await h.result()).toBe('inactive');
    expect(await timersOf(h)).toEqual([HOUR]);
  });
  expect(m.settlements[1].atMs - m.settlements[0].atMs).toBeGreaterThanOrEqual(HOUR);
});

test('a signal during the settlement that finds the account inactive settles once more before ending', async () => {
  const m = account();
  m.s.status = 'inactive';
  const entered = gate();
  const hold = gate();
  const settle = m.acts.settleVirtualAccountCredits!;
  let n = 0;
  const acts: Stubs<typeof virtualAccountContract> = {
    settleVirtualAccountCredits: async (id) => {
      n += 1;
      const r = await settle(id);
      if (n === 1) {
        entered.open();
        await hold.promise;
      }
      return r;
    },
  };
  await withWorker(env, virtualAccountContract, acts, async (tq) => {
    const h = await start(tq);
    await entered.promise;
    m.s.credits = 1;
    await h.signal(update);
    hold.open();
    expect(await h.result()).toBe('inactive');
  });
  expect(m.settlements.map((x) => x.settled)).toEqual([0, 1]);
});
