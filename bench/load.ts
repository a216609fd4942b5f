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
 * step that did not finish within 90 s) and p50/p95/p99 of each step. It then checks the database for
 * the phase's payments: one payment per link, each settled payment with exactly one
 * `payment.settled` and one `payment.underpaid` event, one delivery row per event and endpoint,
 * every delivery succeeded, and exactly one settlement transfer at the chain provider. Receipts the
 * receiver saw twice (at-least-once delivery after a kill) are counted separately.
 *
 * Item 4: BENCH_APIS=2 BENCH_WORKERS=2 runs two API processes and two workers on one database and
 * one Temporal server; journeys alternate between the API instances (kills hit worker 0).
 * Env: BENCH_VUS, BENCH_LOAD_SECONDS, BENCH_KILL_EVERY_S, BENCH_APIS, BENCH_WORKERS, BENCH_PHASES
 * (`steady,kills`).
 *
 * Open loop (issue 27 item 6; `--open` or BENCH_LOAD_MODE=open): journeys arrive at a fixed rate,
 * whatever the answers take, for each rate of the ladder BENCH_RATES (journeys/s, default
 * `1,2,4,6,8,12,16`) for BENCH_LOAD_SECONDS (default 30 in this mode) each; after a step's arrivals
 * end its journeys in flight finish before the next step. A step meets the service level when no
 * journey failed, deposit -> webhook p95 (each of the two deposit steps) is under
 * BENCH_SLO_WEBHOOK_MS (1000) and the p99 of every API call is under BENCH_SLO_API_MS (100); the
 * ladder stops after two steps in a row miss it (one miss can be noise on a shared machine;
 * BENCH_LADDER_ALL=1 runs every rate). Each step prints p50/p95/p99 of all API calls and of each
 * step of the journey (`activate` and `pay` are one API call each), and what was busy: CPU per
 * process (API, worker, PostgreSQL backends, Temporal dev server, this process) as % of one core,
 * PostgreSQL sessions active and waiting (pg_stat_activity, sampled each second), and the worker's
 * workflow and activity task-queue backlog (Temporal DescribeTaskQueue stats). Then what one
 * journey cost (issue 36 item 1):
 * - `CPU per journey (ms)`: each process group's CPU during the step (bench/busy.ts, from the first
 *   arrival until the last journey ended) divided by the journeys completed, and their sum (`all`);
 * - `Temporal work per journey`: workflow starts, completed workflow tasks, activity tasks (remote,
 *   and local ones by their marker), signals received and history events, read from the histories
 *   of the step's payment and link workflows and of the shared webhook endpoint workflow (its events
 *   between the step's first arrival and the end of the step's deliveries), divided by the step's
 *   journeys (bench/work-counts.ts). Counted after the step's deliveries have drained and before
 *   the next step begins, so the reading is not measured.
 * Then, unless BENCH_TEMPORAL_FLOOR=0, the Temporal dev server's own ceiling (bench/temporal-floor.ts,
 * its own process and server) in the same run, and each step's Temporal server CPU per journey in
 * empty workflows of that floor (its server CPU per empty workflow). Last, a summary table with one
 * row per step: meets, API p99, activate and pay p50/p99, the deposit steps' p95, CPU per journey
 * (Temporal, worker, PostgreSQL, API, all), Temporal CPU in empty workflows, and the Temporal work
 * per journey.
 */
import 'reflect-metadata';
import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { Client, Connection } from '@temporalio/client';
import { Agent, setGlobalDispatcher } from 'undici';
import type { DevCredentials } from '../activities/accounts/commands';
import { temporalKindFrom, type Stack } from '../scripts/stack';
import { db } from '../lib/db';
import { LIVE_DELIVERY_STATUSES } from '../domain/webhooks';
import { TEMPORAL_NAMESPACE } from '../temporal/config';
import { pct, runBench } from './harness';
import { Sampler } from './busy';
import { CRYPTO_STEPS, cryptoLinkJourney, Receiver, StepError, within } from './journeys';
import { countStepWork, describeCounts, describeWork, perJourney, totalOf, type StepWork } from './work-counts';

