/**
 * Readiness and graceful stop for a rolling deploy (issue 28; api/lifecycle.ts, api/main.ts `stopApi`,
 * worker.ts `runUntilStopped`; decision 0082), on real processes against the test database and
 * Temporal:
 * - `/readyz` answers 200 with both checks when PostgreSQL and Temporal answer; `/healthz` stays liveness.
 * - An API process sent SIGTERM answers `/readyz` 503 (draining) at once with `Connection: close`,
 *   still finishes a request in flight (a 2.5 s quote fan-out) with its normal answer, refuses new
 *   connections once its drain period ends, writes that request's log and exits 0.
 * - A worker process sent SIGTERM stops polling and exits 0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { db } from '../../lib/db';
import { freePort } from '../../lib/ports';
import { API, call, connectDb, idem, newAccount } from '../helpers/api';

const root = path.resolve(__dirname, '../..');

function spawnProduct(entry: string, env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [path.join(root, entry)], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += String(d);
  });
  child.stderr!.on('data', (d) => {
    out += String(d);
  });
  return { child, output: () => out };
}

const exited = (c: ChildProcess) =>
  new Promise<number | null>((r) => {
    if (c.exitCode !== null) r(c.exitCode);
    else c.once('exit', (code) => r(code));
  });

async function startApi(env: NodeJS.ProcessEnv): Promise<{ url: string; child: ChildProcess; output: () => string }> {
  const port = await freePort();
  const p = spawnProduct('dist/api/main.js', { PORT: String(port), HOST: '127.0.0.1', PAYER_HOST: `http://127.0.0.1:${port}`, ...env });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (p.child.exitCode !== null) throw new Error(`api exited early with ${p.child.exitCode}: ${p.output()}`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) return { url, ...p };
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error('api did not become ready');
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(connectDb);

test('/readyz: 200 with both checks while PostgreSQL and Temporal answer; /healthz is liveness', async () => {
  const r = await fetch(`${API()}/readyz`);
  expect(r.status).toBe(200);
  expect(r.headers.get('cache-control')).toBe('no-store');
  const body = (await r.json()) as any;
  expect(body).toMatchObject({ status: 'ready', draining: false, checks: { postgres: { status: 'ok' }, temporal: { status: 'ok' } } });
  expect(typeof body.checks.postgres.latency_ms).toBe('number');
  expect((await call('GET', '/healthz', undefined, { key: null })).body).toEqual({ ok: true });
});

test('SIGTERM on an API process: readyz 503 at once, the request in flight finishes, new connections refused, its log written, exit 0', async () => {
  const a = await newAccount();
  const api = await startApi({ SHUTDOWN_DRAIN_SECONDS: '1.5', SHUTDOWN_GRACE_SECONDS: '15', QUOTE_PROVIDER_DEADLINE_MS: '6000' });
  try {
    await call(
      'POST',
      '/sim/providers/faults',
      { account_id: a.account_id, name: 'quotes.coinvia.latency_ms', value: '2500' },
      { idem: null },
    );
    const t0 = Date.now();
    const inFlight = fetch(`${api.url}/v1/quotes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': a.live_key, 'idempotency-key': idem() },
      body: JSON.stringify({ side: 'swap', from_asset: 'USDC', to_asset: 'ETH', from_amount: '1000', to_network: 'base' }),
    });
    await new Promise((r) => setTimeout(r, 300));
    api.child.kill('SIGTERM');
    const code = exited(api.child);

    // Draining: not ready at once (the balancer stops sending), every answer closes its connection.
    let ready: Response | null = null;
    for (let i = 0; i < 20 && (!ready || ready.status !== 503); i++) {
      ready = await fetch(`${api.url}/readyz`);
      if (ready.status !== 503) await new Promise((r) => setTimeout(r, 50));
    }
    expect(ready!.status).toBe(503);
    expect(ready!.headers.get('connection')).toBe('close');
    expect(ready!.headers.get('retry-after')).toBe('5');
    expect(await ready!.json()).toMatchObject({ status: 'not_ready', draining: true });

    // The request in flight is answered as it would have been, after the signal.
    const res = await inFlight;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2400);
    expect(res.status).toBe(201);
    const quote = (await res.json()) as any;
    expect(quote.providers.find((p: any) => p.provider === 'coinvia')).toMatchObject({ status: 'quoted' });
    const requestId = res.headers.get('request-id')!;

    // Once the drain period is over the listener is closed: a new connection is refused (waited
    // for, not slept on: a loaded machine closes it later), and the process exits 0.
    const refusedBy = Date.now() + 30_000;
    let refused = false;
    while (!refused && Date.now() < refusedBy) {
      refused = await fetch(`${api.url}/healthz`).then(
        () => false,
        () => true,
      );
      if (!refused) await new Promise((r) => setTimeout(r, 100));
    }
    expect(refused).toBe(true);
    expect(await code).toBe(0);
    expect(api.output()).toContain('api stopped');
    // Its request log was written by the stop.
    expect(await db().query('SELECT status, path FROM request_logs WHERE id = $1', [requestId])).toEqual([
      { status: 201, path: '/v1/quotes' },
    ]);
  } finally {
    if (api.child.exitCode === null) api.child.kill('SIGKILL');
    await call(
      'POST',
      '/sim/providers/faults',
      { account_id: a.account_id, name: 'quotes.coinvia.latency_ms', value: null },
      { idem: null },
    );
  }
});

test('SIGTERM on a worker process: it stops polling and exits 0', async () => {
  const w = spawnProduct('dist/worker.js', { WORKER_SHUTDOWN_GRACE_SECONDS: '5' });
  try {
    const deadline = Date.now() + 60_000;
    while (!w.output().includes('worker started')) {
      if (w.child.exitCode !== null) throw new Error(`worker exited early: ${w.output()}`);
      if (Date.now() > deadline) throw new Error('worker did not start');
      await new Promise((r) => setTimeout(r, 200));
    }
    const t0 = Date.now();
    w.child.kill('SIGTERM');
    expect(await exited(w.child)).toBe(0);
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(w.output()).toContain('worker stopping');
    expect(w.output()).toContain('worker stopped');
  } finally {
    if (w.child.exitCode === null) w.child.kill('SIGKILL');
  }
});
