/**
 * Starts a throwaway copy of the whole product for tests and benchmarks: PostgreSQL (a fresh
 * database on DATABASE_URL's server, else a private embedded cluster), a Temporal dev server in
 * memory on random ports, migrations, and the product (worker + API, simulator on) as a child
 * process from dist/. Requires a compiled dist/.
 * It also mints a self-signed certificate for local https webhook receivers (scripts/local-tls.ts):
 * the product trusts it (WEBHOOKS_EXTRA_CA_FILE) and the test or bench process serves with it
 * (`stack.tls`, and WEBHOOKS_TEST_TLS_KEY_FILE in `stack.env`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedPg } from '../lib/embedded-pg';
import { freePort } from '../lib/ports';
import { makeDataSource } from '../lib/db';
import { startDevServer, type DevServerHandle } from '../temporal/dev/bootstrap';
import { startTemporalCluster, type ClusterHandle } from '../temporal/dev/cluster';
import { generateLocalTls, type LocalTls } from './local-tls';

export interface Stack {
  apiUrl: string;
  /** Every API instance's URL (one unless `apis` > 1; the first is `apiUrl`). */
  apiUrls: string[];
  /** Split stacks only: SIGKILLs worker `i` (default 0) and waits for it to exit. */
  killWorker(i?: number): Promise<void>;
  /** Split stacks only: starts worker `i` (default 0) again after a kill. */
  startWorker(i?: number): void;
  /** Split stacks only: each worker's metrics listener (`GET /metrics`, METRICS_PORT; decision 0085). */
  workerMetricsUrls: string[];
  /** Split stacks only: sends `signal` to API instance `i`'s process group; resolves with how it ended (see `ProcessEnd`). */
  signalApi(i: number, signal: 'SIGKILL' | 'SIGTERM', deadlineMs?: number): Promise<ProcessEnd>;
  /** Split stacks only: starts API instance `i` again on its port; resolves once `/healthz` answers. */
  startApi(i: number): Promise<void>;
  /** Split stacks only: like `signalApi` for worker `i`. */
  signalWorker(i: number, signal: 'SIGKILL' | 'SIGTERM', deadlineMs?: number): Promise<ProcessEnd>;
  /** Split stacks: starts again every product process that has ended; resolves with what it found (`API 0 (exit 1)`, `worker 1 (SIGKILL)`). */
  revive(): Promise<string[]>;
  /** Embedded PostgreSQL only (no DATABASE_URL): its `restart` and `freeze` (lib/embedded-pg.ts). */
  postgres: Pick<EmbeddedPg, 'restart' | 'freeze'> | null;
  /**
   * Stops the Temporal dev server (SIGTERM to its group), leaves it down `downMs` (default 0), and
   * starts it again on the same port with the same SQLite file.
   */
  restartTemporal(downMs?: number): Promise<void>;
  databaseUrl: string;
  temporalAddress: string;
  /** Which Temporal the stack runs on: the CLI's dev server, or the cluster (temporal/dev/cluster.ts). */
  temporalKind: TemporalKind;
  /** The cluster's handle (its service processes, for the cluster's own faults); null on the dev server. */
  temporalCluster: ClusterHandle | null;
  env: NodeJS.ProcessEnv;
  productLog: string;
  /** Certificate and key for local https webhook receivers; the product trusts the certificate. */
  tls: LocalTls;
  stop(): Promise<void>;
}

/**
 * How a signalled process ended: `exit` code or `signal`, after `ms`; `forced` when it outlived the
 * deadline and was SIGKILLed (a SIGTERM drain that took too long).
 */
export interface ProcessEnd {
  code: number | null;
  signal: string | null;
  ms: number;
  forced: boolean;
}

/** The Temporal a stack runs on: `dev` (the CLI's dev server, SQLite) or `cluster`. */
export type TemporalKind = 'dev' | 'cluster';