const VUS = Number(process.env.BENCH_VUS ?? 500);
const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 60);
const KILL_EVERY_S = Number(process.env.BENCH_KILL_EVERY_S ?? 15);
const APIS = Number(process.env.BENCH_APIS ?? 1);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 1);
const PHASES = (process.env.BENCH_PHASES ?? 'steady,kills').split(',');
const OPEN = process.argv.includes('--open') || process.env.BENCH_LOAD_MODE === 'open';
const RATES = (process.env.BENCH_RATES ?? '1,2,4,6,8,12,16').split(',').map(Number);
const STEP_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 30);
const SLO_WEBHOOK_MS = Number(process.env.BENCH_SLO_WEBHOOK_MS ?? 1000);
const SLO_API_MS = Number(process.env.BENCH_SLO_API_MS ?? 100);
const DEPOSIT_STEPS = ['short -> underpaid webhook', 'top-up -> settled webhook'];
const STEP_TIMEOUT_MS = 90_000;
const STEPS = CRYPTO_STEPS;
const log = (m: string) => process.stderr.write(`[bench:load] ${m}\n`);

setGlobalDispatcher(new Agent({ connections: 256, pipelining: 1, keepAliveTimeout: 30_000 }));

/** Durations of every API call (ms) while set (open-loop steps). */
let apiTimes: number[] | null = null;

async function call(api: string, key: string | null, method: string, path: string, body?: unknown): Promise<any> {
  const started = performance.now();
  try {
    return await callOnce(api, key, method, path, body);
  } finally {
    apiTimes?.push(performance.now() - started);
  }
}

