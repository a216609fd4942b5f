/**
 * Crash test (issue 13): a separate worker process (dist/worker.js) runs the payroll workflows on
 * its own task queue against the stack's PostgreSQL and Temporal dev server. A funded run of 100
 * items is executed; once some items are paid and others are in flight, the worker is killed
 * (SIGKILL), and a fresh worker takes over. Every item ends paid exactly once: one attempt and one
 * provider payment per item, one `payout_paid` event each, and the run `completed`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resetConfig } from '../../lib/config';
import { executeRun } from '../../activities/payroll/commands';
import { wakePayrollRun } from '../../activities/payroll/signals';
import { db } from '../../lib/db';
import { closeTemporalClient, temporalClient } from '../../temporal/client';
import { connectDb } from '../helpers/api';
import { usePrivateStack } from '../helpers/stack';
import { approvedRun, markFunded, usBank } from '../helpers/payroll';
import { systemScope } from '../../activities/scope';

// This file's workflows run on their own task queue, served only by the workers it spawns.
const queue = `payroll-crash-${process.pid}`;
process.env.TEMPORAL_TASK_QUEUE = queue;
resetConfig();

const req = { id: 'req_crash', idempotency_key: null };
const workers: ChildProcess[] = [];
const logFile = path.join(os.tmpdir(), `payroll-crash-worker-${process.pid}.log`);

function startWorker(): ChildProcess {
  const out = fs.openSync(logFile, 'a');
  const w = spawn(process.execPath, [path.resolve(__dirname, '../../dist/worker.js')], {
    env: { ...process.env, TEMPORAL_TASK_QUEUE: queue, LOG_LEVEL: 'warn' },
    stdio: ['ignore', out, out],
  });
  workers.push(w);
  return w;
}

async function kill(w: ChildProcess): Promise<void> {
  if (w.exitCode !== null || w.signalCode !== null) return;
  const exited = new Promise((r) => w.once('exit', r));
  w.kill('SIGKILL');
  await exited;
}

// A database and Temporal server of its own (as payout-crash.test.ts): a worker this file spawns runs
// the boot-time recovery pass and the outbox dispatcher over its whole database, and on the shared one
// it would start other files' workflows on this file's task queue.
usePrivateStack('payroll-crash');

beforeAll(async () => {
  resetConfig(); // the private stack's DATABASE_URL and TEMPORAL_ADDRESS (this file's own task queue stays)
  await connectDb();
});

afterAll(async () => {
  for (const w of workers) await kill(w);
  await closeTemporalClient();
});

const count = async (sql: string, args: unknown[]) => Number((await db().query(sql, args))[0].n);

test('killing the worker while a 100-item run executes: every item is paid exactly once and the run completes', async () => {
  const { accountId, runId, itemIds } = await approvedRun(
    Array.from({ length: 100 }, (_, i) => BigInt(1000 + i)),
    () => usBank('000123456789'),
  );
  await markFunded(runId);
  await executeRun(systemScope(accountId, true, req), { id: runId });
  const first = startWorker();
  await wakePayrollRun(runId, accountId);

  // Kill once the execution is under way: some items paid, the rest queued or not yet reached.
  let paidAtKill = 0;
  for (const end = Date.now() + 120_000; paidAtKill < 5; await new Promise((r) => setTimeout(r, 5))) {
    if (Date.now() > end) throw new Error('timed out waiting for the first items to be paid');
    paidAtKill = await count(`SELECT count(*)::int AS n FROM payroll_run_items WHERE run_id = $1 AND status = 'paid'`, [runId]);
  }
  await kill(first);
  const inFlight = await count(`SELECT count(*)::int AS n FROM payroll_run_items WHERE run_id = $1 AND status <> 'paid'`, [runId]);
  console.log(`worker killed with ${paidAtKill}+ items paid and ${inFlight} not yet paid`);
  expect(inFlight).toBeGreaterThan(0);

  startWorker();
  const result = await (await temporalClient()).workflow.getHandle(runId).result();
  expect(result).toBe('completed');
  expect(await count(`SELECT count(*)::int AS n FROM payroll_run_items WHERE run_id = $1 AND status = 'paid'`, [runId])).toBe(100);
  expect(await count('SELECT count(*)::int AS n FROM payroll_item_attempts WHERE run_id = $1', [runId])).toBe(100);
  const perItem: Array<{ client_reference: string; n: number }> = await db().query(
    'SELECT client_reference, count(*)::int AS n FROM sandbox_rail_payments WHERE client_reference = ANY($1) GROUP BY client_reference',
    [itemIds],
  );
  expect(perItem).toHaveLength(100);
  expect(perItem.every((r) => r.n === 1)).toBe(true);
  expect(
    await count(`SELECT count(*)::int AS n FROM events WHERE object_id = ANY($1) AND type = 'payroll_item.payout_paid'`, [itemIds]),
  ).toBe(100);
  expect(await count(`SELECT count(*)::int AS n FROM events WHERE object_id = $1 AND type = 'payroll_run.completed'`, [runId])).toBe(1);
}, 300_000);
