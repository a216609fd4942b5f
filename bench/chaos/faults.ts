/**
 * The chaos harness's faults (issue 28), one at a time under load. Each `apply` injects its fault,
 * holds it for the window, lifts it, and resolves with when it was lifted and what it observed
 * along the way (lines for the report). Stack control is scripts/stack.ts (signals and restarts of
 * API instances and workers, PostgreSQL's fast and immediate shutdowns and SIGSTOP, the Temporal
 * dev server restarted on its SQLite file); provider faults go through `/sim/providers/faults` and
 * the simulator's callbacks; receivers misbehave through bench/journeys.ts `Receiver.mode`.
 */
import crypto from 'node:crypto';
import type { ProcessEnd, Stack } from '../../scripts/stack';
import { db } from '../../lib/db';
import type { ReceiverMode } from '../journeys';
import type { MixLoad } from './mix';
import { CUT_REQUESTS, type Tolerance } from './progress';
import type { Traffic } from './traffic';

/** What a fault sees. */
export interface FaultContext {
  stack: Stack;
  traffic: Traffic;
  mix: MixLoad;
  windowMs: number;
  short: boolean;
  log: (m: string) => void;
}

/** What a fault reports: when it was lifted, and its own observations. */
export interface FaultOutcome {
  liftedAt: number;
  notes: string[];
  ok: boolean;
}

/**
 * One fault of the harness. `clientsUnharmed`: the fault must fail no request a client would not
 * retry (no journey failed, no 500), part of its verdict. `tolerance`: the journey failures it may
 * cause without failing the run (bench/chaos/progress.ts; none when absent).
 */