async function callOnce(api: string, key: string | null, method: string, path: string, body?: unknown): Promise<any> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) {
    headers['x-api-key'] = key;
    if (method !== 'GET') headers['Idempotency-Key'] = `load_${crypto.randomBytes(12).toString('hex')}`;
  }
  const r = await fetch(`${api}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(STEP_TIMEOUT_MS),
  });
  const text = await r.text();
  if (r.status >= 300) throw new StepError(`${method} ${path}: ${r.status} ${text.slice(0, 200)}`);
  return text ? JSON.parse(text) : null;
}

interface PhaseResult {
  started: number;
  completed: number;
  errors: number;
  sampleErrors: string[];
  steps: Map<string, number[]>;
  links: string[];
  payments: string[];
}

/** One journey (bench/journeys.ts `cryptoLinkJourney`) against `api`, awaiting the webhooks; records step times into `r`. */
function journey(api: string, key: string, receiver: Receiver, r: PhaseResult): Promise<void> {
  return cryptoLinkJourney(api, key, {
    call,
    reach: (type, id) => within(receiver.wait(type, id), type, STEP_TIMEOUT_MS),
    timed: async (step, fn) => {
      const t0 = performance.now();
      const out = await fn();
      r.steps.get(step)!.push(performance.now() - t0);
      return out;
    },
    onLink: (id) => r.links.push(id),
    onPayment: (id) => r.payments.push(id),
  });
}

async function runPhase(name: string, stack: Stack, key: string, receiver: Receiver, kills: boolean): Promise<PhaseResult> {
  const r: PhaseResult = {
    started: 0,
    completed: 0,
    errors: 0,
    sampleErrors: [],
    steps: new Map(STEPS.map((s) => [s, []])),
    links: [],
    payments: [],
  };
  const end = Date.now() + SECONDS * 1000;
  let killed = 0;
  let stopKiller = false;
  const killer = kills
    ? (async () => {
        while (!stopKiller && Date.now() < end) {
          await new Promise((res) => setTimeout(res, KILL_EVERY_S * 1000));
          if (stopKiller || Date.now() >= end) break;
          await stack.killWorker(0);
          stack.startWorker(0);
          killed += 1;
          log(`${name}: worker killed (SIGKILL) and started again (${killed})`);
        }
      })()
    : Promise.resolve();
  let n = 0;
  log(`${name}: ${VUS} concurrent journeys for ${SECONDS} s over ${stack.apiUrls.length} API instance(s)...`);
  await Promise.all(
    Array.from({ length: VUS }, async () => {
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
    }),
  );
  stopKiller = true;
  await killer;
  return r;
}

/** The phase's money and delivery invariants, read from the database. */
async function check(r: PhaseResult, endpointId: string, receiver: Receiver): Promise<string[]> {
  const q = async (sql: string, params: unknown[]) => Number((await db().query(sql, params))[0].n);
  const settled = await q(`SELECT count(*)::int AS n FROM payments WHERE id = ANY($1) AND status = 'settled'`, [r.payments]);
  const perLink = await q(
    `SELECT count(*)::int AS n FROM (SELECT payment_link_id FROM payments WHERE payment_link_id = ANY($1) GROUP BY payment_link_id HAVING count(*) > 1) x`,
    [r.links],
  );
  const dupEvents = await q(
    `SELECT count(*)::int AS n FROM (SELECT object_id, type FROM events WHERE object_id = ANY($1) AND type IN ('payment.settled', 'payment.underpaid', 'payment.paid') GROUP BY object_id, type HAVING count(*) > 1) x`,
    [r.payments],
  );
  const lostEvents = await q(
    `SELECT count(*)::int AS n FROM payments p WHERE p.id = ANY($1) AND p.status = 'settled'
      AND (SELECT count(*) FROM events e WHERE e.object_id = p.id AND e.type IN ('payment.settled', 'payment.underpaid')) <> 2`,
    [r.payments],
  );
  const dupDeliveries = await q(
    `SELECT count(*)::int AS n FROM (SELECT event_id FROM webhook_deliveries WHERE endpoint_id = $1 AND replay_of IS NULL GROUP BY event_id HAVING count(*) > 1) x`,
    [endpointId],
  );
  const lostDeliveries = await q(
    `SELECT count(*)::int AS n FROM events e WHERE e.object_id = ANY($1) AND e.type IN ('payment.settled', 'payment.underpaid')
      AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.endpoint_id = $2 AND d.status = 'succeeded')`,
    [r.payments, endpointId],
  );
  const transfers = await q(`SELECT count(*)::int AS n FROM sandbox_chain_transfers WHERE idempotency_key = ANY($1)`, [
    r.payments.map((id) => `settle:${id}`),
  ]);
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
  const url = await receiver.listen();
  const ep = await call(stack.apiUrl, creds.live_key, 'POST', '/v1/webhook_endpoints', {
    url,
    event_types: ['payment.underpaid', 'payment.settled'],
  });
  // Warm-up: one journey (bundles, connections, JIT).
  await journey(stack.apiUrl, creds.live_key, receiver, {
    started: 0,
    completed: 0,
    errors: 0,
    sampleErrors: [],
    steps: new Map(STEPS.map((s) => [s, []])),
    links: [],
    payments: [],
  });

  if (OPEN) {
    const out = await openLoop(stack, creds.live_key, ep.id, receiver);
    receiver.close();
    process.stdout.write(`${out.join('\n')}\n\n`);
    return;
  }
  const out: string[] = [
    '',
    `Load: ${VUS} concurrent merchant journeys for ${SECONDS} s; ${APIS} API process(es), ${WORKERS} worker process(es), one PostgreSQL, ${temporalKindFrom() === 'cluster' ? 'a Temporal cluster' : 'one Temporal dev server'}, 2 cores`,
  ];
  for (const phase of PHASES) {
    const kills = phase === 'kills';
    receiver.seen.clear();
    const r = await runPhase(phase, stack, creds.live_key, receiver, kills);
    log(`${phase}: checking invariants (waiting 20 s for deliveries in flight)...`);
    await new Promise((res) => setTimeout(res, 20_000));
    const checks = await check(r, ep.id, receiver);
    out.push(
      '',
      `Phase ${phase}${kills ? ` (worker SIGKILLed every ${KILL_EVERY_S} s)` : ''}:`,
      `  journeys completed ${r.completed} of ${r.started} started: ${(r.completed / SECONDS).toFixed(1)} journeys/s; errors ${r.errors} (${((100 * r.errors) / Math.max(1, r.started)).toFixed(2)}%)`,
    );
    for (const s of STEPS) {
      const v = [...r.steps.get(s)!].sort((a, b) => a - b);
      out.push(
        `  ${s.padEnd(28)} n ${String(v.length).padStart(6)}   p50 ${pct(v, 50).toFixed(0).padStart(6)} ms   p95 ${pct(v, 95).toFixed(0).padStart(6)} ms   p99 ${pct(v, 99).toFixed(0).padStart(6)} ms`,
      );
    }
    for (const c of checks) out.push(`  ${c}`);
    for (const e of r.sampleErrors) out.push(`  error sample: ${e}`);
  }
  receiver.close();
  process.stdout.write(`${out.join('\n')}\n\n`);
}

/** One open-loop step: journeys start every 1000/rate ms for STEP_SECONDS; resolves when all have ended. */
async function openStep(
  rate: number,
  stack: Stack,
  key: string,
  receiver: Receiver,
): Promise<{ r: PhaseResult; api: number[]; lateMs: number; drainMs: number; firstArrivalMs: number }> {
  const r: PhaseResult = {
    started: 0,
    completed: 0,
    errors: 0,
    sampleErrors: [],
    steps: new Map(STEPS.map((s) => [s, []])),
    links: [],
    payments: [],
  };
  const api: number[] = [];
  apiTimes = api;
  const total = Math.round(rate * STEP_SECONDS);
  const running: Array<Promise<void>> = [];
  let lateMs = 0;
  const t0 = performance.now();
  const firstArrivalMs = Date.now();
  for (let i = 0; i < total; i++) {
    const at = t0 + (i * 1000) / rate;
    const wait = at - performance.now();
    if (wait > 0) await new Promise((res) => setTimeout(res, wait));
    else lateMs = Math.max(lateMs, -wait);
    r.started += 1;
    running.push(
      journey(stack.apiUrls[i % stack.apiUrls.length], key, receiver, r).then(
        () => {
          r.completed += 1;
        },
        (e) => {
          r.errors += 1;
          if (r.sampleErrors.length < 5) r.sampleErrors.push(String((e as Error).message ?? e).slice(0, 300));
        },
      ),
    );
  }
  const arrivalsEnd = performance.now();
  await Promise.all(running);
  apiTimes = null;
  return { r, api, lateMs, drainMs: performance.now() - arrivalsEnd, firstArrivalMs };
}

/** A receipt comes before its attempt is written: waits (up to 20 s) until no delivery of the endpoint is live. */
async function deliveriesDrained(endpointId: string): Promise<void> {
  for (const until = Date.now() + 20_000; Date.now() < until;) {
    const [{ n }] = await db().query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND status = ANY($2)`, [
      endpointId,
      LIVE_DELIVERY_STATUSES,
    ]);
    if (n === 0) return;
    await new Promise((res) => setTimeout(res, 200));
  }
}

