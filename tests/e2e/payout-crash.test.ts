/**
 * Crash test (issue 4): a separate worker process (dist/worker.js, not the stack's product) runs the
 * payout workflow on its own task queue against the stack's PostgreSQL and Temporal dev server. The
 * sandbox bridge is told to answer slowly for this test's account only (faults are per account, so
 * payouts of test files running in parallel are not slowed); once it has recorded the provider transfer, the worker is
 * killed (SIGKILL) mid-funding before the activity could report back. A fresh worker retries the
 * activity with the same idempotency key: the payout then completes once (deposit, rail paid,
 * recipient confirmation -> settled) with exactly one provider transfer and one rail payment.
 */
import { payoutContract } from '../../contracts/payout';
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resetConfig } from '../../lib/config';
import { provisionAccount } from '../../activities/accounts/commands';
import { recordObservedTransfer } from '../../activities/payments/watcher';
import { createPayout, requestFunding, setBeneficiary } from '../../activities/payouts/commands';
import { systemScope } from '../../activities/scope';
import { notifyPayoutProviderUpdate, signalPayout } from '../../activities/payouts/signals';
import { db } from '../../lib/db';
import { fiatRails } from '../../providers/fiat-rails';
import { setFault } from '../../providers/sandbox-faults';
import { closeTemporalClient, temporalClient } from '../../temporal/client';
import { connectDb, eventually } from '../helpers/api';
import { usePrivateStack } from '../helpers/stack';

// This file's activities and client use their own task queue, served only by the workers it spawns.
const queue = `payout-crash-${process.pid}`;
process.env.TEMPORAL_TASK_QUEUE = queue;
resetConfig();

const req = { id: 'req_crash', idempotency_key: null };
const workers: ChildProcess[] = [];
/** The account whose bridge is slowed: faults are per account, so parallel test files are untouched. */
let slowAccount: string | null = null;
const logFile = path.join(os.tmpdir(), `payout-crash-worker-${process.pid}.log`);

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

// A database and Temporal server of its own: a worker this file spawns runs the boot-time recovery
// pass and the outbox dispatcher over its whole database, and on the shared one (thousands of other
// files' rows) that kept its task queue busy for minutes in CI, past this test's deadlines.
usePrivateStack('payout-crash');

beforeAll(async () => {
  resetConfig(); // the private stack's DATABASE_URL and TEMPORAL_ADDRESS (this file's own task queue stays)
  await connectDb();
});

/** What a timed-out step shows: the payout's row, its workflow's pending work and the worker log's tail. */
async function diagnosis(payoutId: string): Promise<string> {
  const row = (await db().query('SELECT status FROM payouts WHERE id = $1', [payoutId]))[0];
  const attempts = await db().query('SELECT id, provider_transfer_id, rail_payment_id FROM payout_attempts WHERE payout_id = $1', [
    payoutId,
  ]);
  const d = await (
    await temporalClient()
  ).workflow
    .getHandle(payoutId)
    .describe()
    .catch((e) => ({ error: String(e) }));
  const pending =
    'raw' in d
      ? {
          status: d.status.name,
          taskQueue: d.taskQueue,
          pendingActivities: d.raw.pendingActivities?.map((a) => ({
            type: a.activityType?.name,
            attempt: a.attempt,
            lastFailure: a.lastFailure?.message,
          })),
        }
      : d;
  const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').split('\n').slice(-30).join('\n') : '(no worker log)';
  return `payout: ${JSON.stringify(row)}\nattempts: ${JSON.stringify(attempts)}\nworkflow: ${JSON.stringify(pending)}\nworker log (tail):\n${log}`;
}

afterAll(async () => {
  for (const w of workers) await kill(w);
  if (slowAccount) await setFault(slowAccount, 'bridge.create_delay_ms', null).catch(() => undefined);
  await closeTemporalClient();
});

