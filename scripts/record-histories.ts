/**
 * `npm run histories:record`: records one Temporal history per long-lived workflow type and per
 * significant path into tests/workflows/histories/<workflowType>/<path>.json, with
 * tests/workflows/histories/manifest.json (type, path, the commit and tag recorded from, the date).
 * tests/workflows/logic/replay-stored.test.ts replays them against the current workflows/, so a
 * change that would break a running workflow fails there (docs/workflow-versioning.md).
 *
 * A private stack, started and stopped here: embedded PostgreSQL (migrated), the Java time-skipping
 * test server (so expiry and overdue paths skip hours and days in seconds) and the product from
 * dist/ (API + worker, simulator on) pointed at it. Journeys are driven as a merchant and the outside
 * world would: the /v1 API with a provisioned account's key and session, the /sim routes. Each
 * journey waits until its workflows are closed or resting (waiting on a signal or a timer, nothing
 * in flight), fetches their histories, then terminates the ones still running (a history fetched
 * before the termination replays up to its last event).
 *
 * Run it from a tagged build (docs/workflow-versioning.md): the files describe what that release's
 * workers wrote. `--only <type>[/<path>]` writes a subset (every journey still runs; the manifest
 * keeps the other entries); `--missing` writes only the histories not stored yet; `--journeys
 * <text>[|<text>...]` runs only the journeys whose name contains one of the texts (e.g.
 * `--journeys 'webhook endpoint' --only webhookEndpointWorkflow/`); `--out <dir>` writes
 * elsewhere. A failing journey is logged and the others still run; the run then exits 1 naming
 * it. The journeys: scripts/histories/ (the paths they record: docs/workflow-versioning.md "The
 * paths of each workflow"). Runs from dist/ (the npm script builds first). A few minutes.
 */
import 'reflect-metadata';
import { execFile, execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { defaultPayloadConverter } from '@temporalio/common';
import { startEmbeddedPostgres } from '../lib/embedded-pg';
import { freePort } from '../lib/ports';
import { makeDataSource } from '../lib/db';
import { ensureTestServer, registerSearchAttributes } from '../temporal/dev/bootstrap';
import { historyToProtoJson } from '../temporal/dev/history-json';
import { type Capture, type Ctx, type Journey, type Network } from './histories/kit';
import { FIRST_JOURNEYS, SKIPPING_JOURNEYS } from './histories/journeys';
import { TERMINAL_JOURNEYS, TERMINAL_SKIPPING_JOURNEYS } from './histories/terminal-paths';

const ROOT = path.resolve(__dirname, '../..');
const log = (m: string) => process.stderr.write(`[histories] ${m}\n`);

// ---------------------------------------------------------------------------------------------
// What is recorded
// ---------------------------------------------------------------------------------------------

/**
 * Every journey, in the order run. The ones that skip time come last: while the clock skips, every
 * open workflow's timers fire, so each journey's workflows are closed or terminated before the next.
 */
const JOURNEYS: Journey[] = [...FIRST_JOURNEYS, ...TERMINAL_JOURNEYS, ...SKIPPING_JOURNEYS, ...TERMINAL_SKIPPING_JOURNEYS];

/** One manifest entry (tests/workflows/histories/manifest.json `histories[]`). */
interface ManifestEntry {
  file: string;
  workflow_type: string;
  path: string;
  workflow_id: string;
  events: number;
  /** The commit recorded from (`-dirty` when workflows/ had uncommitted changes), its tag if any, the Temporal SDK version, when. */
  commit: string;
  tag: string | null;
  temporal_sdk: string;
  recorded_at: string;
}

/** The manifest: what each stored history is and which build recorded it. */
interface Manifest {
  description: string;
  histories: ManifestEntry[];
}

// ---------------------------------------------------------------------------------------------
// The stack
// ---------------------------------------------------------------------------------------------

/** PostgreSQL and the time-skipping test server, shared by the product phases. */
interface Infra {
  databaseUrl: string;
  env: TestWorkflowEnvironment;
  encryptionKey: string;
  stop(): Promise<void>;
}

/** The product (API + worker in one process, dist/api/serve.js) on one network. */
interface Product {
  apiUrl: string;
  env: NodeJS.ProcessEnv;
  log: string;
  stop(): Promise<void>;
}

/** Starts embedded PostgreSQL (migrated) and the Java time-skipping test server with the AccountId attribute. */
async function startInfra(tag: string): Promise<Infra> {
  const pgDir = path.join(os.tmpdir(), `payments-platform-${tag}-pg`);
  log('starting embedded PostgreSQL...');
  const pg = await startEmbeddedPostgres({ dir: pgDir, database: 'histories', fast: true, log });
  const ds = makeDataSource(pg.url, 2);
  await ds.initialize();
  await ds.runMigrations({ transaction: 'each' });
  await ds.destroy();
  log('starting the time-skipping test server...');
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const { DefaultLogger, Runtime } = await import('@temporalio/worker');
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    /* installed */
  }
  const server = await ensureTestServer();
  // The server must answer within 5 s of its start (the SDK's limit): on a loaded machine, try again.
  const start = async (attempt: number): Promise<TestWorkflowEnvironment> => {
    try {
      return await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: server } } });
    } catch (e) {
      if (attempt >= 5) throw e;
      log(`the test server did not start (${(e as Error).message.slice(0, 80)}...); again`);
      return start(attempt + 1);
    }
  };
  const env = await start(1);
  await registerSearchAttributes(env.connection);
  return {
    databaseUrl: pg.url,
    env,
    encryptionKey: crypto.randomBytes(32).toString('base64'),
    stop: async () => {
      await env.teardown().catch(() => undefined);
      await pg.stop().catch(() => undefined);
      fs.rmSync(pgDir, { recursive: true, force: true });
      fs.rmSync(`${pgDir}-sock`, { recursive: true, force: true });
    },
  };
}

