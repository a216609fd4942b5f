/**
 * Tier A: offrampIntentWorkflow logic with stub activities (no database, no chain, no rail): each
 * turn `advanceOfframp` decides at workflow time (wait, submit the bank payment, refund, done); the
 * transit deposit (`update`) leads to one bank payment followed to payment_processed, and a short
 * deposit at the funding deadline is refunded.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { offrampIntentContract, type OfframpProgress } from '../../../contracts/offramp-intent';
import type { OfframpStatus } from '../../../domain/offramp';
import { offrampIntentWorkflow } from '../../../workflows/offramp-intent';
import { startLogicEnv, timersOf, uid, waitingFor, withWorker, type Stubs } from './harness';

const MIN = 60_000;
const HOUR = 60 * MIN;
const { update } = offrampIntentContract.signals;

/** An in-memory intent: `funded` (full or short) by the test; the rail pays after `railPolls` looks. */
function intent(o: { funded?: 'full' | 'short' } = {}) {
  const s = { status: 'awaiting_funds' as OfframpStatus, funded: o.funded ?? (null as 'full' | 'short' | null), deadlineMs: 0 };
  const log: string[] = [];
  const acts: Stubs<typeof offrampIntentContract> = {
    advanceOfframp: async (_id, nowMs): Promise<OfframpProgress> => {
      log.push(`advance ${s.status}`);
      if (!s.deadlineMs) s.deadlineMs = nowMs + 30 * MIN;
      if (s.status === 'awaiting_funds') {
        if (s.funded === 'full') {
          s.status = 'funds_received';
          return { status: s.status, next: 'submit', wakeAtMs: null, waitingFor: 'paying the bank (idempotent by the intent)' };
        }
        if (nowMs < s.deadlineMs)
          return {
            status: s.status,
            next: 'wait',
            wakeAtMs: s.deadlineMs,
            waitingFor: `the transit deposit (until ${new Date(s.deadlineMs).toISOString()})`,
          };
        if (s.funded === 'short')
          return { status: s.status, next: 'refund', wakeAtMs: null, waitingFor: 'returning the short transit deposit' };
        s.status = 'failed';
      }
      if (s.status === 'payment_submitted')
        return { status: s.status, next: 'wait', wakeAtMs: nowMs + HOUR, waitingFor: 'the sepa rail to pay rp_1' };
      return { status: s.status, next: 'done', wakeAtMs: null, waitingFor: `nothing (${s.status})` };
    },
    submitOfframpPayment: async () => {
      log.push('submit');
      s.status = 'payment_submitted';
    },
    refundOfframp: async () => {
      log.push('refund');
      s.status = 'refunded';
    },
  };
  return { s, log, acts };
}

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startLogicEnv();
}, 120_000);
afterAll(async () => {
  await env?.teardown();
});

const start = (taskQueue: string, intentId = uid('ofr_')) =>
  env.client.workflow.start(offrampIntentWorkflow, { taskQueue, workflowId: intentId, args: [{ intentId }] });

test('the transit deposit (`update`): one bank payment, followed until the rail pays it', async () => {
  const m = intent();
  await withWorker(env, offrampIntentContract, m.acts, async (tq) => {
    const h = await start(tq);
    await waitingFor(h, /^the transit deposit/);
    m.s.funded = 'full';
    await h.signal(update);
    expect(await waitingFor(h, /^the sepa rail/)).toBe('the sepa rail to pay rp_1');
    m.s.status = 'payment_processed';
    await h.signal(update);
    expect(await h.result()).toBe('payment_processed');
  });
  expect(m.log).toEqual([
    'advance awaiting_funds',
    'advance awaiting_funds',
    'submit',
    'advance payment_submitted',
    'advance payment_processed',
  ]);
});

test('a short deposit at the funding deadline: the turn at the deadline refunds it', async () => {
  const m = intent({ funded: 'short' });
  await withWorker(env, offrampIntentContract, m.acts, async (tq) => {
    const h = await start(tq);
    expect(await h.result()).toBe('refunded');
    const [timer] = await timersOf(h);
    expect(timer).toBeGreaterThan(30 * MIN - MIN);
    expect(timer).toBeLessThanOrEqual(30 * MIN);
  });
  expect(m.log).toEqual(['advance awaiting_funds', 'advance awaiting_funds', 'refund', 'advance refunded']);
});