/** What the summary table at the end of the ladder shows of one step (ms unless named). */
interface StepFigures {
  rate: number;
  ok: boolean;
  apiP99: number;
  activate: { p50: number; p99: number };
  pay: { p50: number; p99: number };
  /** p95 of the two deposit -> webhook steps (DEPOSIT_STEPS). */
  depositP95: number[];
  /** CPU ms per completed journey by process group, and `all`; null when no journey completed. */
  cpu: Map<string, number> | null;
  /** Temporal work per journey (bench/work-counts.ts); null when it could not be counted. */
  work: StepWork | null;
}

/** The process groups of bench/busy.ts in the order the report names them. */
const CPU_GROUPS = ['Temporal', 'worker', 'API+worker', 'PostgreSQL', 'API', 'bench'];

/** CPU ms per completed journey of each process group of `byGroup` (Sampler.cpuMsByGroup), and their sum as `all`. */
function cpuPerJourney(byGroup: Map<string, number>, completed: number): Map<string, number> | null {
  if (completed === 0) return null;
  const groups = [...CPU_GROUPS.filter((g) => byGroup.has(g)), ...[...byGroup.keys()].filter((g) => !CPU_GROUPS.includes(g))];
  const out = new Map(groups.map((g) => [g, byGroup.get(g)! / completed]));
  out.set(
    'all',
    [...out.values()].reduce((a, b) => a + b, 0),
  );
  return out;
}

/** `Temporal 360, worker 260, PostgreSQL 80, API 70, bench 20; all 790`. */
function describeCpu(cpu: Map<string, number> | null): string {
  if (!cpu) return 'no journey completed';
  return `${[...cpu]
    .filter(([g]) => g !== 'all')
    .map(([g, ms]) => `${g} ${ms.toFixed(0)}`)
    .join(', ')}; all ${cpu.get('all')!.toFixed(0)}`;
}

/** The Temporal floor's server CPU per empty workflow (ms) in bench/temporal-floor.ts's report lines; null when absent. */
function floorMsPerEmptyWorkflow(lines: string[]): number | null {
  for (const l of lines) {
    const m = /^\s*emptyWorkflow\s.*CPU per workflow: server ([\d.]+) ms/.exec(l);
    if (m) return Number(m[1]);
  }
  return null;
}

/** Temporal server CPU per journey in empty workflows of the floor, one decimal; `-` without the figures. */
const inEmptyWorkflows = (f: StepFigures, floorMs: number | null): string =>
  floorMs && f.cpu?.has('Temporal') ? (f.cpu.get('Temporal')! / floorMs).toFixed(1) : '-';

