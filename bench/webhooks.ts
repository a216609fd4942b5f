/**
 * `npm run bench:webhooks`: webhook fan-out throughput and latency (spec 6; issue 3 section 1,
 * issue 27 item 5). Starts a throwaway stack (scripts/stack.ts, development switch on), creates
 * the endpoints on a local receiver (https with the stack's self-signed certificate unless
 * BENCH_WEBHOOK_SCHEME=http), warms up, then runs one of two modes:
 *
 * Burst (default): commits `--events` events (default 2,000; `order.created`, in transactions of
 * 100, as fast as PostgreSQL takes them) and waits until every event has reached every endpoint.
 * Prints deliveries per second (first commit to last receipt), commit (`events.created_at`) ->
 * receipt p50/p95/p99/max, and, in the same run, a bare sender (bench/bare-sender.ts, its own
 * process: the same signed POSTs to the same receiver with no database and no Temporal) and the
 * product's share of its rate (issue 27 target >= 60%).
 *
 * Paced (`--paced`): commits `--rate` events per second (default 500) for `--seconds` (default 60),
 * open loop (every 10 ms the events the schedule owes by then are committed, up to 50 per
 * transaction and 3 transactions at once, so a slow commit is caught up rather than slowing the
 * arrivals), and prints commit -> receipt
 * p50/p95/p99/max (commit = when the committing transaction returned in this process; target p95
 * < 300 ms), the same per 10 s window (a backlog shows as a rising p95), the achieved commit rate
 * and how far commits fell behind the schedule.
 *
 * Both modes print how many deliveries were not `succeeded`, duplicates, and a sample of signatures
 * verified with `standardwebhooks`.
 * Flags (or env): --paced (BENCH_WEBHOOK_MODE=paced), --rate (BENCH_RATE, 500), --seconds
 * (BENCH_SECONDS, 60), --endpoints (BENCH_ENDPOINTS, 5), --events (BENCH_EVENTS, 2000, burst);
 * env BENCH_WEBHOOK_SCHEME (https), BENCH_TIMEOUT_S (300). E.g.
 * `npm run bench:webhooks -- --paced --rate 500 --endpoints 5 --seconds 60`.
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
import { Client, Connection } from '@temporalio/client';
import { Sampler } from './busy';

/** `--name value`, `--name=value` or a bare `--name` (true) from argv, else `env`, else `dflt`. */
function flag(name: string, env: string | undefined, dflt: string): string {
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === `--${name}`) return argv[i + 1] && !argv[i + 1].startsWith('--') ? argv[i + 1] : 'true';
    if (argv[i].startsWith(`--${name}=`)) return argv[i].slice(name.length + 3);
  }
  return env ?? dflt;
}

const PACED = flag('paced', process.env.BENCH_WEBHOOK_MODE === 'paced' ? 'true' : undefined, 'false') === 'true';
const EVENTS = Number(flag('events', process.env.BENCH_EVENTS, '2000'));
const ENDPOINTS = Number(flag('endpoints', process.env.BENCH_ENDPOINTS, '5'));
const RATE = Number(flag('rate', process.env.BENCH_RATE, '500'));
const SECONDS = Number(flag('seconds', process.env.BENCH_SECONDS, '60'));
const TICK_MS = 10;
/** Paced mode: transactions in flight at once (the bench's pool has 4 connections) and events per transaction at most. */
const COMMITTERS = 3;
const MAX_PER_TX = 50;
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

