/**
 * `npm run chaos` (issue 28): a private stack with two API processes and two workers, the mixed
 * load of bench/chaos/mix.ts, and one fault at a time (bench/chaos/faults.ts): the load starts, the
 * fault is injected and held for its window, lifted, the load runs on a little, stops and drains;
 * the harness waits for the product to settle, then checks the invariants (bench/chaos/invariants.ts)
 * and prints, per fault, the requests sent, the errors by status, the recovery times and the
 * invariant results (bench/chaos/report.ts). Exits 1 when any invariant or fault verdict fails, or
 * when the load did not make progress through a fault (bench/chaos/progress.ts: a floor of journeys
 * completed, no failed journey outside the fault's stated tolerance).
 *
 * `-- --short` (CI): windows of a few seconds and a small load, the whole run in a few minutes.
 * `-- --temporal=cluster`: the stack on the Temporal cluster (temporal/dev/cluster.ts), with the
 * cluster's own faults (a history host killed, the frontend and matching restarted).
 * Env: CHAOS_FAULTS (comma-separated names to run only those), CHAOS_CONCURRENCY, CHAOS_WINDOW_S.
 */
import 'reflect-metadata';
import { Agent, setGlobalDispatcher } from 'undici';
import type { DevCredentials } from '../activities/accounts/commands';
import { LIVE_DELIVERY_STATUSES } from '../domain/webhooks';
import { db } from '../lib/db';
import type { Stack } from '../scripts/stack';
import { runBench } from './harness';
import { allFaults, type Fault } from './chaos/faults';
import { checkInvariants } from './chaos/invariants';
import { MixLoad } from './chaos/mix';
import { progressVerdict } from './chaos/progress';
import { faultSection, summary, type FaultReport } from './chaos/report';
import { Traffic } from './chaos/traffic';

const SHORT = process.argv.includes('--short');
const CONCURRENCY = Number(process.env.CHAOS_CONCURRENCY ?? (SHORT ? 3 : 12));
const WINDOW_MS = Number(process.env.CHAOS_WINDOW_S ?? (SHORT ? 4 : 20)) * 1000;
const WARMUP_MS = SHORT ? 1500 : 10_000;
const AFTER_MS = SHORT ? 2000 : 15_000;
/** How long nothing may move before the invariants are read. */
const STILL_MS = SHORT ? 2000 : 3000;
const SETTLE_MAX_MS = SHORT ? 30_000 : 120_000;
const ONLY = process.env.CHAOS_FAULTS ? new Set(process.env.CHAOS_FAULTS.split(',')) : null;
const log = (m: string) => process.stderr.write(`[chaos] ${m}\n`);

setGlobalDispatcher(new Agent({ connections: 64, pipelining: 1, keepAliveTimeout: 10_000 }));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until nothing moves: no live webhook delivery to the endpoints that answer (the failing one
 * retries on its own schedule) and the counts of objects in flight unchanged for STILL_MS (at most SETTLE_MAX_MS).
 */
async function settle(failingEndpoint: string): Promise<void> {
  const end = Date.now() + SETTLE_MAX_MS;
  let last = '';
  let stableSince = Date.now();
  while (Date.now() < end) {
    const [r] = await db()
      .query(
        `SELECT
        (SELECT count(*) FROM webhook_deliveries WHERE status = ANY($1) AND endpoint_id <> $2) AS d,
        (SELECT count(*) FROM payments WHERE status IN ('awaiting', 'underpaid', 'paid', 'overpaid')) AS p,
        (SELECT count(*) FROM payouts WHERE status IN ('funds_received', 'processing', 'paid')) AS po,
        (SELECT count(*) FROM payroll_runs WHERE status IN ('funded', 'executing')) AS pr,
        (SELECT count(*) FROM wallet_send_intents WHERE status IN ('source_submitted', 'bridging_started')) AS s,
        (SELECT count(*) FROM wallet_offramp_intents WHERE status IN ('funds_received', 'payment_submitted')) AS o,
        (SELECT max(seq) FROM events) AS e`,
        [LIVE_DELIVERY_STATUSES, failingEndpoint],
      )
      .catch(() => [{}]);
    const now = JSON.stringify(r);
    if (now !== last) {
      last = now;
      stableSince = Date.now();
    }
    if (Date.now() - stableSince >= STILL_MS && Number(r.d ?? 1) === 0) return;
    await sleep(500);
  }
  log('settle: still moving after the settle deadline; checking anyway');
}

