/**
 * `npm run bench:temporal [-- --temporal=cluster]`: how many workflows per second Temporal (the dev
 * server, or with `--temporal=cluster` the cluster of temporal/dev/cluster.ts on a private embedded
 * PostgreSQL) can run on this machine with nothing else to do, the ceiling of "one workflow per webhook delivery"
 * (ARCHITECTURE.md data flow 6; issue 3 target: 300 deliveries/s).
 *
 * Starts a dev server exactly as the product's stacks do (scripts/stack.ts: WAL SQLite on tmpfs, one
 * task-queue partition, eager start, headless), a worker in this process with the product's worker
 * settings (worker.ts), and the bench workflows (bench/workflows/floor.ts). For each workflow type
 * it starts BENCH_WORKFLOWS (2000) workflows, BENCH_CONCURRENCY (64) starts in flight, with eager
 * start through the worker's connection (as the dispatcher does), and waits until none is running.
 * Prints which Temporal it ran on, workflows per second (first start to last completion) and CPU
 * milliseconds per workflow of the server (every process this one started: the dev server, or the
 * cluster's service processes and their PostgreSQL) and of this process (worker + client).
 * Env: BENCH_WORKFLOWS, BENCH_CONCURRENCY, BENCH_TEMPORAL_EXTRA_ARGS (extra `temporal server start-dev`
 * arguments, space-separated, to try server settings).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { startEmbeddedPostgres } from '../lib/embedded-pg';
import { temporalKindFrom } from '../scripts/stack';
import { startDevServer } from '../temporal/dev/bootstrap';
import { startTemporalCluster } from '../temporal/dev/cluster';

const WORKFLOWS = Number(process.env.BENCH_WORKFLOWS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const TASK_QUEUE = 'bench-floor';
const log = (m: string) => process.stderr.write(`[bench:temporal] ${m}\n`);

/** CPU time (user + system) of a process so far, ms (0 when it is gone). */
function cpuMs(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return 0;
  }
}

/** CPU ms so far of every live descendant of this process (the servers it started, their children). */
function serverCpuMs(): number {
  const parent = new Map<number, number>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      parent.set(Number(d), Number(fs.readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1].split(' ')[1]));
    } catch {
      /* gone */
    }
  }
  const descends = (pid: number): boolean => {
    for (let p = parent.get(pid), hops = 0; p !== undefined && hops < 10; p = parent.get(p), hops++) if (p === process.pid) return true;
    return false;
  };
  let total = 0;
  for (const pid of parent.keys()) if (pid !== process.pid && descends(pid)) total += cpuMs(pid);
  return total;
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'payments-platform-floor-'));
  const kind = temporalKindFrom();
  const pgDir = path.join(os.tmpdir(), `payments-platform-floor-pg-${process.pid}`);
  const pg = kind === 'cluster' ? await startEmbeddedPostgres({ dir: pgDir, database: 'floor', fast: true, log }) : null;
  const server = pg
    ? await startTemporalCluster({ postgresUrl: pg.url, dir, headless: true, log })
    : await startDevServer({
        headless: true,
        log,
        dbFile: path.join(dir, 'temporal.sqlite'),
        dbDurability: 'throwaway',
        extraArgs: (process.env.BENCH_TEMPORAL_EXTRA_ARGS ?? '').split(' ').filter(Boolean),
      });
  const on = pg
    ? `Temporal cluster ${(server as { serverVersion: string }).serverVersion} (frontend, 2 history hosts, matching, worker; PostgreSQL persistence and SQL visibility)`
    : 'Temporal dev server (CLI, SQLite WAL on tmpfs)';
  const connection = await NativeConnection.connect({ address: server.address });
  const client = new Client({ connection, namespace: server.namespace });
  const worker = await Worker.create({
    connection,
    namespace: server.namespace,
    taskQueue: TASK_QUEUE,
    workflowsPath: require.resolve('./workflows/floor'),
    activities: { floorAttempt: async () => 1 },
    maxConcurrentActivityTaskExecutions: 100,
    maxConcurrentWorkflowTaskExecutions: 100,
    maxConcurrentLocalActivityExecutions: 200,
  });
  const lines: string[] = [];
  try {
    await worker.runUntil(async () => {
      for (const workflowType of ['emptyWorkflow', 'oneLocalActivityWorkflow']) {
        const run = crypto.randomBytes(4).toString('hex');
        const cpu0 = { server: serverCpuMs(), self: cpuMs(process.pid) };
        const t0 = Date.now();
        let next = 0;
        await Promise.all(
          Array.from({ length: CONCURRENCY }, async () => {
            while (next < WORKFLOWS) {
              const i = next++;
              await client.workflow.start(workflowType, {
                taskQueue: TASK_QUEUE,
                workflowId: `floor_${run}_${i}`,
                requestEagerStart: true,
              });
            }
          }),
        );
        const started = Date.now();
        for (;;) {
          const { count } = await client.workflow.count(`WorkflowType="${workflowType}" AND ExecutionStatus="Running"`);
          if (count === 0) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        const seconds = (Date.now() - t0) / 1000;
        const cpu = { server: serverCpuMs() - cpu0.server, self: cpuMs(process.pid) - cpu0.self };
        lines.push(
          `${workflowType.padEnd(26)} ${(WORKFLOWS / seconds).toFixed(0).padStart(6)}/s  (starts done in ${((started - t0) / 1000).toFixed(1)} s, all closed in ${seconds.toFixed(1)} s)  CPU per workflow: server ${(cpu.server / WORKFLOWS).toFixed(2)} ms, worker+client ${(cpu.self / WORKFLOWS).toFixed(2)} ms`,
        );
        log(lines[lines.length - 1]);
      }
    });
  } finally {
    await connection.close();
    await server.stop();
    if (pg) {
      await pg.stop();
      for (const d of [pgDir, `${pgDir}-sock`]) fs.rmSync(d, { recursive: true, force: true });
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(
    `\nTemporal: ${on}\n${WORKFLOWS} workflows per type, ${CONCURRENCY} starts in flight, eager start, ${os.cpus().length} cores\n${lines.join('\n')}\n`,
  );
}

main()
  .then(() => process.exit(0))
  .catch((e) => {
    process.stderr.write(`[bench:temporal] failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
