/**
 * `npm run bench:sse`: latency of `GET /v1/events/stream` (spec 6 stream) on this machine.
 * Starts a throwaway stack (scripts/stack.ts), provisions an account, connects BENCH_SSE_STREAMS
 * (default 50) real EventSource clients (npm `eventsource`) to its stream, then produces events
 * through the API (`POST /v1/payment_links` commits `payment_link.created` with its NOTIFY):
 * 1. paced: BENCH_SSE_EVENTS (default 200) creates, one every 50 ms;
 * 2. burst: the same number with 16 creates in flight at once.
 * Latency per frame = time the client received it - the event's `created_at` (the outbox row's
 * insert time, just before commit). Prints p50 / p95 / p99 / max over every (stream, event) pair
 * and frames missing. Target: p95 < 200 ms.
 */
import 'reflect-metadata';
import crypto from 'node:crypto';
import type { DevCredentials } from '../activities/accounts/commands';
import type { Stack } from '../scripts/stack';
import { pct, runBench } from './harness';
import { openStream, opened, type StreamClient } from '../scripts/sse-client';

const STREAMS = Number(process.env.BENCH_SSE_STREAMS ?? 50);
const EVENTS = Number(process.env.BENCH_SSE_EVENTS ?? 200);
const log = (m: string) => process.stderr.write(`[bench:sse] ${m}\n`);

async function measure(stack: Stack, creds: DevCredentials): Promise<void> {
  const clients: StreamClient[] = [];
  try {
    log(`connecting ${STREAMS} streams...`);
    for (let i = 0; i < STREAMS; i++) clients.push(openStream(stack.apiUrl, creds.live_key));
    await Promise.all(clients.map((c) => opened(c, 30000)));
    const headers = { 'x-api-key': creds.live_key, 'content-type': 'application/json' };
    const body = JSON.stringify({
      amount: { amount: '10000', currency: 'USD', decimals: 2 },
      title: 'SSE bench link',
      accepted_rail_kinds: ['crypto'],
    });
    const create = async () => {
      const r = await fetch(`${stack.apiUrl}/v1/payment_links`, {
        method: 'POST',
        headers: { ...headers, 'Idempotency-Key': `bench_${crypto.randomBytes(12).toString('hex')}` },
        body,
      });
      if (r.status !== 201) throw new Error(`create answered ${r.status}: ${await r.text()}`);
    };
    // Warm-up (JIT, pools), not measured.
    for (let i = 0; i < 10; i++) await create();
    await Promise.all(clients.map((c) => c.waitFor(10, 30000)));
    for (const c of clients) c.frames.length = 0;

    const phase = async (name: string, run: () => Promise<void>) => {
      for (const c of clients) c.frames.length = 0;
      await run();
      const deadline = Date.now() + 15000;
      while (Date.now() < deadline && clients.some((c) => c.frames.length < EVENTS)) await new Promise((r) => setTimeout(r, 50));
      const lat = clients.flatMap((c) => c.frames.map((f) => f.at - Date.parse(f.data.created_at))).sort((x, y) => x - y);
      const missing = clients.reduce((n, c) => n + Math.max(0, EVENTS - c.frames.length), 0);
      const dup = clients.reduce((n, c) => n + (c.frames.length - new Set(c.frames.map((f) => f.id)).size), 0);
      return {
        name,
        frames: lat.length,
        missing,
        duplicates: dup,
        p50: pct(lat, 50),
        p95: pct(lat, 95),
        p99: pct(lat, 99),
        max: lat[lat.length - 1],
      };
    };

    log(`paced: ${EVENTS} events, one every 50 ms...`);
    const paced = await phase('paced (20 events/s)', async () => {
      for (let i = 0; i < EVENTS; i++) {
        const t = Date.now();
        await create();
        await new Promise((r) => setTimeout(r, Math.max(0, 50 - (Date.now() - t))));
      }
    });
    log(`burst: ${EVENTS} events, 16 in flight...`);
    const burst = await phase('burst (16 creates in flight)', async () => {
      let next = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < EVENTS) {
            next += 1;
            await create();
          }
        }),
      );
    });

    const rows = [paced, burst];
    process.stdout.write(
      `\nSSE latency, event commit (events.created_at) -> frame received, ${STREAMS} streams, ${EVENTS} events per phase\n\n`,
    );
    process.stdout.write(
      '| phase | frames | missing | duplicates | p50 | p95 | p99 | max | target p95 < 200 ms |\n|---|---|---|---|---|---|---|---|---|\n',
    );
    for (const r of rows) {
      process.stdout.write(
        `| ${r.name} | ${r.frames} | ${r.missing} | ${r.duplicates} | ${r.p50} ms | ${r.p95} ms | ${r.p99} ms | ${r.max} ms | ${r.p95 < 200 && r.missing === 0 ? 'met' : '**not met**'} |\n`,
      );
    }
  } finally {
    for (const c of clients) c.close();
  }
}

runBench({ name: 'bench:sse', tag: 'bench-sse', log }, measure);
