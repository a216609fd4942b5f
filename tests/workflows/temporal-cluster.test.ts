/**
 * The Temporal cluster stack (issue 37; temporal/dev/cluster.ts) on the test stack's PostgreSQL
 * server: its databases are created and migrated, its five service processes come up, the
 * namespace serves the three custom search attributes in SQL visibility (a workflow started with
 * them is found by a query naming them), a history host SIGKILLed leaves its shards to the other
 * (new workflows still complete), and a second start on the same databases (setup skipped,
 * `update-schema` a no-op) finds the closed workflow again. The metrics the server's alert rules and
 * dashboard rely on once workflows ran (monitoring/prometheus/temporal-server-alerts.yml, its header)
 * are exported by the service processes. Its databases are dropped afterwards.
 */
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { Client as PgClient } from 'pg';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SEARCH_ATTRIBUTE_ACCOUNT, SEARCH_ATTRIBUTE_PARKED, SEARCH_ATTRIBUTE_REQUEST } from '../../contracts/search-attributes';
import { startTemporalCluster, type ClusterHandle } from '../../temporal/dev/cluster';
import { eventually } from '../helpers/api';

const prefix = `t_cluster_${process.pid}`;

/**
 * The metric names the alerts file's header lists as exported once the cluster ran workflows, as
 * scraped series names (a histogram's `_bucket`).
 */
function metricsAfterWorkflows(): string[] {
  const header = fs.readFileSync(path.resolve(__dirname, '../../monitoring/prometheus/temporal-server-alerts.yml'), 'utf8');
  const from = header.indexOf('once the cluster ran workflows');
  const block = header.slice(header.indexOf('\n', from), header.indexOf('\n# - ', from));
  return [...block.matchAll(/([a-z][a-z0-9_]+)( \(histogram\))?/g)].map((m) => (m[2] ? `${m[1]}_bucket` : m[1]));
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-platform-cluster-test-'));
const queue = `cluster-test-${process.pid}`;
let cluster: ClusterHandle | null = null;

const start = () =>
  startTemporalCluster({
    postgresUrl: process.env.DATABASE_URL!,
    databasePrefix: prefix,
    dir,
    headless: true,
    pgConnections: { persistence: 4, visibility: 2 },
    log: () => undefined,
  });

/** Runs `fn` with a client and a worker (the bench's floor workflows) on `cluster`. */
async function withWorker<T>(c: ClusterHandle, fn: (client: Client) => Promise<T>): Promise<T> {
  const native = await NativeConnection.connect({ address: c.address });
  const connection = await Connection.connect({ address: c.address });
  const worker = await Worker.create({
    connection: native,
    taskQueue: queue,
    workflowsPath: require.resolve('../../bench/workflows/floor'),
    activities: { floorAttempt: async () => 7 },
  });
  try {
    return await worker.runUntil(fn(new Client({ connection })));
  } finally {
    await connection.close();
    await native.close();
  }
}

afterAll(async () => {
  await cluster?.stop();
  const admin = new PgClient({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  for (const db of [prefix, `${prefix}_visibility`]) await admin.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
  await admin.end();
  fs.rmSync(dir, { recursive: true, force: true });
}, 60_000);

test('the cluster serves the search attributes, survives a history host, and starts again on its databases', async () => {
  cluster = await start();
  expect(cluster.services.map((s) => s.name)).toEqual(['frontend', 'history-0', 'history-1', 'matching', 'worker']);
  const account = `acct_${crypto.randomBytes(6).toString('hex')}`;
  const first = `wf_${crypto.randomBytes(6).toString('hex')}`;
  await withWorker(cluster, async (client) => {
    const h = await client.workflow.start('oneLocalActivityWorkflow', {
      taskQueue: queue,
      workflowId: first,
      searchAttributes: {
        [SEARCH_ATTRIBUTE_ACCOUNT]: [account],
        [SEARCH_ATTRIBUTE_REQUEST]: ['req_cluster'],
        [SEARCH_ATTRIBUTE_PARKED]: [false],
      },
    });
    expect(await h.result()).toBe(7);
    // SQL visibility is written after the close: the query finds it once it is there.
    await eventually(
      async () =>
        (
          await client.workflow.count(
            `${SEARCH_ATTRIBUTE_ACCOUNT} = '${account}' AND ${SEARCH_ATTRIBUTE_PARKED} = false AND ${SEARCH_ATTRIBUTE_REQUEST} = 'req_cluster'`,
          )
        ).count === 1,
      'visibility',
      30_000,
    );
  });

  const scraped = new Set<string>();
  for (const s of cluster.services) {
    const text = await (await fetch(`http://127.0.0.1:${s.metricsPort}/metrics`)).text();
    for (const line of text.split('\n')) if (line && !line.startsWith('#')) scraped.add(line.split(/[{ ]/)[0]);
  }
  const expected = metricsAfterWorkflows();
  expect(expected.length).toBeGreaterThanOrEqual(15);
  expect(expected.filter((m) => !scraped.has(m))).toEqual([]);

  // One history host gone: its shards move to the other, and workflows keep completing.
  await cluster.stopService('history-0', 'SIGKILL');
  await withWorker(cluster, async (client) => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        client.workflow.execute('oneLocalActivityWorkflow', {
          taskQueue: queue,
          workflowId: `wf_after_kill_${process.pid}_${i}`,
          workflowExecutionTimeout: '90 seconds',
        }),
      ),
    );
    expect(results).toEqual(Array(8).fill(7));
  });
  await cluster.startService('history-0');
  await cluster.stop();

  // A second start on the same databases: no setup, the schema is current, the history is there.
  cluster = await start();
  await withWorker(cluster, async (client) => {
    const d = await client.workflow.getHandle(first).describe();
    expect(d.status.name).toBe('COMPLETED');
    expect(d.searchAttributes[SEARCH_ATTRIBUTE_ACCOUNT]).toEqual([account]);
  });
}, 240_000);
