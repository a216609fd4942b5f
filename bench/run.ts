/**
 * `npm run bench`: load and latency figures for the platform-core issue, on this machine, in one run.
 * Starts a throwaway stack (scripts/stack.ts; API and worker as separate processes, as in
 * production) and a bare Koa + pg baseline (bench/bare-server.ts), then:
 * 1. GET /v1/payment_links/{id} and POST /v1/payment_links (unique Idempotency-Key per request) at
 *    32 connections for 20 s each, against the bare server's indexed select / insert: requests/s,
 *    p50, p99 and the ratio to the bare server (targets: reads >= 50%, writes >= 35%, p99 < 50 ms).
 * 2. From POST /sim/chain/transfers (a full deposit) to `payment.paid` committed in the outbox
 *    (seen through LISTEN) and to the signed webhook received by a local endpoint: p50 / p95
 *    (targets: outbox p95 < 500 ms, webhook p95 < 1.5 s).
 * Also loads a "data-layer floor" (bench/floor-server.ts: bare Koa + the product's own statements)
 * to split the gap into what the spec's writes cost and what the HTTP pipeline costs.
 * Targets are loaded in interleaved slices (product, bare, floor, product, ...) so host drift is shared.
 * 3. Observability cost (issue 29): two more API processes on the same stack, one with metrics and
 *    OpenTelemetry tracing on (spans exported over OTLP/HTTP to a local sink that accepts and drops
 *    them) and one with both off (METRICS_ENABLED=false, no OTEL_*), plus one tracing 10% of traces
 *    (OTEL_TRACES_SAMPLER=parentbased_traceidratio, ARG 0.1), loaded in the same interleaved slices as
 *    the others; the stack's own API has metrics on and tracing off. The read and create paths with
 *    each on vs both off (target: lose <= 5%).
 * Env: BENCH_SECONDS (default 20), BENCH_ROUNDS (4), BENCH_CONNECTIONS (32), BENCH_PAYMENTS (60).
 */
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { Client as PgClient } from 'pg';
import type { DevCredentials } from '../activities/accounts/commands';
import type { Stack } from '../scripts/stack';
import { pct, runBench, startPaidReceiver } from './harness';
import { freePort } from '../lib/ports';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon');

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const PAYMENTS = Number(process.env.BENCH_PAYMENTS ?? 60);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);

interface Load {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function load(opts: Record<string, unknown>, seconds = SECONDS): Promise<Load> {
  const r = await autocannon({ connections: CONNECTIONS, duration: seconds, ...opts });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

/**
 * Loads each target for SECONDS in all, in ROUNDS interleaved slices (A, B, C, A, B, C, ...), so a
 * host whose speed drifts during the run (a shared machine) weighs on every target alike and the
 * ratios stay fair. Rate: mean over slices; p50: median of the slices' p50; p99: the worst slice's.
 */
async function interleaved(targets: Record<string, unknown>[]): Promise<Load[]> {
  const slices: Load[][] = targets.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < targets.length; i++) slices[i].push(await load(targets[i], SECONDS / ROUNDS));
  }
  return slices.map((xs) => {
    const p50s = xs.map((x) => x.p50).sort((a, b) => a - b);
    return {
      rps: xs.reduce((s, x) => s + x.rps, 0) / xs.length,
      p50: p50s[Math.floor(p50s.length / 2)],
      p99: Math.max(...xs.map((x) => x.p99)),
      non2xx: xs.reduce((s, x) => s + x.non2xx, 0),
      errors: xs.reduce((s, x) => s + x.errors, 0),
    };
  });
}

