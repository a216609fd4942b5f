/**
 * Tier A: payrollItemWorkflow logic with stub activities (no database, no rail): the item's payment
 * submitted under its attempt key (a queued payment submitted again at once), the rail re-read on
 * `update` or hourly while processing, the final status returned; parking on a non-retryable
 * failure until the `retry` signal.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { payrollItemContract } from '../../../contracts/payroll-item';
import type { PayrollItemStatus } from '../../../domain/payroll';
import { payrollItemWorkflow } from '../../../workflows/payroll-item';
import { startLogicEnv, timersOf, uid, waitingFor, withWorker, type Stubs } from './harness';

/** A processing payment is re-read hourly (workflows/payroll-item.ts PROCESSING_POLL_MS). */
const HOUR = 3_600_000;
const { update, retry } = payrollItemContract.signals;

/** Stubs answering `pays` and `syncs` in turn (then the last one again); `log` records the calls. */
function rail(pays: PayrollItemStatus[], syncs: PayrollItemStatus[]) {
  const log: string[] = [];
  const next = (a: PayrollItemStatus[]) => (a.length > 1 ? a.shift()! : a[0]);
  const acts: Stubs<typeof payrollItemContract> = {
    payPayrollItem: async (id) => {
      const s = next(pays);
      log.push(`pay ${id} ${s}`);
      return s;
    },
    syncPayrollItem: async (id) => {
      const s = next(syncs);
      log.push(`sync ${id} ${s}`);
      return s;
    },
  };
  return { log, acts };
}

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startLogicEnv();
}, 120_000);
afterAll(async () => {
  await env?.teardown();
});

const start = (taskQueue: string, itemId = uid('pri_')) =>
  env.client.workflow.start(payrollItemWorkflow, { taskQueue, workflowId: itemId, args: [{ itemId }] });

test("queued, then processing; the rail's report (`update`) is read and the item ends paid", async () => {
  const r = rail(['queued', 'processing'], ['processing', 'paid']);
  await withWorker(env, payrollItemContract, r.acts, async (tq) => {
    const h = await start(tq, 'pri_paid');
    expect(await waitingFor(h, /^the rail/)).toBe('the rail to pay, fail or return the payment');
    await h.signal(update);
    expect(await h.result()).toBe('paid');
    expect(await h.query('waiting_for')).toBe('nothing (paid)');
  });
  // Every turn submits again under the same attempt key (the activity is idempotent), then reads the rail.
  expect(r.log).toEqual([
    'pay pri_paid queued',
    'pay pri_paid processing',
    'sync pri_paid processing',
    'pay pri_paid processing',
    'sync pri_paid paid',
  ]);
});

test('no report: the processing payment is re-read every hour until the rail returns it', async () => {
  const r = rail(['processing'], ['processing', 'processing', 'returned']);
  await withWorker(env, payrollItemContract, r.acts, async (tq) => {
    const h = await start(tq);
    expect(await h.result()).toBe('returned');
    expect(await timersOf(h)).toEqual([HOUR, HOUR]);
  });
  expect(r.log.filter((l) => l.startsWith('sync'))).toHaveLength(3);
});

test('a non-retryable failure parks the item for an operator; the retry signal submits again', async () => {
  let pays = 0;
  const acts: Stubs<typeof payrollItemContract> = {
    payPayrollItem: async () => {
      pays += 1;
      if (pays === 1) throw ApplicationFailure.nonRetryable('payroll item pri_x has no beneficiary for ach', 'BeneficiaryMissing');
      return 'failed';
    },
    syncPayrollItem: async () => 'failed',
  };
  await withWorker(env, payrollItemContract, acts, async (tq) => {
    const h = await start(tq);
    expect(await waitingFor(h, /^an operator: /)).toBe(
      'an operator: BeneficiaryMissing: payroll item pri_x has no beneficiary for ach (fix the cause, then send the `retry` signal)',
    );
    await h.signal(retry);
    expect(await h.result()).toBe('failed');
  });
  expect(pays).toBe(2);
});
