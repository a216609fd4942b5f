/**
 * Crash test (issue 14; spec 3 off-ramp): a separate worker process (dist/worker.js) runs the
 * off-ramp workflow on its own task queue against the stack's PostgreSQL and Temporal dev server.
 * The transit deposit arrives (`funds_received`); the fiat rail accepts the bank payment but
 * answers late (sandbox fault `fiat_rails.submit_delay_ms`), and the worker is killed (SIGKILL) in
 * that window: between `funds_received` and `payment_submitted`, with the provider already holding
 * the payment. A fresh worker takes over: the intent ends `payment_processed` with exactly one
 * fiat payment, and each event once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resetConfig } from '../../lib/config';
import { createExternalAccount } from '../../activities/wallet/commands';
import { createOfframpIntent } from '../../activities/offramp-intents/commands';
import { transitTransaction } from '../../activities/offramp-intents/queries';
import { signalOfframpIntent } from '../../activities/offramp-intents/signals';
import { systemScope } from '../../activities/scope';
import { db } from '../../lib/db';
import { chainAdapter } from '../../providers/chain';
import { setFault } from '../../providers/sandbox-faults';
import { signTransaction } from '../../providers/wallet-sends';
import { closeTemporalClient, temporalClient } from '../../temporal/client';
import { connectDb, newAccount } from '../helpers/api';
import { usePrivateStack } from '../helpers/stack';

// This file's workflows run on their own task queue, served only by the workers it spawns.
const queue = `offramp-crash-${process.pid}`;
process.env.TEMPORAL_TASK_QUEUE = queue;
resetConfig();

const req = { id: 'req_crash', idempotency_key: null };
const workers: ChildProcess[] = [];
const logFile = path.join(os.tmpdir(), `offramp-crash-worker-${process.pid}.log`);

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
// the boot-time recovery pass and the outbox dispatcher over its whole database. On the shared one it
// started other files' webhook endpoint workflows on this file's task queue (their deliveries then
// waited for this file's workers) and kept that queue busy past this test's deadline in CI.
usePrivateStack('offramp-crash');

beforeAll(async () => {
  resetConfig(); // the private stack's DATABASE_URL and TEMPORAL_ADDRESS (this file's own task queue stays)
  await connectDb();
});

afterAll(async () => {
  for (const w of workers) await kill(w);
  await closeTemporalClient();
});

const q = async (sql: string, args: unknown[]) => (await db().query(sql, args))[0];

test('killing the worker between funds_received and payment_submitted: one fiat payment, never two', async () => {
  const acct = await newAccount();
  const chain = chainAdapter();
  const wallet = (await q('SELECT address FROM wallets WHERE account_id = $1', [acct.account_id])).address as string;
  await chain.inject({ chain: chain.chain, asset: chain.stablecoin, to_address: wallet, amount: 50_000_000n, decimals: 6 });
  const ba = await createExternalAccount(systemScope(acct.account_id, true), {
    account_owner_type: 'individual',
    account_holder_name: 'Ana Diaz',
    rail: 'sepa',
    iban: 'DE89370400440532013000',
  });
  await setFault(acct.account_id, 'fiat_rails.submit_delay_ms', '60000');
  const first = startWorker();
  const ofr = await createOfframpIntent(systemScope(acct.account_id, true, req), {
    external_account_id: ba.id,
    terms: {
      destinationCurrency: 'EUR',
      destinationRail: 'sepa',
      amount: { amount: '20000000', currency: chain.stablecoin, decimals: 6 },
    },
  });
  await signTransaction(transitTransaction(ofr));
  await signalOfframpIntent(ofr.id, acct.account_id);

  // The provider holds the payment while the intent is still funds_received: kill the worker there.
  for (const end = Date.now() + 120_000; ; await new Promise((r) => setTimeout(r, 20))) {
    if (Date.now() > end) throw new Error('timed out waiting for the provider to accept the payment');
    const [intent, payments] = await Promise.all([
      q('SELECT status FROM wallet_offramp_intents WHERE id = $1', [ofr.id]),
      q('SELECT count(*)::int AS n FROM sandbox_rail_payments WHERE client_reference = $1', [ofr.id]),
    ]);
    if (intent.status === 'funds_received' && payments.n === 1) break;
  }
  await kill(first);
  expect((await q('SELECT status FROM wallet_offramp_intents WHERE id = $1', [ofr.id])).status).toBe('funds_received');
  await setFault(acct.account_id, 'fiat_rails.submit_delay_ms', null);

  startWorker();
  expect(await (await temporalClient()).workflow.getHandle(ofr.id).result()).toBe('payment_processed');
  expect((await q('SELECT count(*)::int AS n FROM sandbox_rail_payments WHERE client_reference = $1', [ofr.id])).n).toBe(1);
  const types = (await db().query('SELECT type FROM events WHERE object_id = $1 ORDER BY seq', [ofr.id])).map(
    (r: { type: string }) => r.type,
  );
  expect(types).toEqual([
    'offramp_intent.created',
    'offramp_intent.funds_received',
    'offramp_intent.payment_submitted',
    'offramp_intent.payment_processed',
  ]);
}, 300_000);