/** The ladder's summary (a markdown table, one row per step; CPU and Temporal work per journey). */
function summaryTable(figures: StepFigures[], floorMs: number | null): string[] {
  const ms = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? '-' : n.toFixed(0));
  const one = (n: number | undefined) => (n === undefined ? '-' : n.toFixed(1));
  const rows = figures.map((f) => {
    const total = f.work ? totalOf(f.work) : undefined;
    const cpu = ['Temporal', 'worker', 'PostgreSQL', 'API', 'all'].map((g) => ms(f.cpu?.get(g))).join(' / ');
    return (
      `| ${f.rate} | ${f.ok ? 'yes' : 'no'} | ${ms(f.apiP99)} | ${ms(f.activate.p50)} / ${ms(f.activate.p99)} | ${ms(f.pay.p50)} / ${ms(f.pay.p99)} | ${ms(f.depositP95[0])} | ${ms(f.depositP95[1])} | ${cpu} | ${inEmptyWorkflows(f, floorMs)} ` +
      `| ${one(total?.starts)} | ${one(total?.workflowTasks)} | ${one(total?.remoteActivities)} / ${one(total?.localActivities)} | ${one(total?.signals)} | ${one(total?.events)} |`
    );
  });
  return [
    '| rate (journeys/s) | meets | API p99 (ms) | activate p50 / p99 (ms) | pay p50 / p99 (ms) | short -> underpaid p95 (ms) | top-up -> settled p95 (ms) | CPU per journey Temporal / worker / PostgreSQL / API / all (ms) | Temporal CPU in empty workflows | starts | WFTs | activity tasks remote / local | signals | events |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ];
}

