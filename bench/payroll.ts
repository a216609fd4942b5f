/**
 * `npm run bench:payroll`: a payroll run of BENCH_ITEMS (500) items from `POST /execute` to
 * `payroll_run.completed` in the sandbox (issue 13 target: under 30 s on this machine), and the
 * same fan-out with nothing to pay as the bare baseline, measured in the same run.
 *
 * A throwaway stack (API and worker as separate processes). The run is prepared through the API as
 * a business and its recipients would: create with BENCH_ITEMS rows, a recipient session link per
 * item (reissue_link), each recipient submits a US bank destination, the business adopts it,
 * approves, requests bank funding instructions, the bank credit arrives (`/sim/bank/credits` with
 * the run reference) and a refresh of the instructions confirms it. Then it times `POST /execute` to
 * `payroll_run.completed` committed in the outbox (seen through `LISTEN events`) and prints items/s.
 * Baseline: a worker in this process runs `floorFanOutWorkflow` (bench/workflows/floor.ts: the
 * same number of child workflows, the same 50 in flight, one no-op activity each) on the stack's
 * Temporal server.
 * Env: BENCH_ITEMS (500).
 */
import 'reflect-metadata';
import crypto from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { Client as PgClient } from 'pg';
import type { DevCredentials } from '../activities/accounts/commands';
import type { Stack } from '../scripts/stack';
import { EXECUTION_CONCURRENCY } from '../workflows/payroll-run';
import { runBench } from './harness';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 500);
const log = (m: string) => process.stderr.write(`[bench:payroll] ${m}\n`);

type Json = any;

/** Runs `fn` over `list` with `n` in flight. */
async function pool<T>(list: T[], n: number, fn: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < list.length) await fn(list[next++]);
    }),
  );
}

async function measure(stack: Stack, creds: DevCredentials): Promise<void> {
  const call = async (method: string, path: string, body?: unknown, auth: 'key' | 'none' = 'key'): Promise<Json> => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (auth === 'key') headers['x-api-key'] = creds.live_key;
    if (method === 'POST') headers['Idempotency-Key'] = `bench_${crypto.randomBytes(12).toString('hex')}`;
    const r = await fetch(`${stack.apiUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const b = (await r.json()) as Json;
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(b)}`);
    return b;
  };

  log(`preparing a run of ${ITEMS} items through the API...`);
  const prep0 = performance.now();
  const rows = Array.from({ length: ITEMS }, (_, i) => ({
    email: `bench${i}@example.com`,
    name: `Bench Recipient ${i}`,
    amount: { amount: '2000', currency: 'USD', decimals: 2 },
  }));
  const run = await call('POST', '/v1/payroll_runs', { title: 'Bench payroll', currency: 'USD', rows });
  const items: Json[] = [];
  for (let cursor: string | null = null, first = true; first || cursor; first = false) {
    const page: Json = await call('GET', `/v1/payroll_runs/${run.id}/items?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    items.push(...page.data);
    cursor = page.has_more ? page.next_cursor : null;
  }
  await pool(items, 16, async (item) => {
    const link = await call('POST', `/v1/payroll_runs/${run.id}/items/${item.id}/reissue_link`, {});
    await call(
      'POST',
      `/v1/payroll_recipient_sessions/${link.recipient_session.token}/destination`,
      {
        type: 'bank_account',
        account_owner_type: 'individual',
        account_holder_name: item.recipient.name,
        rail: 'ach',
        account_number: '000123456789',
        routing_number: '021000021',
      },
      'none',
    );
    const rcp = await call('GET', `/v1/payroll_recipients/${item.recipient.id}`);
    await call('POST', `/v1/payroll_recipients/${item.recipient.id}/adopt_pending_destination`, {
      expected_submitted_at: rcp.pending_destination.submitted_at,
    });
  });
  await call('POST', `/v1/payroll_runs/${run.id}/approve`, {});
  const fi = await call('POST', `/v1/payroll_runs/${run.id}/funding_instructions`, { funding_method: 'fiat' });
  await call(
    'POST',
    '/sim/bank/credits',
    {
      rail: fi.bank.rail,
      currency: 'USD',
      amount: run.funding_amount.amount,
      reference: fi.run_reference,
      to_account: fi.bank.account_number,
      sender_name: 'Bench Payer',
    },
    'none',
  );
  await call('POST', `/v1/payroll_runs/${run.id}/funding_instructions`, {});
  const funded = await call('GET', `/v1/payroll_runs/${run.id}`);
  if (funded.funding_state !== 'funded') throw new Error(`run not funded: ${JSON.stringify(funded)}`);
  log(`prepared in ${((performance.now() - prep0) / 1000).toFixed(1)} s`);

  const listener = new PgClient({ connectionString: stack.databaseUrl });
  await listener.connect();
  let doneAt = 0;
  let outcome = '';
  await listener.query('LISTEN events');
  listener.on('notification', (n) => {
    const now = performance.now();
    void listener.query('SELECT type, object_id FROM events WHERE id = $1', [n.payload]).then((r) => {
      const e = r.rows[0];
      if (e?.object_id === run.id && /^payroll_run\.(completed|partial|failed)$/.test(e.type)) {
        doneAt = now;
        outcome = e.type;
      }
    });
  });
  const t0 = performance.now();
  await call('POST', `/v1/payroll_runs/${run.id}/execute`, {});
  const acceptedMs = performance.now() - t0;
  const end = Date.now() + 300_000;
  while (!doneAt && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
  await listener.end();
  if (!doneAt) throw new Error('the run did not finish within 300 s');
  const productS = (doneAt - t0) / 1000;

  log('baseline: the same fan-out with nothing to pay...');
  const native = await NativeConnection.connect({ address: stack.temporalAddress });
  const client = new Client({ connection: await Connection.connect({ address: stack.temporalAddress }) });
  const taskQueue = `bench-payroll-floor-${crypto.randomBytes(4).toString('hex')}`;
  const worker = await Worker.create({
    connection: native,
    taskQueue,
    workflowsPath: require.resolve('./workflows/floor'),
    activities: { floorAttempt: async () => 1, floorItem: async (i: number) => i },
  });
  let floorS = 0;
  await worker.runUntil(async () => {
    const b0 = performance.now();
    await client.workflow.execute('floorFanOutWorkflow', {
      taskQueue,
      workflowId: `floor_fanout_${crypto.randomBytes(4).toString('hex')}`,
      args: [ITEMS, EXECUTION_CONCURRENCY],
    });
    floorS = (performance.now() - b0) / 1000;
  });
  await native.close();

  process.stdout.write(
    [
      '',
      `Payroll execution of ${ITEMS} items (US bank destinations, sandbox rail), ${EXECUTION_CONCURRENCY} item payments in flight:`,
      `  product: POST /execute -> ${outcome} in the outbox   ${productS.toFixed(1)} s   ${(ITEMS / productS).toFixed(1)} items/s   (execute answered in ${acceptedMs.toFixed(0)} ms; target < 30 s)`,
      `  bare baseline: ${ITEMS} child workflows, one no-op activity each   ${floorS.toFixed(1)} s   ${(ITEMS / floorS).toFixed(1)} items/s`,
      `  product / baseline: ${((ITEMS / productS / (ITEMS / floorS)) * 100).toFixed(0)}%`,
      '',
    ].join('\n'),
  );
}

runBench({ name: 'bench:payroll', tag: 'bench-payroll', split: true, log }, measure);
