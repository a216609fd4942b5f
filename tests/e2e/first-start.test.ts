/**
 * `npm start` on a fresh data directory answers before Temporal does (issue 38, decision 0095):
 * dist/scripts/up.js runs with a Temporal CLI held back by a gate file (standing in for the first
 * start's Go build). While it is held, the API, the docs, the simulator's reference and the payer
 * page answer, `/readyz` names Temporal as failing, and a whole crypto payment is accepted: link
 * created and activated, the payer's payment created, the full deposit sent on the simulated
 * chain. Then the gate opens: the worker starts, and the payment and its link settle with nothing
 * lost.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureTemporalCli } from '../../temporal/dev/bootstrap';
import { freePort } from '../../lib/ports';

const UP = path.resolve(__dirname, '../../dist/scripts/up.js');

/** Resolves when `pattern` appears in `out()`; rejects when the process ends first or after `ms`. */
function printed(p: ChildProcess, out: () => string, pattern: RegExp, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const tick = setInterval(() => {
      if (pattern.test(out())) {
        clearInterval(tick);
        resolve();
      } else if (p.exitCode !== null || Date.now() - started > ms) {
        clearInterval(tick);
        reject(new Error(`up.js never printed ${pattern} (exit ${p.exitCode}):\n${out().slice(-4000)}`));
      }
    }, 100);
  });
}

test('the API, docs and simulator answer while Temporal is held back; what they accepted settles once it is up', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'first-start-'));
  const gate = path.join(dir, 'gate');
  const cli = await ensureTemporalCli(() => undefined);
  const heldCli = path.join(dir, 'temporal');
  fs.writeFileSync(heldCli, `#!/bin/sh\nwhile [ ! -e '${gate}' ]; do sleep 0.1; done\nexec '${cli}' "$@"\n`, { mode: 0o755 });
  const [port, pgPort, metricsPort, temporalPort, uiPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: path.join(dir, 'data'),
    PORT: String(port),
    PG_PORT: String(pgPort),
    METRICS_PORT: String(metricsPort),
    TEMPORAL_PORT: String(temporalPort),
    TEMPORAL_UI_PORT: String(uiPort),
    TEMPORAL_CLI_PATH: heldCli,
    LOG_LEVEL: 'warn',
  };
  for (const k of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'APP_ENCRYPTION_KEY', 'METRICS_TOKEN', 'PAYER_HOST', 'STACK_TEMPORAL'])
    delete env[k];
  let out = '';
  const up = spawn(process.execPath, [UP], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  up.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
  });
  up.stderr!.on('data', (c: Buffer) => {
    out += c.toString();
  });
  const api = `http://127.0.0.1:${port}`;
  try {
    await printed(up, () => out, /Payments Platform is up/, 90_000);
    expect(fs.existsSync(gate)).toBe(false);
    const creds = JSON.parse(fs.readFileSync(path.join(dir, 'data', 'dev-credentials.json'), 'utf8')) as { live_key: string };
    const call = async (method: string, p: string, body?: unknown, key: string | null = creds.live_key) => {
      const r = await fetch(`${api}${p}`, {
        method,
        body: body === undefined ? undefined : JSON.stringify(body),
        headers: {
          ...(key ? { 'x-api-key': key } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json', 'Idempotency-Key': crypto.randomUUID() }),
        },
      });
      const text = await r.text();
      return {
        status: r.status,
        text,
        body: (() => {
          try {
            return JSON.parse(text);
          } catch {
            return null;
          }
        })(),
      };
    };
    /** The body of `res` when it has `status`; otherwise fails with what the API said. */
    const must = (res: { status: number; text: string; body: any }, status: number) => {
      if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text.slice(0, 500)}`);
      return res.body;
    };

    // Everything that needs no workflow answers at once.
    for (const p of ['/docs', '/docs/guides', '/docs/errors', '/sim/docs'])
      expect([p, (await call('GET', p, undefined, null)).status]).toEqual([p, 200]);
    expect(out).toContain(`${api}/docs`);
    expect(out).toContain(`${api}/sim/docs`);
    const ready = await call('GET', '/readyz', undefined, null);
    expect(ready.status).toBe(503);
    expect(ready.body.checks).toMatchObject({ postgres: { status: 'ok' }, temporal: { status: 'failing' } });

    // A whole crypto payment is accepted while Temporal is out.
    const payee = must(
      await call('POST', '/v1/clients', { display_name: 'Acme Corp', email: 'ap@acme.example', company: 'Acme Corp' }),
      201,
    );
    const link = must(
      await call('POST', '/v1/payment_links', {
        amount: { amount: '2500', currency: 'USD', decimals: 2 },
        invoice_number: 'INV-FIRST-START',
        client_id: payee.id,
        accepted_rail_kinds: ['crypto'],
      }),
      201,
    );
    const act = must(await call('POST', `/v1/payment_links/${link.id}/activate`, { attestation_accepted: true }), 200);
    expect(act.status).toBe('active');
    const token = String(act.url).split('/pay/')[1];
    must(await call('GET', `/pay/${token}`, undefined, null), 200);
    const pay = must(
      await call('POST', `/v1/payment_sessions/${token}/payments`, { rail: 'crypto_native', payer_email: 'payer@example.com' }, null),
      201,
    );
    const di = pay.deposit_instructions;
    must(
      await call(
        'POST',
        '/sim/chain/transfers',
        { chain: di.chain, to_address: di.address, asset: di.asset, amount: di.amount.amount },
        null,
      ),
      201,
    );
    expect(out).not.toContain('Temporal is up');

    // Temporal comes up: the worker starts what was recorded, and the money moves.
    fs.writeFileSync(gate, '');
    await printed(up, () => out, /Temporal is up: money journeys proceed\./, 90_000);
    const until = Date.now() + 60_000;
    let linkNow = (await call('GET', `/v1/payment_links/${link.id}`)).body;
    while (linkNow.status !== 'settled' && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 250));
      linkNow = (await call('GET', `/v1/payment_links/${link.id}`)).body;
    }
    expect(linkNow.status).toBe('settled');
    const payment = (await call('GET', `/v1/payments/${pay.id}`)).body;
    expect([payment.status, payment.amount_verdict, payment.amount_received.amount]).toEqual(['settled', 'exact', di.amount.amount]);
    expect((await call('GET', '/readyz', undefined, null)).status).toBe(200);
  } finally {
    const ended = new Promise((r) => up.once('exit', r));
    if (up.exitCode === null) up.kill('SIGTERM');
    await ended;
    fs.rmSync(dir, { recursive: true, force: true });
    // As root, embedded PostgreSQL keeps its files outside the data directory (scripts/up.ts pgDataDir).
    const pgDir = /initialising a new cluster in (\S+)\/pg\b/.exec(out)?.[1];
    if (pgDir) fs.rmSync(pgDir, { recursive: true, force: true });
  }
}, 300_000);
