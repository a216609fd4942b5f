/**
 * One API instance's lifecycle for a load balancer and a rolling deploy (docs/decisions/
 * 0082-graceful-shutdown-and-readiness.md):
 * - `GET /readyz`: 200 `{ status: "ready", checks }` only while PostgreSQL and Temporal both answer
 *   within `READINESS_TIMEOUT_MS` and the instance is not draining; else 503 `{ status: "not_ready",
 *   draining, checks }` with `Retry-After: 5`. One probe at a time per instance, its answer reused
 *   for `PROBE_REUSE_MS`, so a probe storm costs the database one `SELECT 1` per half second.
 * - Draining (SIGTERM, `stopApi`): `/readyz` answers 503 at once; every response carries
 *   `Connection: close` so keep-alive clients reconnect to another instance.
 * `GET /healthz` stays a liveness probe: it answers while the process runs, draining or not.
 */
import type Koa from 'koa';
import { pingDatabase } from '../lib/db';
import { temporalClient } from '../temporal/client';

/** One dependency's probe result: `latency_ms` is the probe's round trip (ms). */
export interface ReadinessCheck {
  status: 'ok' | 'failing';
  latency_ms: number;
  error?: string;
}

/** The body of `/readyz`. */
export interface Readiness {
  status: 'ready' | 'not_ready';
  draining: boolean;
  checks: { postgres: ReadinessCheck; temporal: ReadinessCheck };
}

const READINESS_TIMEOUT_MS = 1000;
const PROBE_REUSE_MS = 500;

/** Per-instance state; `startApi` makes one per server, tests may make their own. */
export class Lifecycle {
  private drainingSince: number | null = null;
  private last: { at: number; checks: Readiness['checks'] } | null = null;
  private inFlight: Promise<Readiness['checks']> | null = null;

  /** True once `startDraining` ran. */
  get draining(): boolean {
    return this.drainingSince !== null;
  }

  /** Marks the instance draining (idempotent): `/readyz` 503, `Connection: close` on every response. */
  startDraining(): void {
    this.drainingSince ??= Date.now();
  }

  /** Probes PostgreSQL and Temporal (reusing a probe younger than 500 ms); never throws. */
  async readiness(): Promise<Readiness> {
    const checks = await this.checks();
    const ok = checks.postgres.status === 'ok' && checks.temporal.status === 'ok';
    return { status: ok && !this.draining ? 'ready' : 'not_ready', draining: this.draining, checks };
  }

  private async checks(): Promise<Readiness['checks']> {
    if (this.last && Date.now() - this.last.at < PROBE_REUSE_MS) return this.last.checks;
    this.inFlight ??= (async () => {
      const [postgres, temporal] = await Promise.all([
        probe(() => pingDatabase(READINESS_TIMEOUT_MS)),
        probe(async () => {
          const client = await temporalClient();
          await client.connection.withDeadline(Date.now() + READINESS_TIMEOUT_MS, () => client.workflowService.getSystemInfo({}));
        }),
      ]);
      const checks = { postgres, temporal };
      this.last = { at: Date.now(), checks };
      return checks;
    })().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  /** Middleware: `Connection: close` on every response once draining. */
  closeWhileDraining(): Koa.Middleware {
    return async (ctx, next) => {
      if (this.draining) ctx.set('Connection', 'close');
      await next();
      if (this.draining) ctx.set('Connection', 'close');
    };
  }
}

async function probe(fn: () => Promise<unknown>): Promise<ReadinessCheck> {
  const t0 = Date.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      fn(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${READINESS_TIMEOUT_MS} ms`)), READINESS_TIMEOUT_MS);
      }),
    ]);
    return { status: 'ok', latency_ms: Date.now() - t0 };
  } catch (e) {
    return { status: 'failing', latency_ms: Date.now() - t0, error: e instanceof Error ? e.message : String(e) };
  } finally {
    clearTimeout(timer);
  }
}
