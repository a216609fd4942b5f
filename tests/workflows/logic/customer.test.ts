/**
 * Tier A: customerWorkflow logic with stub activities (no database, no KYC provider): each wake
 * re-reads the provider (`update`) until it decides, the daily re-read while nothing arrives, and
 * parking on a non-retryable failure until the `retry` signal.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { customerContract } from '../../../contracts/customer';
import type { VerificationState } from '../../../domain/customers';
import { customerWorkflow } from '../../../workflows/customer';
import { activityNowMs, startLogicEnv, timersOf, uid, waitingFor, withWorker, type Stubs } from './harness';

/** The workflow re-reads a pending customer daily (workflows/customer.ts RECHECK_MS). */
const DAY = 86_400_000;
const { update, retry } = customerContract.signals;

/** Stubs answering `answers` in turn (then the last one again), recording each read's workflow time. */
function provider(answers: VerificationState[]) {
  const reads: Array<{ id: string; atMs: number }> = [];
  const acts: Stubs<typeof customerContract> = {
    syncCustomerVerification: async (id) => {
      reads.push({ id, atMs: activityNowMs() });
      return answers.length > 1 ? answers.shift()! : answers[0];
    },
  };
  return { reads, acts };
}

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startLogicEnv();
}, 120_000);
afterAll(async () => {
  await env?.teardown();
});

const start = (taskQueue: string, customerId = uid('cus_')) =>
  env.client.workflow.start(customerWorkflow, { taskQueue, workflowId: customerId, args: [{ customerId }] });

test('pending: waits for the provider; the `update` signal re-reads it and approved ends the workflow', async () => {
  const p = provider(['pending', 'approved']);
  await withWorker(env, customerContract, p.acts, async (tq) => {
    const h = await start(tq, 'cus_update');
    expect(await waitingFor(h, /^the provider's decision/)).toBe("the provider's decision (pending; re-read daily)");
    await h.signal(update);
    expect(await h.result()).toBe('approved');
    expect(await h.query('waiting_for')).toBe('nothing (approved)');
    // The daily re-read was armed, and the signal came first.
    expect(await timersOf(h)).toEqual([DAY]);
  });
  expect(p.reads.map((r) => r.id)).toEqual(['cus_update', 'cus_update']);
  expect(p.reads[1].atMs - p.reads[0].atMs).toBeLessThan(DAY);
});

test('nothing arrives: the provider is re-read once a day until it decides (rejected)', async () => {
  const p = provider(['pending', 'under_review', 'rejected']);
  await withWorker(env, customerContract, p.acts, async (tq) => {
    const h = await start(tq);
    expect(await h.result()).toBe('rejected');
    expect(await timersOf(h)).toEqual([DAY, DAY]);
  });
  expect(p.reads).toHaveLength(3);
  expect(p.reads[2].atMs - p.reads[0].atMs).toBeGreaterThanOrEqual(2 * DAY);
});

test('a non-retryable failure parks the customer for an operator; the retry signal reads again', async () => {
  let reads = 0;
  const acts: Stubs<typeof customerContract> = {
    syncCustomerVerification: async () => {
      reads += 1;
      if (reads === 1) throw ApplicationFailure.nonRetryable('customer cus_x not found', 'NotFound');
      return 'approved';
    },
  };
  await withWorker(env, customerContract, acts, async (tq) => {
    const h = await start(tq);
    expect(await waitingFor(h, /^an operator: /)).toBe(
      'an operator: NotFound: customer cus_x not found (fix the cause, then send the `retry` signal)',
    );
    await h.signal(retry);
    expect(await h.result()).toBe('approved');
  });
  expect(reads).toBe(2);
});
