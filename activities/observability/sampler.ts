/**
 * Sampled gauges (decision 0085): every METRICS_SAMPLE_SECONDS (default 15) one
 * pass reads what a scrape must never scan for, and sets the gauges of lib/metrics.ts; a scrape
 * only reads memory.
 *
 * - Every process: `payments_dependency_up` (PostgreSQL `SELECT 1` and Temporal GetSystemInfo,
 *   1 s each).
 * - Workers (`business: true`):
 *   - outbox lag: events behind the dispatcher's cursor and the oldest one's age (an index range
 *     on `events.seq`, counted up to 1,000,000);
 *   - webhook endpoints failing (enabled, failures since their last success) or auto-disabled;
 *   - money objects by status: payments and payment links from their count tables (decision
 *     0077), the other objects' open statuses only (the partial indexes of the recovery sweeps),
 *     so no pass reads the terminal history;
 *   - parked workflows by type (temporal/visibility.ts: one visibility count per workflow type).
 * A failed pass keeps the last values and counts `payments_metrics_sample_failures_total`.
 */
import { sqlStatusList } from '../../domain/payments';
import { payoutTransitions } from '../../domain/payouts/statuses';
import { payrollItemTransitions, payrollRunTransitions } from '../../domain/payroll';
import { sendIntentTransitions } from '../../domain/wallet-sends';
import { offrampTransitions } from '../../domain/offramp';
import { orderTransitions } from '../../domain/orders';
import { subscriptionTransitions } from '../../domain/subscriptions';
import type { TransitionTable } from '../../domain/transitions';
import { loadConfig } from '../../lib/config';
import { db, pingDatabase } from '../../lib/db';
import { logger } from '../../lib/logger';
import {
  dependencyUp,
  moneyObjects,
  outboxBehind,
  outboxOldestAge,
  samplePassDuration,
  samplePassFailures,
  webhookEndpoints,
  workflowsParked,
} from '../../lib/metrics';
import { temporalClient } from '../../temporal/client';
import { countParkedWorkflows } from '../../temporal/visibility';

const PROBE_TIMEOUT_MS = 1000;

/** Objects whose open statuses are counted, by the `object` label: table and transition table. */
const OPEN_OBJECTS: ReadonlyArray<{ object: string; table: string; transitions: TransitionTable<string> }> = [
  { object: 'payout', table: 'payouts', transitions: payoutTransitions },
  { object: 'payroll_run', table: 'payroll_runs', transitions: payrollRunTransitions },
  { object: 'payroll_item', table: 'payroll_run_items', transitions: payrollItemTransitions },
  { object: 'wallet_send', table: 'wallet_send_intents', transitions: sendIntentTransitions },
  { object: 'wallet_offramp', table: 'wallet_offramp_intents', transitions: offrampTransitions },
  { object: 'order', table: 'orders', transitions: orderTransitions },
  { object: 'subscription', table: 'subscriptions', transitions: subscriptionTransitions },
];

/**
 * What a pass samples: `business` adds the worker's gauges; `parked` counts parked workflows per
 * type (default: temporal/visibility.ts `countParkedWorkflows` on the process's client; `false`: not sampled).
 */
export interface SamplerOptions {
  business: boolean;
  parked?: (() => Promise<Record<string, number>>) | false;
}

/** Sets `payments_dependency_up` from one probe of each dependency. Never throws. */
async function probeDependencies(): Promise<void> {
  const up = async (fn: () => Promise<unknown>) =>
    fn().then(
      () => 1,
      () => 0,
    );
  const [pg, temporal] = await Promise.all([
    up(() => pingDatabase(PROBE_TIMEOUT_MS)),
    up(async () => {
      const c = await temporalClient();
      await c.withDeadline(Date.now() + PROBE_TIMEOUT_MS, () => c.workflowService.getSystemInfo({}));
    }),
  ]);
  dependencyUp.set({ dependency: 'postgresql' }, pg);
  dependencyUp.set({ dependency: 'temporal' }, temporal);
}