interface Receipt {
  at: number;
  path: string;
  eventId: string;
  body: string;
  headers: Record<string, string>;
}
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
      receipts.push({
        at,
        path: req.url ?? '/',
        eventId: headers['webhook-id'] ?? '',
        body: Buffer.concat(chunks).toString('utf8'),
        headers,
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  };
  const server =
    SCHEME === 'https' ? https.createServer({ cert: stack.tls.cert, key: stack.tls.key }, handler) : http.createServer(handler);
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const base = `${SCHEME}://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const headers = { 'x-api-key': creds.live_key, 'content-type': 'application/json' };
  const secrets = new Map<string, string>();
  for (let i = 0; i < ENDPOINTS; i++) {
    const r = await fetch(`${stack.apiUrl}/v1/webhook_endpoints`, {
      method: 'POST',
      headers: { ...headers, 'Idempotency-Key': `bench_${crypto.randomBytes(12).toString('hex')}` },
      body: JSON.stringify({ url: `${base}/ep${i}`, event_types: ['order.created'] }),
    });
    const ep = (await r.json()) as { id?: string; secret?: string };
    if (!ep.id || !ep.secret) throw new Error(`could not create endpoint ${i}: ${JSON.stringify(ep)}`);
    secrets.set(`/ep${i}`, ep.secret);
  }

  // Warm-up: one event through every endpoint (worker bundle, TLS sessions, JIT).
  await transaction((m) =>
    emitEvent(m, {
      accountId: creds.account_id,
      livemode: true,
      type: 'order.created',
      objectType: 'order',
      objectId: 'ord_warmup',
      object: { id: 'ord_warmup', object: 'order' },
    }),
  );
  const warmEnd = Date.now() + 60_000;
  while (receipts.length < ENDPOINTS && Date.now() < warmEnd) await new Promise((r) => setTimeout(r, 20));
  if (receipts.length < ENDPOINTS) throw new Error('warm-up delivery did not arrive within 60 s');
  receipts.length = 0;

  if (PACED) {
    try {
      await paced(stack, creds, secrets);
    } finally {
      server.closeAllConnections();
      server.close();
    }
    return;
  }

  log(`committing ${EVENTS} events (${ENDPOINTS} endpoints each, ${SCHEME})...`);
  const ids: string[] = [];
  const temporal = await Connection.connect({ address: stack.temporalAddress });
  const sampler = new Sampler(temporal, stack.env.TEMPORAL_TASK_QUEUE ?? 'payments-platform');
  sampler.start();
  const t0 = Date.now();
  for (let i = 0; i < EVENTS; i += EVENTS_PER_TX) {
    const batch = await transaction(async (m) => {
      const out: string[] = [];
      for (let j = i; j < Math.min(EVENTS, i + EVENTS_PER_TX); j++) {
        out.push(
          await emitEvent(m, {
            accountId: creds.account_id,
            livemode: true,
            type: 'order.created',
            objectType: 'order',
            objectId: `ord_bench${j}`,
            object: { id: `ord_bench${j}`, object: 'order', status: 'created' },
          }),
        );
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
  const busy = sampler.stop();
  await temporal.close();
  const bare = await bareRun(stack, base, secrets);
  server.closeAllConnections();
  server.close();

  const createdAt = new Map<string, number>();
  for (let i = 0; i < ids.length; i += 1000) {
    const rows: Array<{ id: string; created_at: Date }> = await db().query('SELECT id, created_at FROM events WHERE id = ANY($1)', [
      ids.slice(i, i + 1000),
    ]);
    for (const r of rows) createdAt.set(r.id, r.created_at.getTime());
  }
  const ours = receipts.filter((r) => createdAt.has(r.eventId));
  const unique = new Set(ours.map((r) => `${r.path} ${r.eventId}`));
  const latencies = ours.map((r) => r.at - createdAt.get(r.eventId)!).sort((a, b) => a - b);
  const first = Math.min(...createdAt.values());
  const last = Math.max(...ours.map((r) => r.at));
  const seconds = (last - first) / 1000;
  const { verified, statuses } = await checkReceipts(ours, secrets, ids, 25);

  const f = (n: number) => n.toFixed(0);
  process.stdout.write(
    [
      '',
      `Webhook fan-out: ${EVENTS} events x ${ENDPOINTS} endpoints = ${expected} deliveries (${SCHEME} on loopback), ${os.cpus().length} cores`,
      `  events committed in      ${committedMs} ms`,
      `  received                 ${ours.length} (${unique.size} distinct, ${ours.length - unique.size} duplicates)`,
      `  deliveries per second    ${(ours.length / seconds).toFixed(1)}   (first commit -> last receipt ${seconds.toFixed(2)} s; target >= 1000/s)`,
      `  bare sender              ${bare.perSecond.toFixed(1)}/s   (${bare.received} received; product = ${((100 * ours.length) / seconds / bare.perSecond).toFixed(0)}% of bare; target >= 60%)`,
      `  commit -> receipt        p50 ${f(pct(latencies, 50))} ms   p95 ${f(pct(latencies, 95))} ms   p99 ${f(pct(latencies, 99))} ms   max ${f(latencies[latencies.length - 1])} ms   (target p95 < 1000 ms)`,
      `  first receipt            ${Math.min(...ours.map((r) => r.at)) - first} ms after the first commit; received per 500 ms: ${timeline(ours.map((r) => r.at - first)).join(' ')}`,
      `  delivery statuses        ${statuses.map((s) => `${s.status} ${s.n}`).join(', ')}`,
      `  signatures verified      ${verified} sampled, all valid`,
      '  busy, from the first commit to the last receipt (before the bare sender ran):',
      ...busy,
      '',
    ].join('\n'),
  );
  if (ours.length < expected) throw new Error(`only ${ours.length} of ${expected} deliveries arrived within ${TIMEOUT_S} s`);
}

/**
 * Checks a receipt's Standard Webhooks signature with `standardwebhooks` against the receipt's own
 * time (its 5 min timestamp tolerance applied at receipt, not when the bench gets to the check:
 * a long run on a slow machine would otherwise fail old receipts). Throws when no signature matches.
 */
function verifyReceipt(secret: string, r: Receipt): void {
  const ts = Number(r.headers['webhook-timestamp']);
  if (!(Math.abs(r.at / 1000 - ts) <= 300)) throw new Error(`receipt ${r.eventId}: timestamp ${ts} is more than 5 min from its receipt`);
  const expected = new Webhook(secret).sign(r.eventId, new Date(ts * 1000), r.body);
  if (!(r.headers['webhook-signature'] ?? '').split(' ').includes(expected)) throw new Error(`receipt ${r.eventId}: no valid signature`);
}

/**
 * The checks both modes print: every `every`-th receipt's signature (verifyReceipt; throws on a bad
 * one) and the delivery rows of events `ids` by status.
 */
async function checkReceipts(
  ours: Receipt[],
  secrets: Map<string, string>,
  ids: string[],
  every: number,
): Promise<{ verified: number; statuses: Array<{ status: string; n: number }> }> {
  let verified = 0;
  for (let i = 0; i < ours.length; i += every) {
    verifyReceipt(secrets.get(ours[i].path)!, ours[i]);
    verified += 1;
  }
  const statuses: Array<{ status: string; n: number }> = await db().query(
    'SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE event_id = ANY($1) GROUP BY status ORDER BY status',
    [ids],
  );
  return { verified, statuses };
}

/**
 * Paced mode (see module doc): RATE events per second for SECONDS, then waits for every delivery;
 * prints the report and throws when deliveries are missing after BENCH_TIMEOUT_S.
 */
async function paced(stack: Stack, creds: DevCredentials, secrets: Map<string, string>): Promise<void> {
  const total = Math.round(RATE * SECONDS);
  const temporal = await Connection.connect({ address: stack.temporalAddress });
  const sampler = new Sampler(temporal, stack.env.TEMPORAL_TASK_QUEUE ?? 'payments-platform');
  sampler.start();
  log(`pacing ${RATE} events/s for ${SECONDS} s (${total} events, ${ENDPOINTS} endpoints each, ${SCHEME})...`);
  const committedAt = new Map<string, number>();
  let next = 0;
  let committed = 0;
  let transactions = 0;
  let maxBehindMs = 0;
  const t0 = Date.now();
  // COMMITTERS transactions in flight, each taking up to MAX_PER_TX of the events the schedule owes.
  await Promise.all(
    Array.from({ length: COMMITTERS }, async () => {
      while (next < total) {
        const owed = Math.min(total, Math.floor(((Date.now() - t0) / 1000) * RATE)) - next;
        if (owed <= 0) {
          await new Promise((r) => setTimeout(r, TICK_MS));
          continue;
        }
        // How late the oldest owed event is against its scheduled arrival.
        maxBehindMs = Math.max(maxBehindMs, Date.now() - (t0 + (next * 1000) / RATE));
        const from = next;
        const n = Math.min(owed, MAX_PER_TX);
        next += n;
        const ids = await transaction(async (m) => {
          const out: string[] = [];
          for (let j = from; j < from + n; j++) {
            out.push(
              await emitEvent(m, {
                accountId: creds.account_id,
                livemode: true,
                type: 'order.created',
                objectType: 'order',
                objectId: `ord_paced${j}`,
                object: { id: `ord_paced${j}`, object: 'order', status: 'created' },
              }),
            );
          }
          return out;
        });
        const at = Date.now();
        for (const id of ids) committedAt.set(id, at);
        committed += n;
        transactions += 1;
      }
    }),
  );
  const commitSeconds = (Date.now() - t0) / 1000;
  const expected = total * ENDPOINTS;
  const deadline = Date.now() + TIMEOUT_S * 1000;
  const count = () => receipts.reduce((n, r) => n + (committedAt.has(r.eventId) ? 1 : 0), 0);
  while (count() < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  const busy = sampler.stop();
  const work = await temporalWork(new Client({ connection: temporal }));
  await temporal.close();
  const ours = receipts.filter((r) => committedAt.has(r.eventId));
  const unique = new Set(ours.map((r) => `${r.path} ${r.eventId}`));
  const latencies = ours.map((r) => r.at - committedAt.get(r.eventId)!);
  const sorted = [...latencies].sort((a, b) => a - b);
  // p95 per 10 s window of commit time: a dispatcher or drain that falls behind shows as a rising p95.
  const windows: number[][] = [];
  ours.forEach((r, i) => {
    const w = Math.floor((committedAt.get(r.eventId)! - t0) / 10_000);
    while (windows.length <= w) windows.push([]);
    windows[w].push(latencies[i]);
  });
  const ids = [...committedAt.keys()];
  const { verified, statuses } = await checkReceipts(ours, secrets, ids, 250);
  const f = (n: number) => n.toFixed(0);
  process.stdout.write(
    [
      '',
      `Webhooks paced: ${RATE} events/s x ${ENDPOINTS} endpoints for ${SECONDS} s = ${expected} deliveries (${SCHEME} on loopback), ${os.cpus().length} cores`,
      `  events committed         ${committed} in ${transactions} transactions over ${commitSeconds.toFixed(1)} s (${(committed / commitSeconds).toFixed(0)}/s; at most ${maxBehindMs} ms behind the schedule)`,
      `  received                 ${ours.length} (${unique.size} distinct, ${ours.length - unique.size} duplicates)`,
      `  commit -> receipt        p50 ${f(pct(sorted, 50))} ms   p95 ${f(pct(sorted, 95))} ms   p99 ${f(pct(sorted, 99))} ms   max ${f(sorted[sorted.length - 1])} ms   (target p95 < 300 ms)`,
      `  p95 per 10 s window      ${windows
        .map((w) =>
          f(
            pct(
              w.sort((a, b) => a - b),
              95,
            ),
          ),
        )
        .join(' ')} ms`,
      `  delivery statuses        ${statuses.map((s) => `${s.status} ${s.n}`).join(', ')}`,
      `  signatures verified      ${verified} sampled, all valid`,
      ...(await stages(ours, committedAt)),
      `  endpoint workflows       ${work}`,
      '  busy, from the first commit to the last receipt:',
      ...busy,
      '',
    ].join('\n'),
  );
  if (ours.length < expected) throw new Error(`only ${ours.length} of ${expected} deliveries arrived within ${TIMEOUT_S} s`);
}

/** Diagnostics: commit -> fan-out (the dispatcher's delivery row) and fan-out -> receipt, p50/p95. */
async function stages(ours: Receipt[], committedAt: Map<string, number>): Promise<string[]> {
  const fanned = new Map<string, number>();
  const ids = [...committedAt.keys()];
  for (let i = 0; i < ids.length; i += 5000) {
    const rows: Array<{ event_id: string; at: Date }> = await db().query(
      'SELECT event_id, min(created_at) AS at FROM webhook_deliveries WHERE event_id = ANY($1) GROUP BY event_id',
      [ids.slice(i, i + 5000)],
    );
    for (const r of rows) fanned.set(r.event_id, r.at.getTime());
  }
  const a = ids
    .filter((id) => fanned.has(id))
    .map((id) => fanned.get(id)! - committedAt.get(id)!)
    .sort((x, y) => x - y);
  const b = ours
    .filter((r) => fanned.has(r.eventId))
    .map((r) => r.at - fanned.get(r.eventId)!)
    .sort((x, y) => x - y);
  const f = (n: number) => n.toFixed(0);
  return [
    `  commit -> fan-out pass   p50 ${f(pct(a, 50))} ms   p95 ${f(pct(a, 95))} ms   p99 ${f(pct(a, 99))} ms`,
    `  fan-out -> receipt       p50 ${f(pct(b, 50))} ms   p95 ${f(pct(b, 95))} ms   p99 ${f(pct(b, 99))} ms`,
  ];
}

/** Diagnostics: the endpoint workflow runs of the run (warm-up included), their signals, drains and history events. */
async function temporalWork(client: Client): Promise<string> {
  let runs = 0;
  let events = 0;
  let signals = 0;
  let drains = 0;
  for await (const w of client.workflow.list({ query: `WorkflowType = 'webhookEndpointWorkflow'` })) {
    runs += 1;
    const h = await client.workflow.getHandle(w.workflowId, w.runId).fetchHistory();
    events += h.events?.length ?? 0;
    signals += (h.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes).length;
    drains += (h.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes).length;
  }
  return `${runs} runs, ${signals} deliver signals, ${drains} drain calls, ${events} history events`;
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
    execFile(
      process.execPath,
      [path.join(__dirname, 'bare-sender.js')],
      {
        env: {
          ...process.env,
          BARE_URLS: urls,
          BARE_SECRET: [...secrets.values()][0],
          BARE_EVENTS: String(EVENTS),
          BARE_CA_FILE: stack.tls.certFile,
          BARE_CONCURRENCY: String(DRAIN_CONCURRENCY),
        },
        maxBuffer: 1 << 20,
      },
      (err, _out, errOut) => (err ? reject(new Error(`bare sender failed: ${errOut || err.message}`)) : resolve()),
    );
  });
  const got = receipts.slice(before).filter((r) => r.path.endsWith('/bare'));
  const last = Math.max(...got.map((r) => r.at));
  return { perSecond: got.length / ((last - t0) / 1000), received: got.length };
}

runBench({ name: 'bench:webhooks', tag: 'benchwh', log, envOverrides: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' } }, measure);
