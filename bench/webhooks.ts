/**
 * `npm run bench:webhooks`: webhook fan-out throughput and latency (spec 6; issue 3 section 1).
 * Starts a throwaway stack (scripts/stack.ts, development switch on), creates 5 endpoints on a
 * local receiver (https with the stack's self-signed certificate unless BENCH_WEBHOOK_SCHEME=http),
 * commits BENCH_EVENTS events (default 2,000; `order.created`, in transactions of 100, as fast as
 * PostgreSQL takes them) and waits until every event has reached every endpoint. Prints:
 * - deliveries per second, from the first event's commit to the last receipt (target >= 1,000/s);
 * - latency from event commit (`events.created_at`) to receipt: p50, p95, p99, max (target p95 < 1 s);
 * - how many deliveries were not `succeeded`, duplicates, and a sample of signatures verified with
 *   `standardwebhooks`;
 * - in the same run, a bare sender (bench/bare-sender.ts, its own process: the same signed POSTs
 *   to the same receiver with no database and no Temporal) and the product's share of its rate
 *   (target >= 50%).
 * Env: BENCH_EVENTS (2000), BENCH_ENDPOINTS (5), BENCH_WEBHOOK_SCHEME (https), BENCH_TIMEOUT_S (300).
 */
import 'reflect-metadata';
import crypto from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { DevCredentials } from '../activities/accounts/commands';
import type { Stack } from '../scripts/stack';
import { pct, runBench } from './harness';
import { db, transaction } from '../lib/db';
import { emitEvent } from '../lib/outbox';
import { DRAIN_CONCURRENCY } from '../activities/webhooks/drain';
import { execFile } from 'node:child_process';
import path from 'node:path';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000);
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 5);
const SCHEME = process.env.BENCH_WEBHOOK_SCHEME === 'http' ? 'http' : 'https';
const TIMEOUT_S = Number(process.env.BENCH_TIMEOUT_S ?? 300);
const EVENTS_PER_TX = 100;
const log = (m: string) => process.stderr.write(`[bench:webhooks] ${m}\n`);

/** Counts of `offsetsMs` per 500 ms bucket from 0. */
function timeline(offsetsMs: number[]): number[] {
  const buckets: number[] = [];
  for (const o of offsetsMs) {
    const b = Math.max(0, Math.floor(o / 500));
    while (buckets.length <= b) buckets.push(0);
    buckets[b] += 1;
  }
  return buckets;
}


interface Receipt { at: number; path: string; eventId: string; body: string; headers: Record<string, string> }
const receipts: Receipt[] = [];

