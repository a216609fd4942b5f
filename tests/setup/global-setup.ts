/**
 * Jest global setup: real parts only. Compiles the project, starts (or reuses DATABASE_URL)
 * PostgreSQL on a fresh database with migrations applied, a Temporal dev server (in memory, random
 * ports), and the product (worker + API, simulator on) as a child process. Exposes them to tests
 * through environment variables: TEST_API_URL, DATABASE_URL, TEMPORAL_ADDRESS, APP_ENCRYPTION_KEY.
 */
import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, startEmbeddedPostgres } from '../../lib/embedded-pg';
import { makeDataSource } from '../../lib/db';
import { startDevServer } from '../../temporal/bootstrap';

const root = path.resolve(__dirname, '../..');
const log = (m: string) => process.stderr.write(`[test-setup] ${m}\n`);

export default async function globalSetup(): Promise<void> {
  const t0 = Date.now();
  log('compiling (tsc)...');
  execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.json')], { stdio: 'inherit' });

  const dbName = `pp_test_${Date.now()}_${process.pid}`;
  let databaseUrl: string;
  let stopPg: (() => Promise<void>) | null = null;
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
    const pgDir = path.join(os.tmpdir(), `payments-platform-test-pg-${process.pid}`);
    const pg = await startEmbeddedPostgres({ dir: pgDir, database: dbName, fast: true, log });
    databaseUrl = pg.url;
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

  log('starting Temporal dev server...');
  const temporal = await startDevServer({ headless: true, log });

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
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    RATE_LIMIT_BUSINESS_KEY: process.env.RATE_LIMIT_BUSINESS_KEY ?? '5000',
    RATE_LIMIT_PUBLIC_TOKEN: process.env.RATE_LIMIT_PUBLIC_TOKEN ?? '5000',
    RATE_LIMIT_DASHBOARD_SESSION: process.env.RATE_LIMIT_DASHBOARD_SESSION ?? '5000',
    RATE_LIMIT_ANONYMOUS: process.env.RATE_LIMIT_ANONYMOUS ?? '5000',
  };
  const logFile = path.join(os.tmpdir(), `payments-platform-test-product-${process.pid}.log`);
  const out = fs.openSync(logFile, 'w');
  const product = spawn(process.execPath, [path.join(root, 'dist/scripts/serve.js')], { env, stdio: ['ignore', out, out], detached: true });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90000;
  for (;;) {
    if (product.exitCode !== null) throw new Error(`product exited early (code ${product.exitCode}); see ${logFile}:\n${fs.readFileSync(logFile, 'utf8').slice(-4000)}`);
    try {
      const r = await fetch(`${url}/healthz`);
      if (r.ok) break;
    } catch { /* not up yet */ }
    if (Date.now() > deadline) throw new Error(`product did not become healthy; see ${logFile}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  for (const k of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'APP_ENCRYPTION_KEY', 'PAYER_HOST', 'WEBHOOKS_ALLOW_LOOPBACK']) process.env[k] = env[k];
  process.env.TEST_API_URL = url;
  process.env.TEST_PRODUCT_LOG = logFile;
  process.env.SIMULATOR_ENABLED = 'true';
  (globalThis as Record<string, unknown>).__PP_TEARDOWN__ = async () => {
    try { process.kill(-product.pid!, 'SIGTERM'); } catch { /* gone */ }
    await temporal.stop();
    if (stopPg) await stopPg();
  };
  log(`ready in ${((Date.now() - t0) / 1000).toFixed(1)} s: api ${url}, temporal ${temporal.address}, product log ${logFile}`);
}