/** Starts the product on `network` against `infra` (simulator on, loopback webhooks, generous rate limits) and waits until healthy. */
async function startProduct(infra: Infra, network: Network, tag: string): Promise<Product> {
  const port = await freePort();
  // The caller's own Temporal settings (a cloud profile, TLS, an API key, a task queue) must not reach the local test server.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TEMPORAL_')));
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    DATABASE_URL: infra.databaseUrl,
    TEMPORAL_ADDRESS: infra.env.address,
    NETWORK: network,
    PORT: String(port),
    HOST: '127.0.0.1',
    SIMULATOR_ENABLED: 'true',
    APP_ENCRYPTION_KEY: infra.encryptionKey,
    PAYER_HOST: `http://127.0.0.1:${port}`,
    WEBHOOKS_ALLOW_LOOPBACK: 'true',
    RATE_LIMIT_BUSINESS_KEY: '5000',
    RATE_LIMIT_PUBLIC_TOKEN: '5000',
    RATE_LIMIT_DASHBOARD_SESSION: '5000',
    RATE_LIMIT_ANONYMOUS: '5000',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  };
  const productLog = path.join(os.tmpdir(), `payments-platform-${tag}-product-${network}.log`);
  const out = fs.openSync(productLog, 'w');
  log(`starting the product on ${network} (log ${productLog})...`);
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/api/serve.js')], { env, stdio: ['ignore', out, out], detached: true });
  const kill = () => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      /* gone */
    }
  };
  process.once('exit', kill);
  const apiUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the product exited (${child.exitCode}); see ${productLog}`);
    try {
      if ((await fetch(`${apiUrl}/healthz`)).ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error(`the product did not become healthy; see ${productLog}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    apiUrl,
    env,
    log: productLog,
    stop: async () => {
      process.removeListener('exit', kill);
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      kill();
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Driving and capturing
// ---------------------------------------------------------------------------------------------

const execFileAsync = promisify(execFile);

/** The journeys' Ctx on `product`; `close()` stops the webhook receivers it opened. */
function makeCtx(infra: Infra, product: Product): { ctx: Ctx; close(): void } {
  let creds: { account_id: string; live_key: string; session_token: string } | null = null;
  const servers: http.Server[] = [];
  const raw: Ctx['raw'] = async (as, method, p, body) => {
    const headers: Record<string, string> = {};
    if (as === 'key') headers['x-api-key'] = creds!.live_key;
    if (as === 'dash') headers.authorization = `Bearer ${creds!.session_token}`;
    if (as !== 'anon' && method !== 'GET') headers['Idempotency-Key'] = `rec_${crypto.randomBytes(12).toString('hex')}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const r = await fetch(`${product.apiUrl}${p}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await r.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    return { status: r.status, body: parsed };
  };
  const until: Ctx['until'] = async (what, fn, ms = 60_000) => {
    const end = Date.now() + ms;
    let last: unknown = null;
    for (;;) {
      try {
        const v = await fn();
        if (v) return v;
      } catch (e) {
        last = e;
      }
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const ctx: Ctx = {
    env: infra.env,
    raw,
    async api(as, method, p, body) {
      const r = await raw(as, method, p, body);
      if (r.status < 200 || r.status > 299) throw new Error(`${method} ${p} answered ${r.status} ${JSON.stringify(r.body)}`);
      return r.body;
    },
    until,
    async untilField(as, p, want, field = 'status') {
      let last: unknown;
      return until(`${p} ${field} ${want}`, async () => {
        const r = await raw(as, 'GET', p);
        last = r.body?.[field];
        return r.status === 200 && last === want ? r.body : null;
      }).catch((e: Error) => {
        throw new Error(`${e.message} (last ${JSON.stringify(last)})`);
      });
    },
    async skip(ms) {
      // The test server skips only while nothing is in flight; when it cannot, the sleep would last `ms` of real time.
      let timer: NodeJS.Timeout | undefined;
      const stuck = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the test server did not skip ${ms} ms within 60 s of real time (work in flight?)`)),
          60_000,
        );
      });
      try {
        await Promise.race([infra.env.sleep(ms), stuck]);
      } finally {
        clearTimeout(timer);
      }
    },
    rest: (id) => settled(infra.env, id),
    async runOf(id) {
      await settled(infra.env, id);
      return (await infra.env.client.workflow.getHandle(id).describe()).runId;
    },
    async newAccount() {
      // `npm run seed` with the product's settings (its network decides the service wallet).
      const { stdout } = await execFileAsync(process.execPath, [path.join(ROOT, 'dist/scripts/seed.js')], { env: product.env });
      creds = JSON.parse(stdout);
    },
    accountId: () => creds!.account_id,
    async flag(name) {
      const { setSwitch } = await import('../lib/switches');
      await setSwitch(name, true, creds!.account_id);
      await new Promise((r) => setTimeout(r, 2200)); // flags are cached for 2 s
    },
    async sql(text, params = []) {
      const { db } = await import('../lib/db');
      return db().query(text, params);
    },
    async closed(id, runId) {
      // Read from the history, never by result(): the test server skips time while a result() call waits.
      const h = infra.env.client.workflow.getHandle(id, runId);
      await until(`workflow ${id} closed`, async () => (await h.describe()).status.name !== 'RUNNING');
      const last = (await h.fetchHistory()).events?.at(-1);
      const done = last?.workflowExecutionCompletedEventAttributes;
      if (!done) throw new Error(`workflow ${id} did not complete (last event ${JSON.stringify(Object.keys(last ?? {}))})`);
      const payload = done.result?.payloads?.[0];
      return payload ? defaultPayloadConverter.fromPayload(payload) : undefined;
    },
    async receiver(statuses) {
      const plan = [...statuses];
      const srv = http.createServer((req, res) => {
        req.resume();
        req.on('end', () => res.writeHead(plan.shift() ?? 200).end());
      });
      servers.push(srv);
      await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
      return `http://127.0.0.1:${(srv.address() as { port: number }).port}/hooks`;
    },
  };
  return {
    ctx,
    close: () => {
      for (const s of servers) s.close();
    },
  };
}

/**
 * Waits until workflow `id` is started and then closed, or resting: no activity, child or workflow
 * task in flight and its history unchanged over a second (it waits on a signal or a timer).
 */
async function settled(env: TestWorkflowEnvironment, id: string, runId?: string): Promise<void> {
  const h = env.client.workflow.getHandle(id, runId);
  let lastLen = -1;
  let stableSince = 0;
  const end = Date.now() + 60_000;
  for (;;) {
    // The product starts some workflows just after the API answers (a workflow intent): not found yet is not an answer.
    const d = await h.describe().catch((e: Error) => {
      if (Date.now() > end || !/not found/i.test(e.message)) throw e;
      return null;
    });
    if (!d) {
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    if (d.status.name !== 'RUNNING') return;
    const busy =
      (d.raw.pendingActivities?.length ?? 0) > 0 || (d.raw.pendingChildren?.length ?? 0) > 0 || d.raw.pendingWorkflowTask != null;
    const len = d.historyLength;
    if (busy || len !== lastLen) {
      lastLen = len;
      stableSince = Date.now();
    } else if (Date.now() - stableSince >= 1000) return;
    if (Date.now() > end) throw new Error(`workflow ${id} did not come to rest`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Terminates every workflow of account `accountId` still running (the journey's others: its links,
 * invoices' pay-ins, ...). The test server cannot list workflows, so the candidates are the objects
 * the account's events name (workflow id = object id) and its webhook endpoints, plus `ids`.
 */
async function terminateAll(env: TestWorkflowEnvironment, accountId: string, ids: string[]): Promise<number> {
  const { db } = await import('../lib/db');
  const rows: Array<{ id: string }> = await db().query(
    `SELECT object_id AS id FROM events WHERE account_id = $1
     UNION SELECT unnest(related_object_ids) FROM events WHERE account_id = $1
     UNION SELECT id FROM webhook_endpoints WHERE account_id = $1`,
    [accountId],
  );
  let n = 0;
  for (const id of new Set([...ids, ...rows.map((r) => r.id)])) {
    const h = env.client.workflow.getHandle(id);
    let running = false;
    try {
      running = (await h.describe()).status.name === 'RUNNING';
    } catch {
      /* no workflow of that id */
    }
    if (running) {
      // Never with work in flight: the test server would keep counting it and stop skipping time.
      await settled(env, id);
      if ((await h.describe()).status.name !== 'RUNNING') continue;
      await h.terminate('recorded (scripts/record-histories.ts)');
      n += 1;
    }
  }
  return n;
}

function gitOf(): { commit: string; tag: string | null } {
  const git = (...a: string[]) => execFileSync('git', a, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  let commit = 'unknown';
  let tag: string | null = null;
  try {
    commit = git('rev-parse', 'HEAD');
  } catch {
    /* not a checkout */
  }
  try {
    tag = git('describe', '--tags', '--exact-match', 'HEAD') || null;
  } catch {
    /* untagged */
  }
  try {
    if (git('status', '--porcelain', '--untracked-files=no', '--', 'workflows')) commit += '-dirty';
  } catch {
    /* not a checkout */
  }
  return { commit, tag };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const outDir = path.resolve(args.includes('--out') ? args[args.indexOf('--out') + 1] : path.join(ROOT, 'tests/workflows/histories'));
  const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : null;
  // `--journeys a|b`: the journeys whose name contains any of the texts.
  const journeyFilter = args.includes('--journeys') ? args[args.indexOf('--journeys') + 1].split('|') : null;
  // `--missing`: writes only the histories not stored yet (records new paths without touching the stored ones).
  const missingOnly = args.includes('--missing');
  const { commit, tag } = gitOf();
  const sdk = (JSON.parse(fs.readFileSync(require.resolve('@temporalio/workflow/package.json'), 'utf8')) as { version: string }).version;
  const recordedAt = new Date().toISOString();
  const stackTag = `histories-${process.pid}`;
  const infra = await startInfra(stackTag);
  // This process reads the database (switches, the objects a journey left running): the stack's settings.
  process.env.DATABASE_URL = infra.databaseUrl;
  process.env.APP_ENCRYPTION_KEY = infra.encryptionKey;
  process.env.SIMULATOR_ENABLED = 'true';
  const { closeDb, initDb } = await import('../lib/db');
  await initDb(infra.databaseUrl, 2);
  const written: ManifestEntry[] = [];
  const failed: string[] = [];
  try {
    // Mainnet first: the testnet product's start-up recovery then finds only finished mainnet objects.
    for (const network of ['mainnet', 'testnet'] as const) {
      const journeys = JOURNEYS.filter(
        (j) => (j.network ?? 'testnet') === network && (!journeyFilter || journeyFilter.some((t) => j.name.includes(t))),
      );
      if (journeys.length === 0) continue;
      const product = await startProduct(infra, network, stackTag);
      const { ctx, close } = makeCtx(infra, product);
      try {
        for (const j of journeys) {
          log(`journey: ${j.name}`);
          const t0 = Date.now();
          let captures: Capture[] = [];
          try {
            captures = await j.run(ctx);
          } catch (e) {
            // The other journeys still record; the run fails at the end naming this one.
            failed.push(`${j.name}: ${e instanceof Error ? e.message : String(e)}`);
            log(`  FAILED: ${failed.at(-1)}`);
          }
          for (const cap of captures) {
            if (only && !`${cap.type}/${cap.path}`.startsWith(only)) continue;
            if (missingOnly && fs.existsSync(path.join(outDir, `${cap.type}/${cap.path}.json`))) continue;
            written.push(await store(infra.env, cap, outDir, { commit, tag, temporal_sdk: sdk, recorded_at: recordedAt }));
          }
          // Nothing of this journey may act while a later one skips the clock.
          const ended = await terminateAll(
            infra.env,
            ctx.accountId(),
            captures.map((cap) => cap.workflowId),
          );
          log(`  done in ${((Date.now() - t0) / 1000).toFixed(1)} s${ended ? `; terminated ${ended} workflow(s) still running` : ''}`);
        }
      } catch (e) {
        log(`failed; product log: ${product.log}`);
        throw e;
      } finally {
        close();
        await product.stop();
      }
      fs.rmSync(product.log, { force: true });
    }
  } finally {
    // Before the teardown: a client call still retrying against the stopped server must not lose what was written.
    writeManifest(outDir, written);
    await closeDb();
    await infra.stop();
  }
  log(`${written.length} histories written to ${outDir}`);
  if (failed.length) throw new Error(`${failed.length} journey(s) failed:\n${failed.join('\n')}`);
}

/** Waits for `cap`'s workflow to close or rest, fetches its history and writes `<type>/<path>.json` (one event per line). */
async function store(
  env: TestWorkflowEnvironment,
  cap: Capture,
  outDir: string,
  from: Pick<ManifestEntry, 'commit' | 'tag' | 'temporal_sdk' | 'recorded_at'>,
): Promise<ManifestEntry> {
  await settled(env, cap.workflowId, cap.runId);
  const history = await env.client.workflow.getHandle(cap.workflowId, cap.runId).fetchHistory();
  const json = historyToProtoJson(history) as { events: unknown[] };
  const file = `${cap.type}/${cap.path}.json`;
  fs.mkdirSync(path.join(outDir, cap.type), { recursive: true });
  fs.writeFileSync(path.join(outDir, file), `{"events": [\n${json.events.map((e) => JSON.stringify(e)).join(',\n')}\n]}\n`);
  log(`  ${file}: ${json.events.length} events`);
  return { file, workflow_type: cap.type, path: cap.path, workflow_id: cap.workflowId, events: json.events.length, ...from };
}

/** Writes manifest.json: the entries just `written`, and the earlier ones of files not recorded this time. */
function writeManifest(outDir: string, written: ManifestEntry[]): void {
  const file = path.join(outDir, 'manifest.json');
  const old: Manifest | null = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : null;
  const kept = (old?.histories ?? []).filter((e) => !written.some((w) => w.file === e.file));
  const manifest: Manifest = {
    description:
      'Workflow histories replayed by tests/workflows/logic/replay-stored.test.ts; recorded by `npm run histories:record` (scripts/record-histories.ts). See docs/workflow-versioning.md.',
    histories: [...kept, ...written].sort((a, b) => a.file.localeCompare(b.file)),
  };
  fs.writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
}

if (require.main === module) {
  // Interrupted: exit normally, so the product's process group is killed (its 'exit' hook).
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => process.exit(130));
  main().then(
    () => process.exit(0),
    (e) => {
      process.stderr.write(`record-histories failed: ${e instanceof Error ? e.stack : String(e)}\n`);
      process.exit(1);
    },
  );
}
