/**
 * `npm run bench:quotes`: `POST /v1/quotes` latency with 32 concurrent callers while the sandbox
 * providers answer after configured latencies (issue 16 target: p95 within 1.3x of the slowest
 * provider's latency). Faults set for the bench account: native_fiat 40 ms, rampline 80 ms,
 * swapworks 60 ms, coinvia BENCH_SLOWEST_MS (200 ms); harbor is paused. Each request is a buy of
 * 250 USD for USDC on base (two providers quote, two answer no offer after their latency).
 *
 * Bare baseline, measured in the same run by the same 32 callers: a plain node:http server in this
 * process that answers each request after the slowest provider's latency (the fan-out's floor:
 * HTTP plus one timer of the slowest provider, no auth, validation, database or fan-out).
 * Env: BENCH_CALLERS (32), BENCH_REQUESTS (960), BENCH_SLOWEST_MS (200).
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DevCredentials } from '../activities/accounts/commands';
import type { Stack } from '../scripts/stack';
import { pct, runBench } from './harness';

const CALLERS = Number(process.env.BENCH_CALLERS ?? 32);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 960);
const SLOWEST = Number(process.env.BENCH_SLOWEST_MS ?? 200);
const log = (m: string) => process.stderr.write(`[bench:quotes] ${m}\n`);

/** Runs `REQUESTS` calls of `fn` with `CALLERS` in flight; latencies in ms, sorted. */
async function load(fn: () => Promise<void>): Promise<{ lat: number[]; seconds: number }> {
  const lat: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      while (next++ < REQUESTS) {
        const s = performance.now();
        await fn();
        lat.push(performance.now() - s);
      }
    }),
  );
  return { lat: lat.sort((a, b) => a - b), seconds: (performance.now() - t0) / 1000 };
}

async function measure(stack: Stack, creds: DevCredentials): Promise<void> {
  const faults: Record<string, number> = { native_fiat: 40, rampline: 80, swapworks: 60, coinvia: SLOWEST };
  for (const [p, ms] of Object.entries(faults)) {
    const r = await fetch(`${stack.apiUrl}/sim/providers/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ account_id: creds.account_id, name: `quotes.${p}.latency_ms`, value: String(ms) }),
    });
    if (!r.ok) throw new Error(`fault ${p}: ${r.status}`);
  }
  const body = JSON.stringify({ side: 'buy', from_asset: 'USD', to_asset: 'USDC', from_amount: '250.00', to_network: 'base' });
  const quote = async () => {
    const r = await fetch(`${stack.apiUrl}/v1/quotes`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': creds.live_key,
        'Idempotency-Key': `bench_${crypto.randomBytes(12).toString('hex')}`,
      },
      body,
    });
    const b = (await r.json()) as { offers?: unknown[] };
    if (r.status !== 201 || !b.offers || b.offers.length < 2)
      throw new Error(`POST /v1/quotes: ${r.status} ${JSON.stringify(b).slice(0, 300)}`);
  };
  log('warming up...');
  for (let i = 0; i < 20; i++) await quote();
  log(`product: ${REQUESTS} quotes, ${CALLERS} callers...`);
  const product = await load(quote);

  const bare = http.createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      setTimeout(() => {
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      }, SLOWEST),
    );
  });
  await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`;
  log('bare baseline...');
  const floor = await load(async () => {
    const r = await fetch(bareUrl, { method: 'POST', body });
    await r.text();
  });
  bare.close();

  const line = (name: string, m: { lat: number[]; seconds: number }) =>
    `  ${name.padEnd(52)} p50 ${pct(m.lat, 50).toFixed(0).padStart(4)} ms   p95 ${pct(m.lat, 95).toFixed(0).padStart(4)} ms   p99 ${pct(m.lat, 99).toFixed(0).padStart(4)} ms   ${(REQUESTS / m.seconds).toFixed(0)} req/s`;
  const p95 = pct(product.lat, 95);
  process.stdout.write(
    [
      '',
      `POST /v1/quotes with ${CALLERS} concurrent callers, ${REQUESTS} requests; slowest provider ${SLOWEST} ms (target p95 <= ${(SLOWEST * 1.3).toFixed(0)} ms):`,
      line('product (5 providers fanned out, quote stored)', product),
      line(`bare baseline (HTTP + one ${SLOWEST} ms timer)`, floor),
      `  product p95 / slowest provider: ${(p95 / SLOWEST).toFixed(2)}x   product p95 / baseline p95: ${(p95 / pct(floor.lat, 95)).toFixed(2)}x`,
      '',
    ].join('\n'),
  );
}

runBench({ name: 'bench:quotes', tag: 'bench-quotes', log }, measure);
