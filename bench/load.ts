/**
 * `npm run bench:load`: a load test of the whole product (issue 17 items 3 and 4). BENCH_VUS (500)
 * concurrent merchant journeys for BENCH_LOAD_SECONDS (60) against a throwaway stack whose API and
 * worker run as separate processes. Each journey, as a merchant and a payer would:
 * create a payment link (10.00 USD, crypto) -> activate -> the payer opens a native-rail payment ->
 * a short deposit (`/sim/chain/transfers`, 60% of what is due) until the `payment.underpaid` webhook
 * arrives -> the top-up until the `payment.settled` webhook arrives.
 *
 * Phases: `steady` (no fault), then `worker kills` (the worker is SIGKILLed and started again every
 * BENCH_KILL_EVERY_S, 15 s). Each phase prints journeys/s, the error rate (a non-2xx answer or a
 * step that did not finish within 90 s) and p50/p95 of each step. It then checks the database for
 * the phase's payments: one payment per link, each settled payment with exactly one
 * `payment.settled` and one `payment.underpaid` event, one delivery row per event and endpoint,
 * every delivery succeeded, and exactly one settlement transfer at the chain provider. Receipts the
 * receiver saw twice (at-least-once delivery after a kill) are counted separately.
 *
 * Item 4: BENCH_APIS=2 BENCH_WORKERS=2 runs two API processes and two workers on one database and
 * one Temporal server; journeys alternate between the API instances (kills hit worker 0).
 * Env: BENCH_VUS, BENCH_LOAD_SECONDS, BENCH_KILL_EVERY_S, BENCH_APIS, BENCH_WORKERS, BENCH_PHASES
 * (`steady,kills`).
 */
import 'reflect-metadata';
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, setGlobalDispatcher } from 'undici';
import type { DevCredentials } from '../activities/accounts/commands';
import type { Stack } from '../scripts/stack';
import { db } from '../lib/db';
import { pct, runBench } from './harness';

const VUS = Number(process.env.BENCH_VUS ?? 500);
const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 60);
const KILL_EVERY_S = Number(process.env.BENCH_KILL_EVERY_S ?? 15);
const APIS = Number(process.env.BENCH_APIS ?? 1);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 1);
const PHASES = (process.env.BENCH_PHASES ?? 'steady,kills').split(',');
const STEP_TIMEOUT_MS = 90_000;
const STEPS = ['create', 'activate', 'pay', 'short -> underpaid webhook', 'top-up -> settled webhook'] as const;
const log = (m: string) => process.stderr.write(`[bench:load] ${m}\n`);

setGlobalDispatcher(new Agent({ connections: 256, pipelining: 1, keepAliveTimeout: 30_000 }));


/** Webhook receipts: waiters by `type:payment id`, and how often each `webhook-id` arrived. */
class Receiver {
  readonly seen = new Map<string, number>();
  private readonly waiters = new Map<string, () => void>();
  private readonly arrived = new Set<string>();
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = String(req.headers['webhook-id'] ?? '');
      this.seen.set(id, (this.seen.get(id) ?? 0) + 1);
      try {
        const e = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; data: { object: { id: string } } };
        const key = `${e.type}:${e.data.object.id}`;
        this.arrived.add(key);
        this.waiters.get(key)?.();
      } catch { /* not an event */ }
      res.writeHead(204).end();
    });
  });
  /** Resolves when `type` for `paymentId` has arrived (or already had). */
  wait(type: string, paymentId: string): Promise<void> {
    const key = `${type}:${paymentId}`;
    if (this.arrived.has(key)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.set(key, () => { this.waiters.delete(key); resolve(); }));
  }
}

class StepError extends Error {}

