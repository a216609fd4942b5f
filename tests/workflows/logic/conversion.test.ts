/**
 * Tier A: conversionWorkflow logic with stub activities (no database, no chain): a built
 * conversion waits for the holder's hash until `signable_until`; the hash (`conversionUpdate`)
 * starts the chain watch (polled every CONVERSION_POLL_MS) until settled; without a hash the
 * deadline, mapped onto workflow time from the workflow's start, fails it.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { conversionContract, type ConversionState } from '../../../contracts/conversion';
import { CONVERSION_POLL_MS, conversionWorkflow } from '../../../workflows/conversion';
import { activityNowMs, startLogicEnv, timersOf, uid, waitingFor, withWorker, type Stubs } from './harness';

const MIN = 60_000;
const { update: conversionUpdate } = conversionContract.signals;

/** An in-memory conversion built now, signable for 10 minutes, confirmed within 10 minutes of submission. */
function conversion() {
  const s = { status: 'built', createdAtMs: 0, submitted: false, onChain: false };
  const log: string[] = [];
  const state = (): ConversionState => ({
    status: s.status,
    terminal: s.status === 'settled' || s.status === 'failed',
    createdAt: new Date(s.createdAtMs).toISOString(),
    signableUntil: new Date(s.createdAtMs + 10 * MIN).toISOString(),
    confirmBy: s.status === 'built' ? null : new Date(s.createdAtMs + 20 * MIN).toISOString(),
  });
  const acts: Stubs<typeof conversionContract> = {
    checkConversion: async () => {
      if (!s.createdAtMs) s.createdAtMs = activityNowMs();
      if (s.status === 'built' && s.submitted) s.status = 'submitted';
      else if (s.status === 'submitted' && s.onChain) s.status = 'settled';
      log.push(`check ${s.status}`);
      return state();
    },
    expireConversion: async () => {
      log.push('expire');
      s.status = 'failed';
      return state();
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

const start = (taskQueue: string, conversionId = uid('cnv_')) =>
  env.client.workflow.start(conversionWorkflow, { taskQueue, workflowId: conversionId, args: [{ conversionId }] });

test("the holder's hash (`conversionUpdate`) starts the chain watch; the poll finds it on chain and it settles", async () => {
  const m = conversion();
  await withWorker(env, conversionContract, m.acts, async (tq) => {
    const h = await start(tq);
    expect(await waitingFor(h, /^the holder's signed transaction hash/)).toBe(
      `the holder's signed transaction hash until ${m.state().signableUntil}`,
    );
    m.s.submitted = true;
    await h.signal(conversionUpdate);
    expect(await waitingFor(h, /^the signed transaction on the chain/)).toBe(
      `the signed transaction on the chain until ${m.state().confirmBy}`,
    );
    m.s.onChain = true;
    expect(await h.result()).toBe('settled');
    expect((await timersOf(h)).at(-1)).toBe(CONVERSION_POLL_MS);
  });
  expect(m.log).toEqual(['check built', 'check submitted', 'check settled']);
});

test('no hash: wakes at signable_until and the conversion fails', async () => {
  const m = conversion();
  await withWorker(env, conversionContract, m.acts, async (tq) => {
    const h = await start(tq);
    expect(await h.result()).toBe('failed');
    const [timer] = await timersOf(h);
    expect(timer).toBeGreaterThan(10 * MIN - MIN);
    expect(timer).toBeLessThanOrEqual(10 * MIN);
  });
  expect(m.log).toEqual(['check built', 'expire']);
});