test('killing the worker mid-funding: the payout settles once with one provider transfer', async () => {
  const creds = await provisionAccount();
  const p = await createPayout(systemScope(creds.account_id, true, req), {
    invoice_amount: { amount: '250000', currency: 'EUR', decimals: 2 },
    corridor_id: 'eur_sepa',
    source_chain: 'base',
  });
  await setBeneficiary(systemScope(creds.account_id, true, req), {
    id: p.id,
    account_owner_type: 'business',
    account_holder_name: 'Lieferant GmbH',
    iban: 'DE89370400440532013000',
  });
  slowAccount = creds.account_id;
  await setFault(creds.account_id, 'bridge.create_delay_ms', '15000');
  const first = startWorker();
  const { attemptId } = await requestFunding(systemScope(creds.account_id, true, req), { id: p.id });
  await signalPayout(p.id, creds.account_id, payoutContract.signals.update);

  // The bridge recorded the transfer and is still answering: kill the worker inside that activity.
  await eventually(
    async () => (await db().query('SELECT 1 FROM sandbox_bridge_transfers WHERE client_reference = $1', [p.id])).length > 0,
    'transfer recorded',
    60_000,
  );
  await kill(first);
  await setFault(creds.account_id, 'bridge.create_delay_ms', null);
  expect(
    (await db().query('SELECT provider_transfer_id FROM payout_attempts WHERE id = $1', [attemptId]))[0].provider_transfer_id,
  ).toBeNull();

  startWorker();
  const attempt = await eventually(
    async () => {
      const rows = await db().query('SELECT * FROM payout_attempts WHERE id = $1 AND provider_transfer_id IS NOT NULL', [attemptId]);
      return rows[0];
    },
    'transfer recorded by the retried activity',
    90_000,
  );
  await recordObservedTransfer({
    chain: 'base',
    asset: 'USDC',
    to_address: attempt.deposit_address,
    from_address: null,
    amount: BigInt(attempt.gross_minor),
    decimals: 6,
    tx_hash: `0x${crypto.randomBytes(32).toString('hex')}`,
  });
  await eventually(
    async () => (await db().query('SELECT rail_payment_id FROM payout_attempts WHERE id = $1', [attemptId]))[0].rail_payment_id,
    'rail payment',
    90_000,
  ).catch(async (e) => {
    throw new Error(`${String(e)}\n${await diagnosis(p.id)}`);
  });
  await fiatRails().simulate(p.id, { state: 'paid' });
  await notifyPayoutProviderUpdate(p.id);
  await eventually(async () => (await db().query('SELECT status FROM payouts WHERE id = $1', [p.id]))[0].status === 'paid', 'paid', 60_000);
  await fiatRails().simulate(p.id, { recipientReceived: 250000n });
  await notifyPayoutProviderUpdate(p.id);

  const result = await (await temporalClient()).workflow.getHandle(p.id).result();
  expect(result).toBe('settled');
  expect((await db().query('SELECT status, settled_minor FROM payouts WHERE id = $1', [p.id]))[0]).toEqual({
    status: 'settled',
    settled_minor: '250000',
  });
  expect((await db().query('SELECT count(*)::int AS n FROM sandbox_bridge_transfers WHERE client_reference = $1', [p.id]))[0].n).toBe(1);
  expect((await db().query('SELECT count(*)::int AS n FROM sandbox_rail_payments WHERE client_reference = $1', [p.id]))[0].n).toBe(1);
  expect((await db().query('SELECT count(*)::int AS n FROM payout_attempts WHERE payout_id = $1', [p.id]))[0].n).toBe(1);
  const events = (await db().query('SELECT type FROM events WHERE object_id = $1 ORDER BY seq', [p.id])).map(
    (r: { type: string }) => r.type,
  );
  expect(events.filter((t: string) => t === 'payout.funded')).toHaveLength(1);
  expect(events.filter((t: string) => t === 'payout.settled')).toHaveLength(1);
}, 240_000);