export interface Fault {
  name: string;
  title: string;
  clientsUnharmed?: boolean;
  tolerance?: Tolerance;
  apply(ctx: FaultContext): Promise<FaultOutcome>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * SIGKILL of API instance 0 with creates in flight on it; each create is then sent again with the
 * same Idempotency-Key to instance 1 (twice): one answer, one object.
 */
const apiKill: Fault = {
  name: 'api-kill',
  title: 'SIGKILL of API instance 0 mid-request; clients retry on instance 1 with the same Idempotency-Key',
  tolerance: CUT_REQUESTS,
  async apply({ stack, traffic, mix, windowMs, log }) {
    const [a0, a1] = stack.apiUrls;
    const key = mix.creds.live_key;
    // Half are payment links (their idempotency record is written with the link, inline), half clients
    // (a claim before the handler, completed after it: a key whose request died answers 409
    // idempotency_failed once the claim's lease has passed).
    const probes = Array.from({ length: 8 }, (_, i) => ({
      idem: `chaos_probe_${crypto.randomBytes(8).toString('hex')}`,
      title: `probe ${Date.now()} ${i}`,
      link: i % 2 === 0,
    }));
    type Probe = (typeof probes)[number];
    const send = (api: string, p: Probe) =>
      fetch(`${api}${p.link ? '/v1/payment_links' : '/v1/clients'}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key, 'Idempotency-Key': p.idem },
        body: JSON.stringify(
          p.link
            ? { amount: { amount: '4200', currency: 'USD', decimals: 2 }, title: p.title, accepted_rail_kinds: ['crypto'] }
            : { display_name: p.title },
        ),
      }).then(
        async (r) => ({ status: r.status, body: (await r.json().catch(() => null)) as { id?: string } | null }),
        (e: Error) => ({ status: 0, body: { error: e.message } as never }),
      );
    const first = probes.map((p) => send(a0, p));
    await sleep(15);
    traffic.down.add(a0);
    const end = await stack.signalApi(0, 'SIGKILL');
    log(`api-kill: instance 0 killed (${end.signal})`);
    const firstAnswers = await Promise.all(first);
    // The instance comes back after the window, whatever the probes are waiting for.
    const back = (async () => {
      await sleep(windowMs);
      await stack.startApi(0);
      traffic.down.delete(a0);
      return Date.now();
    })();
    const lines = await Promise.all(
      probes.map(async (p, i) => {
        let again = await send(a1, p);
        // In flight elsewhere (a dead request's claim, until its lease ends), or a dependency hiccup.
        const settledFailed = (r: { status: number; body: unknown }) =>
          r.status === 409 && (r.body as { error?: { code?: string } } | null)?.error?.code === 'idempotency_failed';
        for (
          const until = Date.now() + 60_000;
          ((again.status === 409 && !settledFailed(again)) || again.status >= 500) && Date.now() < until;
        ) {
          await sleep(300);
          again = await send(a1, p);
        }
        const third = await send(a1, p);
        const [{ n }] = await db().query(
          p.link
            ? `SELECT count(*)::int AS n FROM payment_links WHERE title = $1`
            : `SELECT count(*)::int AS n FROM clients WHERE display_name = $1`,
          [p.title],
        );
        // A claim whose request died (not inline) answers 409 idempotency_failed once its lease has
        // passed: it may have taken effect, so it is never run twice; the client reconciles (at most
        // one object) and would retry under a new key.
        const reconcile = !p.link && settledFailed(again) && settledFailed(third) && n <= 1;
        const same =
          reconcile ||
          Boolean(
            again.body?.id &&
            again.body.id === third.body?.id &&
            (firstAnswers[i].status !== 201 || firstAnswers[i].body?.id === again.body.id),
          );
        const line = `probe ${i} (${p.link ? 'payment link' : 'client'}): on the killed instance ${firstAnswers[i].status || 'no answer'}, retried on instance 1 ${again.status} ${again.body?.id ?? ''}, again ${third.status} ${third.body?.id ?? ''}; objects: ${n}`;
        return { good: same && (n === 1 || reconcile), line, i };
      }),
    );
    const ok = lines.every((l) => l.good);
    const notes = [
      `idempotency probes: ${probes.length} creates (payment links and clients) in flight on the killed instance; ${ok ? 'each one answer and one object' : 'MISMATCH (below)'}`,
      ...lines.filter((l) => l.i < 2 || !l.good).map((l) => l.line),
    ];
    const liftedAt = await back;
    return { liftedAt, notes, ok };
  },
};

/** SIGKILL of worker `i` (or of every worker) for the window, then started again. */
const workerKill = (which: number[] | 'all', seconds?: number): Fault => ({
  name: which === 'all' ? 'workers-kill-all' : `worker-kill-${which.join(',')}`,
  title: which === 'all' ? `SIGKILL of both workers${seconds ? ` for ${seconds} s` : ''}` : `SIGKILL of worker ${which.join(',')}`,
  async apply({ stack, windowMs }) {
    const list = which === 'all' ? [0, 1] : which;
    for (const i of list) await stack.signalWorker(i, 'SIGKILL');
    await sleep(which === 'all' && seconds ? seconds * 1000 : windowMs);
    for (const i of list) stack.startWorker(i);
    return { liftedAt: Date.now(), notes: [], ok: true };
  },
});

/** PostgreSQL stopped by a fast or an immediate shutdown and started again. */
const pgRestart = (mode: 'fast' | 'immediate'): Fault => ({
  name: `pg-restart-${mode}`,
  title: `PostgreSQL restarted (${mode} shutdown) under load`,
  tolerance: CUT_REQUESTS,
  async apply({ stack, windowMs }) {
    if (!stack.postgres) throw new Error('PostgreSQL faults need the embedded cluster (unset DATABASE_URL)');
    const t0 = Date.now();
    await stack.postgres.restart(mode);
    const down = Date.now() - t0;
    await sleep(windowMs);
    return { liftedAt: t0 + down, notes: [`PostgreSQL down and back in ${down} ms`], ok: true };
  },
});

/** PostgreSQL frozen (SIGSTOP of the postmaster and every backend) for `seconds`, then SIGCONT. */
const pgPause = (seconds: number): Fault => ({
  name: 'pg-pause',
  title: `PostgreSQL paused (SIGSTOP) for ${seconds} s under load`,
  tolerance: CUT_REQUESTS,
  async apply({ stack }) {
    if (!stack.postgres) throw new Error('PostgreSQL faults need the embedded cluster (unset DATABASE_URL)');
    stack.postgres.freeze('pause');
    try {
      await sleep(seconds * 1000);
    } finally {
      stack.postgres.freeze('resume');
    }
    return { liftedAt: Date.now(), notes: [], ok: true };
  },
});

/**
 * The Temporal dev server stopped, left down `seconds`, and started again on its data file. Down
 * longer than the client's own gRPC retries (about 20 s), starts and signals are left to the
 * recovery sweep (temporal/outage.ts); the invariants then find every live row with its workflow.
 */
const temporalRestart = (seconds: number): Fault => ({
  name: 'temporal-restart',
  title: `Temporal stopped for ${seconds} s under load and restarted (the dev server on its SQLite file; a cluster: every service process, on its PostgreSQL)`,
  async apply({ stack }) {
    const t0 = Date.now();
    await stack.restartTemporal(seconds * 1000);
    const down = Date.now() - t0;
    return { liftedAt: t0 + down, notes: [`Temporal down and back in ${down} ms`], ok: true };
  },
});

/**
 * A Temporal cluster's own faults (`--temporal=cluster`, issue 37): one service process ended under
 * load and started again after the window. A history host SIGKILLed: its shards move to the other
 * host once membership notices (the other takes them over from PostgreSQL); the frontend or the
 * matching service restarted (SIGTERM): the SDK's clients and pollers reconnect.
 */
const clusterService = (service: string, signal: 'SIGKILL' | 'SIGTERM', title: string): Fault => ({
  name: `${service}-${signal === 'SIGKILL' ? 'kill' : 'restart'}`,
  title,
  async apply({ stack, windowMs }) {
    const cluster = stack.temporalCluster;
    if (!cluster) throw new Error('cluster faults need --temporal=cluster');
    const t0 = Date.now();
    await cluster.stopService(service, signal);
    const down = Date.now() - t0;
    await sleep(windowMs);
    const t1 = Date.now();
    await cluster.startService(service);
    return {
      liftedAt: Date.now(),
      notes: [`${service}: ${signal} took ${down} ms; down ${((t1 - t0) / 1000).toFixed(1)} s; back and serving in ${Date.now() - t1} ms`],
      ok: true,
    };
  },
});

/**
 * Providers failing through the `/sim` fault switches: the payout bridge and the fiat rail answer
 * late (past their callers' timeouts), duplicate and out-of-order callbacks (`MixLoad.providerChaos`),
 * and callbacks for references nobody knows.
 */
const providers: Fault = {
  name: 'providers',
  title: 'providers failing: late answers (timeouts), duplicate and out-of-order callbacks, unknown references',
  async apply({ traffic, mix, windowMs, short }) {
    const account = mix.creds.account_id;
    // Late, but inside the API's request budget (the idempotency claim's 30 s lease, lib/idempotency.ts).
    const delay = short ? '12000' : '15000';
    const set = (name: string, value: string | null) =>
      traffic.anon('POST', '/sim/providers/faults', { account_id: account, name, value }, { anonRetry: 'safe' });
    await set('bridge.create_delay_ms', delay);
    await set('fiat_rails.submit_delay_ms', delay);
    mix.providerChaos = true;
    const notes: string[] = [];
    let ok = true;
    // Callbacks for references nobody knows: refused (404) or recorded as unmatched, never a 500.
    const unknown: Array<[string, string, unknown]> = [
      ['rail callback', `/sim/providers/fiat_rails/payments/po_unknown${crypto.randomBytes(6).toString('hex')}`, { state: 'paid' }],
      ['bridge callback', `/sim/bridge/transfers/brt_unknown${crypto.randomBytes(6).toString('hex')}`, { state: 'delivered' }],
      [
        'bank credit, unknown reference',
        '/sim/bank/credits',
        {
          rail: 'sepa',
          currency: 'EUR',
          amount: '1234',
          reference: `UNKNOWN${crypto.randomBytes(4).toString('hex')}`,
          to_account: 'DE89370400440532013000',
        },
      ],
      [
        'chain transfer to an unknown address',
        '/sim/chain/transfers',
        { chain: 'tempo', asset: 'USDC', to_address: `0x${crypto.randomBytes(20).toString('hex')}`, amount: '1000000' },
      ],
    ];
    for (const [what, path, body] of unknown) {
      const r = await fetch(`${traffic.pick()}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await r.text();
      if (r.status >= 500) ok = false;
      notes.push(`${what}: ${r.status}${r.status >= 300 ? ` ${text.slice(0, 120)}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, windowMs));
    await set('bridge.create_delay_ms', null);
    await set('fiat_rails.submit_delay_ms', null);
    mix.providerChaos = false;
    return { liftedAt: Date.now(), notes, ok };
  },
};

/** Lateness of deliveries to `endpointId` of events created in [from, to): count and p50/p95 (ms, event commit to delivery). */
async function deliveryStats(endpointId: string, from: number, to: number): Promise<{ n: number; p50: number; p95: number }> {
  const [r] = await db().query(
    `
    SELECT count(*)::int AS n,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM d.delivered_at - e.created_at) * 1000) AS p50,
           percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM d.delivered_at - e.created_at) * 1000) AS p95
      FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
     WHERE d.endpoint_id = $1 AND d.status = 'succeeded' AND e.created_at >= to_timestamp($2 / 1000.0) AND e.created_at < to_timestamp($3 / 1000.0)`,
    [endpointId, from, to],
  );
  return { n: r.n, p50: Math.round(Number(r.p50 ?? NaN)), p95: Math.round(Number(r.p95 ?? NaN)) };
}

/**
 * The victim endpoint's receiver hangs, then answers slowly, then resets connections, then
 * redirects, a quarter of the window each; the fast endpoint's deliveries during the fault are
 * compared with the same length of time before it (rate and lateness).
 */
const webhooks: Fault = {
  name: 'webhook-receivers',
  title: 'a webhook receiver hangs, answers slowly, resets connections, redirects; the other endpoints keep their rate and latency',
  async apply({ mix, windowMs }) {
    const victim = mix.endpoints.victim.receiver;
    const fastId = mix.endpoints.fast.id;
    const t0 = Date.now();
    for (const mode of ['hang', 'slow', 'reset', 'redirect'] as ReceiverMode[]) {
      victim.mode = mode;
      victim.slowMs = 8000;
      await sleep(windowMs / 4);
    }
    victim.mode = 'fail'; // back to the failing receiver of the load
    const lifted = Date.now();
    await sleep(3000); // deliveries of the window's last events
    const before = await deliveryStats(fastId, t0 - (lifted - t0), t0);
    const during = await deliveryStats(fastId, t0, lifted);
    const rate = (s: { n: number }) => s.n / ((lifted - t0) / 1000);
    // Kept: at least half the rate (the load's own rhythm varies) and a p95 under 2 s more than before.
    const ok = during.n > 0 && rate(during) >= rate(before) * 0.5 && during.p95 <= before.p95 + 2000;
    return {
      liftedAt: lifted,
      ok,
      notes: [
        `fast endpoint before: ${before.n} deliveries (${rate(before).toFixed(1)}/s), p50 ${before.p50} ms, p95 ${before.p95} ms`,
        `fast endpoint during: ${during.n} deliveries (${rate(during).toFixed(1)}/s), p50 ${during.p50} ms, p95 ${during.p95} ms${ok ? '' : '  <- STARVED'}`,
      ],
    };
  },
};

/**
 * A rolling restart under load, as the runbook's rolling deploy does it (decision 0082), with the
 * harness's clients routing by `/readyz` (`Traffic.balance`): each API in turn gets SIGTERM, drains
 * and exits, is started again and waits for `/readyz` 200; then each worker gets SIGTERM and its
 * replacement starts at once while the old one finishes its activities. The verdict: every process
 * exited 0 within its deadline (none had to be killed), and no request failed that a client would
 * not retry (the report's failed journeys and 500s).
 */
const rolling: Fault = {
  name: 'rolling-restart',
  title: 'rolling restart (SIGTERM, drain, start) of both APIs, then both workers',
  clientsUnharmed: true,
  async apply({ stack, log }) {
    const notes: string[] = [];
    let ok = true;
    const verdict = (what: string, end: ProcessEnd) => {
      ok &&= !end.forced && end.code === 0;
      notes.push(
        `${what}: SIGTERM -> ${end.code !== null ? `exit ${end.code}` : end.signal} after ${end.ms} ms${end.forced ? ' (did not drain in time: SIGKILLed)' : ''}`,
      );
      log(notes[notes.length - 1]);
    };
    for (let i = 0; i < stack.apiUrls.length; i++) {
      verdict(`API ${i}`, await stack.signalApi(i, 'SIGTERM', 40_000));
      await stack.startApi(i);
      // The balancer routes to it again once its /readyz answers 200.
      for (const until = Date.now() + 30_000; Date.now() < until;) {
        if (
          (await fetch(`${stack.apiUrls[i]}/readyz`).then(
            (r) => r.status,
            () => 0,
          )) === 200
        )
          break;
        await sleep(250);
      }
    }
    for (let i = 0; i < 2; i++) {
      const ending = stack.signalWorker(i, 'SIGTERM', 60_000);
      stack.startWorker(i);
      verdict(`worker ${i}`, await ending);
    }
    return { liftedAt: Date.now(), notes, ok };
  },
};

/**
 * Every fault, in the order the harness applies them; `short` shortens the long windows; `cluster`
 * (a stack on the Temporal cluster) adds the cluster's own faults, and its PostgreSQL faults take
 * Temporal's persistence down with the product's.
 */
export function allFaults(short: boolean, cluster = false): Fault[] {
  return [
    apiKill,
    workerKill([0]),
    workerKill([1]),
    workerKill('all', short ? 6 : 30),
    pgRestart('fast'),
    pgRestart('immediate'),
    pgPause(short ? 6 : 20),
    temporalRestart(short ? 22 : 30),
    ...(cluster
      ? [
          clusterService(
            'history-0',
            'SIGKILL',
            'one history host SIGKILLed under load (its shards move to the other), started again after the window',
          ),
          clusterService('frontend', 'SIGTERM', 'the Temporal frontend restarted under load'),
          clusterService('matching', 'SIGTERM', 'the Temporal matching service restarted under load'),
        ]
      : []),
    providers,
    webhooks,
    rolling,
  ];
}