async function call(api: string, key: string | null, method: string, path: string, body?: unknown): Promise<any> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) { headers['x-api-key'] = key; if (method !== 'GET') headers['Idempotency-Key'] = `load_${crypto.randomBytes(12).toString('hex')}`; }
  const r = await fetch(`${api}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(STEP_TIMEOUT_MS) });
  const text = await r.text();
  if (r.status >= 300) throw new StepError(`${method} ${path}: ${r.status} ${text.slice(0, 200)}`);
  return text ? JSON.parse(text) : null;
}

const within = <T>(p: Promise<T>, what: string): Promise<T> => Promise.race([
  p, new Promise<T>((_, reject) => setTimeout(() => reject(new StepError(`${what}: no webhook within ${STEP_TIMEOUT_MS / 1000} s`)), STEP_TIMEOUT_MS).unref()),
]);

interface PhaseResult { started: number; completed: number; errors: number; sampleErrors: string[]; steps: Map<string, number[]>; links: string[]; payments: string[] }

/** One journey (see module doc) against `api`; records step times into `r`. */
async function journey(api: string, key: string, receiver: Receiver, r: PhaseResult): Promise<void> {
  const timed = async <T>(step: string, fn: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    const out = await fn();
    r.steps.get(step)!.push(performance.now() - t0);
    return out;
  };
  const link = await timed('create', () => call(api, key, 'POST', '/v1/payment_links', { amount: { amount: '1000', currency: 'USD', decimals: 2 }, title: 'Load test order', accepted_rail_kinds: ['crypto'] }));
  r.links.push(link.id);
  const act = await timed('activate', () => call(api, key, 'POST', `/v1/payment_links/${link.id}/activate`, { attestation_accepted: true }));
  const token = String(act.url).split('/pay/')[1];
  const pay = await timed('pay', () => call(api, null, 'POST', `/v1/payment_sessions/${token}/payments`, { rail: 'crypto_native' }));
  r.payments.push(pay.id);
  const di = pay.deposit_instructions;
  const due = BigInt(di.amount.amount);
  const short = (due * 6n) / 10n;
  await timed('short -> underpaid webhook', async () => {
    const arrived = receiver.wait('payment.underpaid', pay.id);
    await call(api, null, 'POST', '/sim/chain/transfers', { chain: di.chain, to_address: di.address, asset: di.asset, amount: String(short) });
    await within(arrived, 'payment.underpaid');
  });
  await timed('top-up -> settled webhook', async () => {
    const arrived = receiver.wait('payment.settled', pay.id);
    await call(api, null, 'POST', '/sim/chain/transfers', { chain: di.chain, to_address: di.address, asset: di.asset, amount: String(due - short) });
    await within(arrived, 'payment.settled');
  });
}

async function runPhase(name: string, stack: Stack, key: string, receiver: Receiver, kills: boolean): Promise<PhaseResult> {
  const r: PhaseResult = { started: 0, completed: 0, errors: 0, sampleErrors: [], steps: new Map(STEPS.map((s) => [s, []])), links: [], payments: [] };
  const end = Date.now() + SECONDS * 1000;
  let killed = 0;
  let stopKiller = false;
  const killer = kills ? (async () => {
    while (!stopKiller && Date.now() < end) {
      await new Promise((res) => setTimeout(res, KILL_EVERY_S * 1000));
      if (stopKiller || Date.now() >= end) break;
      await stack.killWorker(0);
      stack.startWorker(0);
      killed += 1;
      log(`${name}: worker killed (SIGKILL) and started again (${killed})`);
    }
  })() : Promise.resolve();
  let n = 0;
  log(`${name}: ${VUS} concurrent journeys for ${SECONDS} s over ${stack.apiUrls.length} API instance(s)...`);
  await Promise.all(Array.from({ length: VUS }, async () => {
    while (Date.now() < end) {
      const api = stack.apiUrls[n++ % stack.apiUrls.length];
      r.started += 1;
      try {
        await journey(api, key, receiver, r);
        r.completed += 1;
      } catch (e) {
        r.errors += 1;
        if (r.sampleErrors.length < 5) r.sampleErrors.push(String((e as Error).message ?? e).slice(0, 300));
      }
    }
  }));
  stopKiller = true;
  await killer;
  return r;
}

/** The phase's money and delivery invariants, read from the database. */
async function check(r: PhaseResult, endpointId: string, receiver: Receiver): Promise<string[]> {
  const q = async (sql: string, params: unknown[]) => Number((await db().query(sql, params))[0].n);
  const settled = await q(`SELECT count(*)::int AS n FROM payments WHERE id = ANY($1) AND status = 'settled'`, [r.payments]);
  const perLink = await q(`SELECT count(*)::int AS n FROM (SELECT payment_link_id FROM payments WHERE payment_link_id = ANY($1) GROUP BY payment_link_id HAVING count(*) > 1) x`, [r.links]);
  const dupEvents = await q(`SELECT count(*)::int AS n FROM (SELECT object_id, type FROM events WHERE object_id = ANY($1) AND type IN ('payment.settled', 'payment.underpaid', 'payment.paid') GROUP BY object_id, type HAVING count(*) > 1) x`, [r.payments]);
  const lostEvents = await q(`SELECT count(*)::int AS n FROM payments p WHERE p.id = ANY($1) AND p.status = 'settled'
      AND (SELECT count(*) FROM events e WHERE e.object_id = p.id AND e.type IN ('payment.settled', 'payment.underpaid')) <> 2`, [r.payments]);
  const dupDeliveries = await q(`SELECT count(*)::int AS n FROM (SELECT event_id FROM webhook_deliveries WHERE endpoint_id = $1 AND replay_of IS NULL GROUP BY event_id HAVING count(*) > 1) x`, [endpointId]);
  const lostDeliveries = await q(`SELECT count(*)::int AS n FROM events e WHERE e.object_id = ANY($1) AND e.type IN ('payment.settled', 'payment.underpaid')
      AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.endpoint_id = $2 AND d.status = 'succeeded')`, [r.payments, endpointId]);
  const transfers = await q(`SELECT count(*)::int AS n FROM sandbox_chain_transfers WHERE idempotency_key = ANY($1)`, [r.payments.map((id) => `settle:${id}`)]);
  const dupReceipts = [...receiver.seen.values()].filter((c) => c > 1).length;
  return [
    `payments settled ${settled} of ${r.payments.length} created; links with more than one payment ${perLink}`,
    `events duplicated ${dupEvents}, settled payments missing an event ${lostEvents}`,
    `deliveries duplicated ${dupDeliveries}, events without a succeeded delivery ${lostDeliveries}`,
    `settlement transfers at the provider ${transfers} for ${settled} settled payments (${transfers - settled} extra)`,
    `webhooks received more than once (at-least-once after a kill; receivers de-duplicate by webhook-id) ${dupReceipts}`,
  ];
}

async function measure(stack: Stack, creds: DevCredentials): Promise<void> {
  const receiver = new Receiver();
  receiver.server.keepAliveTimeout = 30_000;
  await new Promise<void>((res) => receiver.server.listen(0, '127.0.0.1', () => res()));
  const url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}/hook`;
  const ep = await call(stack.apiUrl, creds.live_key, 'POST', '/v1/webhook_endpoints', { url, event_types: ['payment.underpaid', 'payment.settled'] });
  // Warm-up: one journey (bundles, connections, JIT).
  await journey(stack.apiUrl, creds.live_key, receiver, { started: 0, completed: 0, errors: 0, sampleErrors: [], steps: new Map(STEPS.map((s) => [s, []])), links: [], payments: [] });

  const out: string[] = ['', `Load: ${VUS} concurrent merchant journeys for ${SECONDS} s; ${APIS} API process(es), ${WORKERS} worker process(es), one PostgreSQL, one Temporal dev server, 2 cores`];
  for (const phase of PHASES) {
    const kills = phase === 'kills';
    receiver.seen.clear();
    const r = await runPhase(phase, stack, creds.live_key, receiver, kills);
    log(`${phase}: checking invariants (waiting 20 s for deliveries in flight)...`);
    await new Promise((res) => setTimeout(res, 20_000));
    const checks = await check(r, ep.id, receiver);
    out.push('', `Phase ${phase}${kills ? ` (worker SIGKILLed every ${KILL_EVERY_S} s)` : ''}:`,
      `  journeys completed ${r.completed} of ${r.started} started: ${(r.completed / SECONDS).toFixed(1)} journeys/s; errors ${r.errors} (${((100 * r.errors) / Math.max(1, r.started)).toFixed(2)}%)`);
    for (const s of STEPS) {
      const v = [...r.steps.get(s)!].sort((a, b) => a - b);
      out.push(`  ${s.padEnd(28)} n ${String(v.length).padStart(6)}   p50 ${pct(v, 50).toFixed(0).padStart(6)} ms   p95 ${pct(v, 95).toFixed(0).padStart(6)} ms`);
    }
    for (const c of checks) out.push(`  ${c}`);
    for (const e of r.sampleErrors) out.push(`  error sample: ${e}`);
  }
  receiver.server.closeAllConnections();
  receiver.server.close();
  process.stdout.write(`${out.join('\n')}\n\n`);
}

runBench({ name: 'bench:load', tag: 'benchload', log, split: true, apis: APIS, workers: WORKERS, envOverrides: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' } }, measure);