/** Runs one fault under load (module doc) and returns what it measured. */
async function runFault(fault: Fault, stack: Stack, traffic: Traffic, mix: MixLoad): Promise<FaultReport> {
  log(`fault ${fault.name}: ${fault.title}`);
  const from = traffic.attempts.length;
  const keysFrom = traffic.keysGivenUpInUse.length;
  const findingsFrom = traffic.findings.length;
  const loadStart = Date.now();
  let stopLoad!: () => void;
  const load = mix.run(
    CONCURRENCY,
    new Promise<void>((r) => {
      stopLoad = r;
    }),
  );
  await sleep(WARMUP_MS);
  const faultStart = Date.now();
  let outcome;
  try {
    outcome = await fault.apply({ stack, traffic, mix, windowMs: WINDOW_MS, short: SHORT, log });
  } catch (e) {
    outcome = { liftedAt: Date.now(), ok: false, notes: [`the fault could not be applied: ${(e as Error).message}`] };
  }
  log(`fault ${fault.name}: lifted after ${((outcome.liftedAt - faultStart) / 1000).toFixed(1)} s; load continues ${AFTER_MS / 1000} s`);
  await sleep(AFTER_MS);
  stopLoad();
  const loadEnd = Date.now();
  const mixResult = await load;
  log(`fault ${fault.name}: load drained in ${((Date.now() - loadEnd) / 1000).toFixed(1)} s; settling...`);
  await settle(mix.endpoints.victim.id);
  const attempts = traffic.attempts.slice(from);
  const firstOk = (after: number) => {
    const a = attempts.find((x) => x.at >= after && typeof x.status === 'number' && x.status >= 200 && x.status < 300);
    return a ? a.at - after : null;
  };
  const [wf] = await db().query(
    `SELECT (extract(epoch FROM min(created_at)) * 1000)::bigint AS at FROM events
      WHERE created_at >= to_timestamp($1 / 1000.0) AND type ~ '\\.(settled|paid|underpaid|payment_processed|completed|funds_received)$'`,
    [outcome.liftedAt],
  );
  // Keys a client gave up on while they were still "in use": what their claims look like now.
  const stuck = traffic.keysGivenUpInUse.slice(keysFrom);
  const claims: Array<{ key: string; route: string; state: string; age: number; status: number | null }> = stuck.length
    ? await db().query(
        `SELECT key, route, state, extract(epoch FROM now() - created_at)::int AS age, response_status AS status FROM idempotency_records WHERE key = ANY($1)`,
        [stuck],
      )
    : [];
  const claimNotes = claims.map(
    (c) => `key given up while in use: ${c.route} ${c.key}: now ${c.state}${c.status ? ` ${c.status}` : ''}, claimed ${c.age} s ago`,
  );
  // A process that ended on its own during the fault (a crash) is a finding (those the fault ended were
  // started again by it); it is started again so the next fault begins whole.
  const dead = await stack.revive();
  if (fault.clientsUnharmed) {
    const failed = Object.values(mixResult.failed).reduce((a, b) => a + b, 0);
    const errors500 = attempts.filter((a) => a.status === 500).length;
    if (failed || errors500) {
      outcome.ok = false;
      outcome.notes.push(`clients harmed: ${failed} journeys failed, ${errors500} answers 500`);
    } else outcome.notes.push('no request failed that a client would not retry');
  }
  const progress = progressVerdict(mixResult.ends, faultStart, CONCURRENCY, fault.tolerance);
  const checks = await checkInvariants(
    stack.temporalAddress,
    (['fast', 'slow', 'victim'] as const).map((n) => ({ name: n, endpointId: mix.endpoints[n].id, receiver: mix.endpoints[n].receiver })),
  );
  return {
    name: fault.name,
    title: fault.title,
    attempts,
    loadStart,
    faultStart,
    liftedAt: outcome.liftedAt,
    loadEnd,
    firstSuccessMs: firstOk(faultStart),
    recoveryMs: firstOk(outcome.liftedAt),
    workflowRecoveryMs: wf?.at ? Number(wf.at) - outcome.liftedAt : null,
    mix: mixResult,
    notes: [...outcome.notes, ...claimNotes],
    faultOk: outcome.ok,
    progress,
    checks: [
      { name: 'the load made progress through the fault', ok: progress.ok, detail: progress.detail },
      {
        name: 'every API and worker process alive',
        ok: dead.length === 0,
        detail: dead.length ? `ended on their own: ${dead.join(', ')}` : `${stack.apiUrls.length} APIs and 2 workers running`,
      },
      ...checks,
    ],
    findings: traffic.findings.slice(findingsFrom),
    durationMs: Date.now() - loadStart,
  };
}

async function measure(stack: Stack, creds: DevCredentials): Promise<void> {
  const t0 = Date.now();
  const traffic = new Traffic(stack.apiUrls, SHORT ? 50_000 : 120_000);
  const mix = new MixLoad(traffic, log);
  const stopBalancer = traffic.balance();
  await mix.setup(creds);
  const reports: FaultReport[] = [];
  try {
    for (const fault of allFaults(SHORT, stack.temporalKind === 'cluster').filter((f) => !ONLY || ONLY.has(f.name))) {
      const r = await runFault(fault, stack, traffic, mix);
      reports.push(r);
      process.stdout.write(`${faultSection(r).join('\n')}\n`);
    }
  } finally {
    stopBalancer();
    mix.close();
  }
  process.stdout.write(`${summary(reports, Date.now() - t0, SHORT).join('\n')}\n\n`);
  if (reports.some((r) => !r.faultOk || r.checks.some((c) => !c.ok))) process.exitCode = 1;
}

runBench(
  {
    // Durable PostgreSQL: an immediate shutdown is a crash, and with synchronous_commit off it would lose
    // commits the product had been told of (the harness's own setting, not a product fault).
    name: 'chaos',
    tag: 'chaos',
    log,
    split: true,
    apis: 2,
    workers: 2,
    durable: true,
    // A rolling deploy's settings (decision 0082): the API keeps serving 2 s with /readyz at 503 so the
    // balancer (Traffic.balance, polling every 500 ms) stops routing before the listener closes; a
    // stopping worker's activities get 10 s.
    envOverrides: {
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      SHUTDOWN_DRAIN_SECONDS: '2',
      SHUTDOWN_GRACE_SECONDS: '25',
      WORKER_SHUTDOWN_GRACE_SECONDS: '10',
    },
  },
  measure,
);