/**
 * The Temporal kind named by `--temporal=dev|cluster` in `argv`, else STACK_TEMPORAL, else `dev`.
 * Throws on any other value.
 */
export function temporalKindFrom(argv: string[] = process.argv, env: NodeJS.ProcessEnv = process.env): TemporalKind {
  const flag = argv.find((a) => a.startsWith('--temporal='))?.slice('--temporal='.length);
  const kind = flag ?? env.STACK_TEMPORAL ?? 'dev';
  if (kind !== 'dev' && kind !== 'cluster') throw new Error(`--temporal must be dev or cluster, not ${kind}`);
  return kind;
}

/**
 * Brings the stack up; `envOverrides` go to the product (e.g. rate limits). `split` runs the API
 * and the worker as two processes, as production does (benchmarks); default one process (serve.ts).
 */
export async function startStack(opts: {
  log: (m: string) => void;
  envOverrides?: NodeJS.ProcessEnv;
  tag?: string;
  split?: boolean;
  /** With `split`: API processes (each on its own port) and worker processes; default 1 and 1. */
  apis?: number;
  workers?: number;
  /**
   * Embedded PostgreSQL with fsync and synchronous commit on (default off, for speed): a fault
   * harness that crashes the server (immediate shutdown) must not lose commits the product was told of.
   */
  durable?: boolean;
  /** The Temporal to run on (default: `temporalKindFrom()`, i.e. STACK_TEMPORAL or `dev`). */
  temporal?: TemporalKind;
}): Promise<Stack> {
  const { log } = opts;
  const tag = opts.tag ?? 'stack';
  const dbName = `pp_${tag}_${Date.now()}_${process.pid}`;
  let databaseUrl: string;
  let stopPg: (() => Promise<void>) | null = null;
  let pgHandle: EmbeddedPg | null = null;
  if (process.env.DATABASE_URL) {
    const admin = makeDataSource(process.env.DATABASE_URL, 1);
    await admin.initialize();
    await admin.query(`CREATE DATABASE "${dbName}"`);
    await admin.destroy();
    const u = new URL(process.env.DATABASE_URL);
    u.pathname = `/${dbName}`;
    databaseUrl = u.toString();
  } else {
    log('starting embedded PostgreSQL...');
    const pgDir = path.join(os.tmpdir(), `payments-platform-${tag}-pg-${process.pid}`);
    const pg = await startEmbeddedPostgres({ dir: pgDir, database: dbName, fast: !opts.durable, log });
    databaseUrl = pg.url;
    pgHandle = pg;
    stopPg = async () => {
      await pg.stop();
      fs.rmSync(pgDir, { recursive: true, force: true });
      fs.rmSync(`${pgDir}-sock`, { recursive: true, force: true });
    };
  }
  const ds = makeDataSource(databaseUrl, 2);
  await ds.initialize();
  await ds.runMigrations({ transaction: 'each' });
  await ds.destroy();

  const temporalKind = opts.temporal ?? temporalKindFrom();
  // A file-backed SQLite database (WAL) serves workflows faster than the in-memory default; on
  // tmpfs when there is one, deleted with the stack. The cluster keeps its config and logs there.
  const temporalDir = fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), `payments-platform-${tag}-temporal-`));
  const temporalFile = path.join(temporalDir, 'temporal.sqlite');
  let temporal: DevServerHandle | ClusterHandle;
  let cluster: ClusterHandle | null = null;
  if (temporalKind === 'cluster') {
    log('starting a Temporal cluster (PostgreSQL persistence and visibility, separate service processes)...');
    // Its databases live on the stack's PostgreSQL server: beside this stack's own database.
    cluster = await startTemporalCluster({
      postgresUrl: databaseUrl,
      databasePrefix: `${dbName}_temporal`,
      dir: temporalDir,
      headless: true,
      pgConnections: { persistence: 5, visibility: 2 },
      log,
    });
    temporal = cluster;
  } else {
    log('starting Temporal dev server...');
    temporal = await startDevServer({ headless: true, log, dbFile: temporalFile, dbDurability: 'throwaway' });
  }
  const temporalPort = Number(temporal.address.split(':').pop());

  const tlsDir = path.join(os.tmpdir(), `payments-platform-${tag}-tls-${process.pid}`);
  const tls = await generateLocalTls(tlsDir);

  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporal.address,
    PORT: String(port),
    HOST: '127.0.0.1',
    SIMULATOR_ENABLED: 'true',
    APP_ENCRYPTION_KEY: crypto.randomBytes(32).toString('base64'),
    PAYER_HOST: `http://127.0.0.1:${port}`,
    WEBHOOKS_ALLOW_LOOPBACK: 'true',
    WEBHOOKS_EXTRA_CA_FILE: tls.certFile,
    WEBHOOKS_TEST_TLS_KEY_FILE: tls.keyFile,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    // The scrape token for `GET /metrics` on the API port (decision 0085); workers get a METRICS_PORT each below.
    METRICS_TOKEN: crypto.randomBytes(24).toString('hex'),
    ...(opts.envOverrides ?? {}),
  };
  const productLog = path.join(os.tmpdir(), `payments-platform-${tag}-product-${process.pid}.log`);
  const out = fs.openSync(productLog, 'w');
  // PRODUCT_NODE_ARGS: extra node flags for the product process (e.g. --cpu-prof when profiling).
  const nodeArgs = (env.PRODUCT_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const spawnOne = (entry: string, extra: NodeJS.ProcessEnv = {}) =>
    spawn(process.execPath, [...nodeArgs, entry], { env: { ...env, ...extra }, stdio: ['ignore', out, out], detached: true });
  const apiPorts = [port];
  for (let i = 1; i < (opts.split ? (opts.apis ?? 1) : 1); i++) apiPorts.push(await freePort());
  const apiEntry = path.resolve(__dirname, '../api/main.js');
  const spawnApi = (i: number) => spawnOne(apiEntry, { PORT: String(apiPorts[i]), PAYER_HOST: `http://127.0.0.1:${apiPorts[i]}` });
  const apiProcesses = opts.split ? apiPorts.map((_, i) => spawnApi(i)) : [spawnOne(path.resolve(__dirname, '../api/serve.js'))];
  const workerEntry = path.resolve(__dirname, '../worker.js');
  const workerMetricsPorts: number[] = [];
  for (let i = 0; i < (opts.split ? (opts.workers ?? 1) : 0); i++) workerMetricsPorts.push(await freePort());
  const spawnWorker = (i: number) => spawnOne(workerEntry, { METRICS_PORT: String(workerMetricsPorts[i]) });
  const workerProcesses = workerMetricsPorts.map((_, i) => spawnWorker(i));
  const processes = () => [...apiProcesses, ...workerProcesses];
  // The product runs in its own process groups; never leave it behind if this process dies.
  const killProduct = () => {
    for (const p of processes())
      try {
        process.kill(-p.pid!, 'SIGTERM');
      } catch {
        /* gone */
      }
  };
  const signalOne = async (p: ChildProcess | undefined, signal: 'SIGKILL' | 'SIGTERM', deadlineMs = 30_000): Promise<ProcessEnd> => {
    const t0 = Date.now();
    if (!p || p.exitCode !== null || p.signalCode !== null)
      return { code: p?.exitCode ?? null, signal: p?.signalCode ?? null, ms: 0, forced: false };
    const exited = new Promise<void>((r) => p.once('exit', () => r()));
    // SIGTERM goes to the process only (the drain is its own); SIGKILL to its whole group.
    try {
      if (signal === 'SIGKILL') process.kill(-p.pid!, signal);
      else p.kill(signal);
    } catch {
      /* gone */
    }
    let forced = false;
    const timer = setTimeout(() => {
      forced = true;
      try {
        process.kill(-p.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, deadlineMs);
    await exited;
    clearTimeout(timer);
    return { code: p.exitCode, signal: p.signalCode, ms: Date.now() - t0, forced };
  };
  process.once('exit', killProduct);
  const apiUrls = apiPorts.map((p) => `http://127.0.0.1:${p}`);
  const apiUrl = apiUrls[0];
  const healthy = async (urls: string[], watched: () => ChildProcess[]) => {
    const deadline = Date.now() + 90000;
    for (const url of urls) {
      for (;;) {
        if (watched().some((p) => p.exitCode !== null))
          throw new Error(
            `product exited early (codes ${watched()
              .map((p) => p.exitCode)
              .join(',')}); see ${productLog}:\n${fs.readFileSync(productLog, 'utf8').slice(-4000)}`,
          );
        try {
          if ((await fetch(`${url}/healthz`)).ok) break;
        } catch {
          /* not up yet */
        }
        if (Date.now() > deadline) throw new Error(`product did not become healthy; see ${productLog}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  };
  await healthy(apiUrls, processes);
  return {
    apiUrl,
    apiUrls,
    databaseUrl,
    temporalAddress: temporal.address,
    temporalKind,
    temporalCluster: cluster,
    env,
    productLog,
    tls,
    killWorker: async (i = 0) => {
      const w = workerProcesses[i];
      if (!w || w.exitCode !== null || w.signalCode !== null) return;
      const exited = new Promise((r) => w.once('exit', r));
      try {
        process.kill(-w.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
      await exited;
    },
    startWorker: (i = 0) => {
      workerProcesses[i] = spawnWorker(i);
    },
    workerMetricsUrls: workerMetricsPorts.map((p) => `http://127.0.0.1:${p}/metrics`),
    revive: async () => {
      const ended = (p: ChildProcess) => p.exitCode !== null || p.signalCode !== null;
      const out: string[] = [];
      for (const [i, p] of workerProcesses.entries())
        if (ended(p)) {
          out.push(`worker ${i} (${p.signalCode ?? `exit ${p.exitCode}`})`);
          workerProcesses[i] = spawnWorker(i);
        }
      for (const [i, p] of apiProcesses.entries())
        if (ended(p)) {
          out.push(`API ${i} (${p.signalCode ?? `exit ${p.exitCode}`})`);
          await (async () => {
            apiProcesses[i] = spawnApi(i);
            await healthy([apiUrls[i]], () => [apiProcesses[i]]);
          })();
        }
      return out;
    },
    signalApi: (i, signal, deadlineMs) => signalOne(apiProcesses[i], signal, deadlineMs),
    startApi: async (i) => {
      apiProcesses[i] = spawnApi(i);
      await healthy([apiUrls[i]], () => [apiProcesses[i]]);
    },
    signalWorker: (i, signal, deadlineMs) => signalOne(workerProcesses[i], signal, deadlineMs),
    postgres: pgHandle,
    restartTemporal: async (downMs = 0) => {
      if (cluster) return cluster.restart(downMs);
      await temporal.stop();
      if (downMs > 0) await new Promise((r) => setTimeout(r, downMs));
      temporal = await startDevServer({ headless: true, log, dbFile: temporalFile, dbDurability: 'throwaway', port: temporalPort });
    },
    stop: async () => {
      process.removeListener('exit', killProduct);
      killProduct();
      await new Promise((r) => setTimeout(r, 300));
      // A process still draining after the grace period is ended (never left running past the stack).
      for (let waited = 300; waited < 5000 && processes().some((p) => p.exitCode === null && p.signalCode === null); waited += 100)
        await new Promise((r) => setTimeout(r, 100));
      for (const p of processes())
        if (p.exitCode === null && p.signalCode === null)
          try {
            process.kill(-p.pid!, 'SIGKILL');
          } catch {
            /* gone */
          }
      await temporal.stop();
      fs.rmSync(temporalDir, { recursive: true, force: true });
      if (stopPg) await stopPg();
      fs.rmSync(tlsDir, { recursive: true, force: true });
    },
  };
}
