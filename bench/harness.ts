/**
 * The frame every benchmark shares: a throwaway stack (scripts/stack.ts; on the Temporal named by
 * `--temporal=dev|cluster`, printed first), this process's database
 * pool on it and a fresh account (as `npm run seed` makes), torn down whatever happens; the process
 * exits with `process.exitCode` (0 unless `measure` set it) when `measure` returns and 1 (with the stack trace) when it throws.
 */
import 'reflect-metadata';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { provisionAccount, type DevCredentials } from '../activities/accounts/commands';
import { closeDb, initDb } from '../lib/db';
import { startStack, type Stack } from '../scripts/stack';

/** Rate limits no benchmark should hit (requests per second per credential class). */
export const UNLIMITED = { RATE_LIMIT_BUSINESS_KEY: '1000000', RATE_LIMIT_ANONYMOUS: '1000000', RATE_LIMIT_PUBLIC_TOKEN: '1000000' };

/** Runs `measure` against a fresh stack; `name` prefixes the failure message. */
export function runBench(
  opts: {
    name: string;
    tag: string;
    split?: boolean;
    apis?: number;
    workers?: number;
    durable?: boolean;
    envOverrides?: NodeJS.ProcessEnv;
    log: (m: string) => void;
  },
  measure: (stack: Stack, creds: DevCredentials) => Promise<void>,
): void {
  const main = async (): Promise<void> => {
    const stack = await startStack({
      log: opts.log,
      tag: opts.tag,
      split: opts.split,
      apis: opts.apis,
      workers: opts.workers,
      durable: opts.durable,
      envOverrides: { ...UNLIMITED, ...(opts.envOverrides ?? {}) },
    });
    process.stdout.write(
      `[${opts.name}] Temporal: ${stack.temporalCluster ? `cluster ${stack.temporalCluster.serverVersion} (${stack.temporalCluster.services.map((x) => x.name).join(', ')}; PostgreSQL persistence and SQL visibility)` : 'dev server (Temporal CLI, SQLite)'} at ${stack.temporalAddress}\n`,
    );
    try {
      await initDb(stack.databaseUrl, 4);
      await measure(stack, await provisionAccount());
    } finally {
      await closeDb();
      await stack.stop();
    }
  };
  main()
    .then(() => process.exit(process.exitCode ?? 0))
    .catch((e) => {
      process.stderr.write(`[${opts.name}] failed: ${e instanceof Error ? e.stack : String(e)}\n`);
      process.exit(1);
    });
}

/** Nearest-rank percentile `p` (0-100] of an ascending `sorted` list; NaN when empty. */
export function pct(sorted: number[], percent: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((percent / 100) * sorted.length) - 1))] : NaN;
}

/** A local webhook receiver for latency benches: when each `payment.paid` arrived, by payment id. */
export interface PaidReceiver {
  url: string;
  paidAt: Map<string, number>;
  close(): void;
}

/**
 * Starts an http receiver on loopback that answers 204 and records `performance.now()` (ms) when
 * each `payment.paid` event arrives, keyed by the payment id (spec 6 event envelope).
 */
export async function startPaidReceiver(): Promise<PaidReceiver> {
  const paidAt = new Map<string, number>();
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      const now = performance.now();
      try {
        const e = JSON.parse(raw) as { type: string; data: { object: { id: string } } };
        if (e.type === 'payment.paid') paidAt.set(e.data.object.id, now);
      } catch {
        /* not an event: ignored */
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`, paidAt, close: () => server.close() };
}