/** The open-loop ladder (module doc); returns the report lines. */
async function openLoop(stack: Stack, key: string, endpointId: string, receiver: Receiver): Promise<string[]> {
  const taskQueue = stack.env.TEMPORAL_TASK_QUEUE ?? 'payments-platform';
  const temporal = await Connection.connect({ address: stack.temporalAddress });
  const client = new Client({ connection: temporal, namespace: TEMPORAL_NAMESPACE });
  const out: string[] = [
    '',
    `Load, open loop: journeys arriving at a fixed rate, ${STEP_SECONDS} s per rate; ${APIS} API process(es), ${WORKERS} worker process(es), one PostgreSQL, ${temporalKindFrom() === 'cluster' ? 'a Temporal cluster' : 'one Temporal dev server'}, ${os.cpus().length} cores`,
    `  service level: 0 errors, deposit -> webhook p95 < ${SLO_WEBHOOK_MS} ms (each deposit step), API call p99 < ${SLO_API_MS} ms`,
  ];
  const figures: StepFigures[] = [];
  let best: number | null = null;
  let misses = 0;
  try {
    for (const rate of RATES) {
      receiver.seen.clear();
      log(`open loop: ${rate} journeys/s for ${STEP_SECONDS} s...`);
      const sampler = new Sampler(temporal, taskQueue);
      sampler.start();
      const { r, api, lateMs, drainMs, firstArrivalMs } = await openStep(rate, stack, key, receiver);
      const busy = sampler.stop();
      api.sort((a, b) => a - b);
      const sorted = (s: string) => [...r.steps.get(s)!].sort((a, b) => a - b);
      const p95s = DEPOSIT_STEPS.map((s) => pct(sorted(s), 95));
      const ok = r.errors === 0 && p95s.every((p) => p < SLO_WEBHOOK_MS) && pct(api, 99) < SLO_API_MS;
      if (ok) best = rate;
      misses = ok ? 0 : misses + 1;
      const from = out.length;
      await deliveriesDrained(endpointId);
      const window = { fromMs: firstArrivalMs, toMs: Date.now() };
      const checks = await check(r, endpointId, receiver);
      // Counted now, between steps: reading histories costs the Temporal server CPU the sampler no longer sees.
      let work: StepWork | null = null;
      let notCounted = '';
      try {
        const t0 = performance.now();
        const counted = await countStepWork(client, { payments: r.payments, links: r.links, endpointId, window });
        const each = perJourney(counted.work, r.started);
        work = each;
        log(
          `rate ${rate}: read the histories of ${counted.runs} workflow runs in ${((performance.now() - t0) / 1000).toFixed(1)} s; per journey: ` +
            (['payment', 'link', 'endpoint'] as const).map((k) => `${k} ${describeCounts(each[k])}`).join('; '),
        );
      } catch (e) {
        notCounted = String((e as Error).message ?? e).slice(0, 300);
      }
      const cpu = cpuPerJourney(sampler.cpuMsByGroup(), r.completed);
      out.push(
        '',
        `Rate ${rate} journeys/s: ${ok ? 'meets' : 'misses'} the service level`,
        `  journeys completed ${r.completed} of ${r.started}; errors ${r.errors}; arrivals at most ${lateMs.toFixed(0)} ms late; last journeys ended ${(drainMs / 1000).toFixed(1)} s after the last arrival`,
        `  API calls                    n ${String(api.length).padStart(6)}   p50 ${pct(api, 50).toFixed(0).padStart(6)} ms   p95 ${pct(api, 95).toFixed(0).padStart(6)} ms   p99 ${pct(api, 99).toFixed(0).padStart(6)} ms`,
      );
      for (const s of STEPS) {
        const v = sorted(s);
        out.push(
          `  ${s.padEnd(28)} n ${String(v.length).padStart(6)}   p50 ${pct(v, 50).toFixed(0).padStart(6)} ms   p95 ${pct(v, 95).toFixed(0).padStart(6)} ms   p99 ${pct(v, 99).toFixed(0).padStart(6)} ms`,
        );
      }
      out.push(
        ...busy,
        `  CPU per journey (ms)         ${describeCpu(cpu)}`,
        `  Temporal work per journey    ${work ? describeWork(work) : `not counted: ${notCounted}`}`,
      );
      for (const c of checks) out.push(`  ${c}`);
      for (const e of r.sampleErrors) out.push(`  error sample: ${e}`);
      log(out.slice(from).join('\n'));
      const [activate, pay] = [sorted('activate'), sorted('pay')].map((v) => ({ p50: pct(v, 50), p99: pct(v, 99) }));
      figures.push({ rate, ok, apiP99: pct(api, 99), activate, pay, depositP95: p95s, cpu, work });
      if (misses >= 2 && process.env.BENCH_LADDER_ALL !== '1') break;
    }
  } finally {
    await temporal.close();
  }
  out.push('', `Highest rate meeting the service level: ${best === null ? 'none of the rates run' : `${best} journeys/s`}`);
  let floorMs: number | null = null;
  if (process.env.BENCH_TEMPORAL_FLOOR !== '0') {
    const floor = await temporalFloor();
    floorMs = floorMsPerEmptyWorkflow(floor);
    out.push(
      '',
      `Temporal ${temporalKindFrom() === 'cluster' ? 'cluster' : 'dev server'} ceiling, same run (bench/temporal-floor.ts, its own server, after the ladder):`,
      ...floor,
    );
    out.push(
      '',
      `Temporal server CPU per journey in empty workflows of the floor (the floor's server CPU per empty workflow):`,
      ...figures.map(
        (f) =>
          `  rate ${f.rate} journeys/s: ${floorMs === null ? 'no floor figure in its report' : `Temporal CPU per journey = ${inEmptyWorkflows(f, floorMs)} empty workflows of the floor (${floorMs} ms each)`}`,
      ),
    );
  }
  out.push(
    '',
    `Summary, per journey (CPU ms per completed journey; Temporal work from the histories of its payment and link workflows and its share of the webhook endpoint's)${floorMs === null ? '; no floor figure (BENCH_TEMPORAL_FLOOR=0 or the floor failed), so no empty workflows' : ''}:`,
    ...summaryTable(figures, floorMs),
  );
  return out;
}

/** Runs bench/temporal-floor.js in its own process; returns its report lines. */
async function temporalFloor(): Promise<string[]> {
  log('Temporal floor (bench/temporal-floor.ts)...');
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(__dirname, 'temporal-floor.js'), `--temporal=${temporalKindFrom()}`],
      { maxBuffer: 1 << 20 },
      (err, stdout, stderr) => {
        resolve(
          err
            ? [`  failed: ${(stderr || err.message).slice(-500)}`]
            : stdout
                .trim()
                .split('\n')
                .map((l) => `  ${l}`),
        );
      },
    );
  });
}

runBench(
  {
    name: 'bench:load',
    tag: 'benchload',
    log,
    split: true,
    apis: APIS,
    workers: WORKERS,
    envOverrides: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' },
  },
  measure,
);