async function measure(stack: Stack, creds: DevCredentials): Promise<void> {

  // The receiver: answers 200 at once, keeps the receipt time per (endpoint path, event id).
  receipts.length = 0;
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      receipts.push({ at, path: req.url ?? '/', eventId: headers['webhook-id'] ?? '', body: Buffer.concat(chunks).toString('utf8'), headers });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  };
  const server = SCHEME === 'https' ? https.createServer({ cert: stack.tls.cert, key: stack.tls.key }, handler) : http.createServer(handler);
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const base = `${SCHEME}://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const headers = { 'x-api-key': creds.live_key, 'content-type': 'application/json' };
  const secrets = new Map<string, string>();
  for (let i = 0; i < ENDPOINTS; i++) {
    const r = await fetch(`${stack.apiUrl}/v1/webhook_endpoints`, {
      method: 'POST', headers: { ...headers, 'Idempotency-Key': `bench_${crypto.randomBytes(12).toString('hex')}` },
      body: JSON.stringify({ url: `${base}/ep${i}`, event_types: ['order.created'] }),
    });
    const ep = await r.json() as { id?: string; secret?: string };
    if (!ep.id || !ep.secret) throw new Error(`could not create endpoint ${i}: ${JSON.stringify(ep)}`);
    secrets.set(`/ep${i}`, ep.secret);
  }

  // Warm-up: one event through every endpoint (worker bundle, TLS sessions, JIT).
  await transaction((m) => emitEvent(m, { accountId: creds.account_id, livemode: true, type: 'order.created', objectType: 'order', objectId: 'ord_warmup', object: { id: 'ord_warmup', object: 'order' } }));
  const warmEnd = Date.now() + 60_000;
  while (receipts.length < ENDPOINTS && Date.now() < warmEnd) await new Promise((r) => setTimeout(r, 20));
  if (receipts.length < ENDPOINTS) throw new Error('warm-up delivery did not arrive within 60 s');
  receipts.length = 0;

  log(`committing ${EVENTS} events (${ENDPOINTS} endpoints each, ${SCHEME})...`);
  const ids: string[] = [];
  const t0 = Date.now();
  for (let i = 0; i < EVENTS; i += EVENTS_PER_TX) {
    const batch = await transaction(async (m) => {
      const out: string[] = [];
      for (let j = i; j < Math.min(EVENTS, i + EVENTS_PER_TX); j++) {
        out.push(await emitEvent(m, {
          accountId: creds.account_id, livemode: true, type: 'order.created', objectType: 'order', objectId: `ord_bench${j}`,
          object: { id: `ord_bench${j}`, object: 'order', status: 'created' },
        }));
      }
      return out;
    });
    ids.push(...batch);
  }
  const committedMs = Date.now() - t0;
  const expected = EVENTS * ENDPOINTS;
  const deadline = Date.now() + TIMEOUT_S * 1000;
  let lastLog = Date.now();
  while (receipts.length < expected && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    if (Date.now() - lastLog > 5000) {
      lastLog = Date.now();
      log(`${receipts.length}/${expected} received`);
    }
  }
  const bare = await bareRun(stack, base, secrets);
  server.closeAllConnections();
  server.close();

  const createdAt = new Map<string, number>();
  for (let i = 0; i < ids.length; i += 1000) {
    const rows: Array<{ id: string; created_at: Date }> = await db().query('SELECT id, created_at FROM events WHERE id = ANY($1)', [ids.slice(i, i + 1000)]);
    for (const r of rows) createdAt.set(r.id, r.created_at.getTime());
  }
  const ours = receipts.filter((r) => createdAt.has(r.eventId));
  const unique = new Set(ours.map((r) => `${r.path} ${r.eventId}`));
  const latencies = ours.map((r) => r.at - createdAt.get(r.eventId)!).sort((a, b) => a - b);
  const first = Math.min(...createdAt.values());
  const last = Math.max(...ours.map((r) => r.at));
  const seconds = (last - first) / 1000;
  let verified = 0;
  for (let i = 0; i < ours.length; i += 25) {
    const r = ours[i];
    new Webhook(secrets.get(r.path)!).verify(r.body, r.headers);
    verified += 1;
  }
  const statuses: Array<{ status: string; n: number }> = await db().query(
    'SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE event_id = ANY($1) GROUP BY status ORDER BY status', [ids]);

  const f = (n: number) => n.toFixed(0);
  process.stdout.write([
    '',
    `Webhook fan-out: ${EVENTS} events x ${ENDPOINTS} endpoints = ${expected} deliveries (${SCHEME} on loopback), ${os.cpus().length} cores`,
    `  events committed in      ${committedMs} ms`,
    `  received                 ${ours.length} (${unique.size} distinct, ${ours.length - unique.size} duplicates)`,
    `  deliveries per second    ${(ours.length / seconds).toFixed(1)}   (first commit -> last receipt ${seconds.toFixed(2)} s; target >= 1000/s)`,
    `  bare sender              ${bare.perSecond.toFixed(1)}/s   (${bare.received} received; product = ${((100 * ours.length / seconds) / bare.perSecond).toFixed(0)}% of bare; target >= 50%)`,
    `  commit -> receipt        p50 ${f(pct(latencies, 50))} ms   p95 ${f(pct(latencies, 95))} ms   p99 ${f(pct(latencies, 99))} ms   max ${f(latencies[latencies.length - 1])} ms   (target p95 < 1000 ms)`,
    `  first receipt            ${Math.min(...ours.map((r) => r.at)) - first} ms after the first commit; received per 500 ms: ${timeline(ours.map((r) => r.at - first)).join(' ')}`,
    `  delivery statuses        ${statuses.map((s) => `${s.status} ${s.n}`).join(', ')}`,
    `  signatures verified      ${verified} sampled, all valid`,
    '',
  ].join('\n'));
  if (ours.length < expected) throw new Error(`only ${ours.length} of ${expected} deliveries arrived within ${TIMEOUT_S} s`);
}

/**
 * The bare baseline: bench/bare-sender.ts in its own process sends EVENTS signed POSTs to each
 * endpoint path of the same receiver; returns receipts per second (first send to last receipt).
 */
async function bareRun(stack: Stack, base: string, secrets: Map<string, string>): Promise<{ perSecond: number; received: number }> {
  const before = receipts.length;
  const t0 = Date.now();
  const urls = [...secrets.keys()].map((p) => `${base}${p}/bare`).join(',');
  await new Promise<void>((resolve, reject) => {
    execFile(process.execPath, [path.join(__dirname, 'bare-sender.js')], {
      env: { ...process.env, BARE_URLS: urls, BARE_SECRET: [...secrets.values()][0], BARE_EVENTS: String(EVENTS), BARE_CA_FILE: stack.tls.certFile, BARE_CONCURRENCY: String(DRAIN_CONCURRENCY) },
      maxBuffer: 1 << 20,
    }, (err, _out, errOut) => (err ? reject(new Error(`bare sender failed: ${errOut || err.message}`)) : resolve()));
  });
  const got = receipts.slice(before).filter((r) => r.path.endsWith('/bare'));
  const last = Math.max(...got.map((r) => r.at));
  return { perSecond: got.length / ((last - t0) / 1000), received: got.length };
}

runBench({ name: 'bench:webhooks', tag: 'benchwh', log, envOverrides: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' } }, measure);