/** Sets the outbox, webhook-endpoint and money-object gauges (module doc). Throws on a database error. */
async function sampleDatabase(): Promise<void> {
  const [outbox]: Array<{ behind: string; age: number | null }> = await db().query(
    `SELECT (SELECT count(*) FROM (SELECT 1 FROM events e WHERE e.seq > c.seq LIMIT 1000000) x)::text AS behind,
            (SELECT extract(epoch FROM now() - e.created_at) FROM events e WHERE e.seq > c.seq ORDER BY e.seq LIMIT 1)::float8 AS age
       FROM outbox_cursors c WHERE c.name = 'webhooks'`,
  );
  outboxBehind.set(Number(outbox?.behind ?? 0));
  outboxOldestAge.set(Math.max(0, outbox?.age ?? 0));

  const [endpoints]: Array<{ failing: string; disabled: string }> = await db().query(
    `SELECT count(*) FILTER (WHERE enabled AND consecutive_failures > 0)::text AS failing,
            count(*) FILTER (WHERE NOT enabled AND disabled_reason = 'auto_disabled_repeated_failures')::text AS disabled
       FROM webhook_endpoints WHERE deleted_at IS NULL`,
  );
  webhookEndpoints.set({ state: 'failing' }, Number(endpoints?.failing ?? 0));
  webhookEndpoints.set({ state: 'disabled' }, Number(endpoints?.disabled ?? 0));

  const counted: Array<{ object: string; status: string; n: string }> = await db().query(
    `SELECT 'payment' AS object, status, sum(n)::text AS n FROM payment_counts GROUP BY status
     UNION ALL SELECT 'payment_link', status, sum(n)::text FROM payment_link_counts GROUP BY status
     ${OPEN_OBJECTS.map((o) => `UNION ALL SELECT '${o.object}', status, count(*)::text FROM ${o.table} WHERE status IN (${sqlStatusList(o.transitions.open)}) GROUP BY status`).join('\n     ')}`,
  );
  // Every open status of the counted tables is set (0 when none), so a drained pile reads 0, not its last value.
  moneyObjects.reset();
  for (const o of OPEN_OBJECTS) for (const s of o.transitions.open) moneyObjects.set({ object: o.object, status: s }, 0);
  for (const r of counted) moneyObjects.set({ object: r.object, status: r.status }, Number(r.n));
}

/** One sampling pass; `business` adds the worker's gauges. Never throws (a failure is counted and logged). */
export async function samplePass(opts: SamplerOptions): Promise<void> {
  const t0 = process.hrtime.bigint();
  try {
    await probeDependencies();
    if (opts.business) {
      await sampleDatabase();
      if (opts.parked !== false) {
        const parked = await (opts.parked ?? (async () => countParkedWorkflows(await temporalClient())))();
        workflowsParked.reset();
        for (const [type, n] of Object.entries(parked)) workflowsParked.set({ workflow_type: type }, n);
      }
    }
  } catch (err) {
    samplePassFailures.inc();
    logger.warn({ err }, 'metrics sampling pass failed; gauges keep their last values');
  } finally {
    samplePassDuration.set(Number(process.hrtime.bigint() - t0) / 1e9);
  }
}

/** Runs `samplePass(opts)` now and every METRICS_SAMPLE_SECONDS; returns the function that stops it. Does nothing when metrics are off. */
export function startMetricsSampler(opts: SamplerOptions): () => void {
  const { enabled, sampleSeconds } = loadConfig().metrics;
  // One sampler per process: the API's (dependencies only) adds nothing beside a worker's (api/serve.ts runs both).
  if (!enabled || (running && (running.business || !opts.business))) return () => undefined;
  running?.stop();
  const me = { business: opts.business, stop: () => undefined as void };
  running = me;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  const run = async () => {
    await samplePass(opts);
    if (!stopped) {
      timer = setTimeout(() => void run(), sampleSeconds * 1000);
      timer.unref();
    }
  };
  me.stop = () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    if (running === me) running = null;
  };
  void run();
  return me.stop;
}

let running: { business: boolean; stop: () => void } | null = null;