async function measure(stack: Stack, creds: DevCredentials): Promise<void> {
  const { db } = await import('../lib/db');
  await db().query(
    'CREATE TABLE IF NOT EXISTS bench_bare_links (id text PRIMARY KEY, body jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())',
  );

  const barePort = await freePort();
  const bare = spawn(process.execPath, [path.join(__dirname, 'bare-server.js')], {
    env: { ...process.env, DATABASE_URL: stack.databaseUrl, PORT: String(barePort) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((res) => bare.stdout!.once('data', () => res()));
  const bareUrl = `http://127.0.0.1:${barePort}`;
  const floorPort = await freePort();
  const floor = spawn(process.execPath, [path.join(__dirname, 'floor-server.js')], {
    env: { ...process.env, DATABASE_URL: stack.databaseUrl, PORT: String(floorPort), BENCH_ACCOUNT_ID: creds.account_id },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((res) => floor.stdout!.once('data', () => res()));
  const floorUrl = `http://127.0.0.1:${floorPort}`;

  // Observability on and off (module doc 3): the same API code, two processes beside the stack's.
  const sink = await startOtlpSink();
  const observedUrl = await spawnApi(stack, {
    METRICS_ENABLED: 'true',
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${sink.url}/v1/traces`,
    OTEL_SERVICE_NAME: 'bench-api',
  });
  const sampledUrl = await spawnApi(stack, {
    METRICS_ENABLED: 'true',
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${sink.url}/v1/traces`,
    OTEL_SERVICE_NAME: 'bench-api-sampled',
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: '0.1',
  });
  const plainUrl = await spawnApi(stack, { METRICS_ENABLED: 'false', OTEL_SDK_DISABLED: 'true' });

  const headers = { 'x-api-key': creds.live_key, 'content-type': 'application/json' };
  const linkBody = JSON.stringify({
    amount: { amount: '10000', currency: 'USD', decimals: 2 },
    title: 'Bench link',
    accepted_rail_kinds: ['crypto'],
  });
  const created = await fetch(`${stack.apiUrl}/v1/payment_links`, {
    method: 'POST',
    headers: { ...headers, 'Idempotency-Key': `bench_${crypto.randomBytes(12).toString('hex')}` },
    body: linkBody,
  });
  const link = (await created.json()) as { id: string };
  if (!link.id) throw new Error(`could not create the bench link: ${JSON.stringify(link)}`);

  const withKey = (req: { headers: Record<string, string> }) => ({
    ...req,
    headers: { ...req.headers, 'Idempotency-Key': `bench_${crypto.randomBytes(12).toString('hex')}` },
  });
  log(`warming up...`);
  await autocannon({ url: `${stack.apiUrl}/v1/payment_links/${link.id}`, headers, connections: 8, duration: 3 });
  await autocannon({ url: `${bareUrl}/links/${link.id}`, connections: 8, duration: 3 });
  await autocannon({ url: `${floorUrl}/links/${link.id}`, connections: 8, duration: 3 });
  await autocannon({ url: `${observedUrl.url}/v1/payment_links/${link.id}`, headers, connections: 8, duration: 3 });
  await autocannon({ url: `${plainUrl.url}/v1/payment_links/${link.id}`, headers, connections: 8, duration: 3 });
  await autocannon({ url: `${sampledUrl.url}/v1/payment_links/${link.id}`, headers, connections: 8, duration: 3 });

  log(`GET: product, bare, floor, observed, plain interleaved (${CONNECTIONS} connections, ${SECONDS} s each in ${ROUNDS} slices)...`);
  const [getProduct, getBare, getFloor, getObserved, getPlain, getSampled] = await interleaved([
    { url: `${stack.apiUrl}/v1/payment_links/${link.id}`, headers },
    { url: `${bareUrl}/links/${link.id}` },
    { url: `${floorUrl}/links/${link.id}` },
    { url: `${observedUrl.url}/v1/payment_links/${link.id}`, headers },
    { url: `${plainUrl.url}/v1/payment_links/${link.id}`, headers },
    { url: `${sampledUrl.url}/v1/payment_links/${link.id}`, headers },
  ]);
  log('POST: product, bare, floor, observed, plain interleaved...');
  const postTo = (base: string) => ({
    url: `${base}/v1/payment_links`,
    requests: [{ method: 'POST', headers, body: linkBody, setupRequest: withKey }],
  });
  const [postProduct, postBare, postFloor, postObserved, postPlain, postSampled] = await interleaved([
    postTo(stack.apiUrl),
    { url: `${bareUrl}/links`, requests: [{ method: 'POST', headers: { 'content-type': 'application/json' }, body: linkBody }] },
    { url: `${floorUrl}/links`, requests: [{ method: 'POST', headers: { 'content-type': 'application/json' }, body: linkBody }] },
    postTo(observedUrl.url),
    postTo(plainUrl.url),
    postTo(sampledUrl.url),
  ]);
  bare.kill();
  floor.kill();
  observedUrl.stop();
  plainUrl.stop();
  sampledUrl.stop();
  sink.close();

  // Deposit -> outbox -> webhook latency.
  log(`deposit latency over ${PAYMENTS} payments...`);
  const receiver = await startPaidReceiver();
  const webhookAt = receiver.paidAt;
  const sessionHeaders = { ...headers, 'Idempotency-Key': `bench_${crypto.randomBytes(12).toString('hex')}` };
  await fetch(`${stack.apiUrl}/v1/webhook_endpoints`, {
    method: 'POST',
    headers: sessionHeaders,
    body: JSON.stringify({ url: receiver.url, event_types: ['payment.paid'] }),
  });
  const outboxAt = new Map<string, number>();
  const listener = new PgClient({ connectionString: stack.databaseUrl });
  await listener.connect();
  await listener.query('LISTEN events');
  // The notification is a hint sent after commit (lib/outbox.ts): on each, read the new `payment.paid` rows.
  let seenSeq = (await listener.query('SELECT COALESCE(max(seq), 0)::text AS s FROM events')).rows[0].s as string;
  listener.on('notification', () => {
    const now = performance.now();
    void listener
      .query(`SELECT seq::text, object_id FROM events WHERE seq > $1 AND type = 'payment.paid' ORDER BY seq`, [seenSeq])
      .then((r) => {
        for (const row of r.rows) {
          if (!outboxAt.has(row.object_id)) outboxAt.set(row.object_id, now);
          if (BigInt(row.seq) > BigInt(seenSeq)) seenSeq = row.seq;
        }
      });
  });

  const toOutbox: number[] = [];
  const toWebhook: number[] = [];
  for (let i = 0; i < PAYMENTS; i++) {
    const c = await fetch(`${stack.apiUrl}/v1/payment_links`, {
      method: 'POST',
      headers: { ...headers, 'Idempotency-Key': `bench_${crypto.randomBytes(12).toString('hex')}` },
      body: linkBody,
    });
    const l = (await c.json()) as { id: string };
    const a = await fetch(`${stack.apiUrl}/v1/payment_links/${l.id}/activate`, {
      method: 'POST',
      headers: { ...headers, 'Idempotency-Key': `bench_${crypto.randomBytes(12).toString('hex')}` },
      body: JSON.stringify({ attestation_accepted: true }),
    });
    const act = (await a.json()) as { url: string };
    const token = act.url.split('/pay/')[1];
    const p = (await (
      await fetch(`${stack.apiUrl}/v1/payment_sessions/${token}/payments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ rail: 'crypto_native' }),
      })
    ).json()) as { id: string; deposit_instructions: { chain: string; address: string; asset: string; amount: { amount: string } } };
    const di = p.deposit_instructions;
    const t0 = performance.now();
    await fetch(`${stack.apiUrl}/sim/chain/transfers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chain: di.chain, to_address: di.address, asset: di.asset, amount: di.amount.amount }),
    });
    const end = Date.now() + 10000;
    while ((!outboxAt.has(p.id) || !webhookAt.has(p.id)) && Date.now() < end) await new Promise((r) => setTimeout(r, 2));
    if (!outboxAt.has(p.id) || !webhookAt.has(p.id))
      throw new Error(`payment ${p.id} did not reach payment.paid and its webhook within 10 s`);
    toOutbox.push(outboxAt.get(p.id)! - t0);
    toWebhook.push(webhookAt.get(p.id)! - t0);
  }
  await listener.end();
  receiver.close();
  toOutbox.sort((a, b) => a - b);
  toWebhook.sort((a, b) => a - b);

  const f = (n: number) => n.toFixed(1);
  const row = (name: string, x: Load, base: Load) =>
    `${name.padEnd(34)} ${f(x.rps).padStart(9)} ${String(x.p50).padStart(6)} ${String(x.p99).padStart(6)}   ${f(base.rps).padStart(9)} ${String(base.p50).padStart(6)} ${String(base.p99).padStart(6)}   ${((100 * x.rps) / base.rps).toFixed(0).padStart(4)}%   non2xx ${x.non2xx} errors ${x.errors}`;
  process.stdout.write(
    [
      '',
      `Load: ${CONNECTIONS} connections, ${SECONDS} s per target in ${ROUNDS} interleaved slices, ${os.cpus().length} cores`,
      `${'endpoint'.padEnd(34)} ${'req/s'.padStart(9)} ${'p50ms'.padStart(6)} ${'p99ms'.padStart(6)}   ${'bare r/s'.padStart(9)} ${'p50ms'.padStart(6)} ${'p99ms'.padStart(6)}   ratio`,
      row('GET /v1/payment_links/{id}', getProduct, getBare),
      row('POST /v1/payment_links (idempotent)', postProduct, postBare),
      '',
      `Data-layer floor (bare Koa + the product's own read / create statement, no pipeline; bench/floor-server.ts):`,
      row('GET floor', getFloor, getBare),
      row('POST floor', postFloor, postBare),
      `  product / floor: GET ${((100 * getProduct.rps) / getFloor.rps).toFixed(0)}%, POST ${((100 * postProduct.rps) / postFloor.rps).toFixed(0)}%`,
      '',
      `Observability (issue 29): an API with metrics and tracing on (OTLP export requests received: ${sink.spans()}) vs one with both off, same stack, same slices:`,
      row('GET on, every trace sampled', getObserved, getPlain),
      row('POST on, every trace sampled', postObserved, postPlain),
      row('GET on, 10% of traces sampled', getSampled, getPlain),
      row('POST on, 10% of traces sampled', postSampled, postPlain),
      row("GET metrics only (the stack's API)", getProduct, getPlain),
      row("POST metrics only (the stack's API)", postProduct, postPlain),
      `  on / off: GET ${((100 * getObserved.rps) / getPlain.rps).toFixed(1)}%, POST ${((100 * postObserved.rps) / postPlain.rps).toFixed(1)}%;` +
        ` 10% sampled: GET ${((100 * getSampled.rps) / getPlain.rps).toFixed(1)}%, POST ${((100 * postSampled.rps) / postPlain.rps).toFixed(1)}%;` +
        ` metrics only: GET ${((100 * getProduct.rps) / getPlain.rps).toFixed(1)}%, POST ${((100 * postProduct.rps) / postPlain.rps).toFixed(1)}% (target >= 95%)`,
      '',
      `Deposit latency over ${PAYMENTS} payments (sim transfer -> ...):`,
      `  payment.paid in outbox   p50 ${f(pct(toOutbox, 50))} ms   p95 ${f(pct(toOutbox, 95))} ms   max ${f(toOutbox[toOutbox.length - 1])} ms   (target p95 < 500 ms)`,
      `  webhook received         p50 ${f(pct(toWebhook, 50))} ms   p95 ${f(pct(toWebhook, 95))} ms   max ${f(toWebhook[toWebhook.length - 1])} ms   (target p95 < 1500 ms)`,
      '',
      `Targets: reads >= 50% of bare (${((100 * getProduct.rps) / getBare.rps).toFixed(0)}%), writes >= 35% (${((100 * postProduct.rps) / postBare.rps).toFixed(0)}%), p99 < 50 ms (GET ${getProduct.p99} ms, POST ${postProduct.p99} ms)`,
      '',
    ].join('\n'),
  );
}

/** Starts one more API process (dist/api/main.js) on the stack with `extra` env on a free port; resolves once `/healthz` answers. */
async function spawnApi(stack: Stack, extra: NodeJS.ProcessEnv): Promise<{ url: string; stop(): void }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...stack.env, PORT: String(port), PAYER_HOST: `http://127.0.0.1:${port}`, METRICS_PORT: '', ...extra };
  for (const k of Object.keys(env)) if (k.startsWith('OTEL_') && !(k in extra)) delete env[k];
  const child = spawn(process.execPath, [path.join(__dirname, '../api/main.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  for (const end = Date.now() + 60_000; Date.now() < end;) {
    if (child.exitCode !== null) throw new Error(`bench API exited with ${child.exitCode}`);
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { url, stop: () => child.kill('SIGTERM') };
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGKILL');
  throw new Error('bench API did not become healthy');
}

/** A local OTLP/HTTP trace receiver that accepts every export and drops it (counts the requests). */
async function startOtlpSink(): Promise<{ url: string; spans(): number; close(): void }> {
  const http = await import('node:http');
  let exports = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      exports += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, spans: () => exports, close: () => server.close() };
}

runBench({ name: 'bench', tag: 'bench', split: true, log }, measure);
