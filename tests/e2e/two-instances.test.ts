/**
 * Beyond one machine (issue 17 item 4): a private stack with two API processes and two workers on
 * one PostgreSQL database and one Temporal server. Merchant journeys (create, activate, pay short,
 * top up, settled; webhooks received) alternate between the API instances. Each payment then has
 * exactly one workflow run, one settlement transfer at the chain provider, one event of each
 * kind and one delivery per event. One rate-limit budget per key holds across instances. An
 * Idempotency-Key sent to both instances at once creates one link.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { closeDb, db } from '../../lib/db';
import { connectDb, newAccount } from '../helpers/api';
import { startTestStack } from '../helpers/stack';

const RATE_LIMIT = 10;
let stack: Awaited<ReturnType<typeof startTestStack>>;
let apis: string[] = [];

beforeAll(async () => {
  stack = await startTestStack(
    'twoinst',
    (m) => process.stderr.write(`[twoinst] ${m}\n`),
    { RATE_LIMIT_BUSINESS_KEY: String(RATE_LIMIT) },
    { split: true, apis: 2, workers: 2 },
  );
  stack.apply(process.env);
  apis = stack.apiUrls;
  await connectDb();
}, 180_000);
afterAll(async () => {
  await closeDb();
  await stack?.stop();
}, 60_000);

/** One request; a 429 is retried after its Retry-After with the same Idempotency-Key, as a client should. */
async function call(
  api: string,
  key: string | null,
  method: string,
  path: string,
  body?: unknown,
  idempotencyKey?: string,
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) headers['x-api-key'] = key;
  if (key && method !== 'GET') headers['Idempotency-Key'] = idempotencyKey ?? `two_${crypto.randomBytes(12).toString('hex')}`;
  for (;;) {
    const r = await fetch(`${api}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await r.text();
    if (r.status === 429) {
      await new Promise((res) => setTimeout(res, Number(r.headers.get('retry-after') ?? 1) * 1000));
      continue;
    }
    return { status: r.status, body: text ? JSON.parse(text) : null };
  }
}

test('journeys alternate between two API instances and two workers; every payment settles once', async () => {
  const acct = await newAccount();
  const seen = new Map<string, number>();
  const arrived = new Set<string>();
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      seen.set(id, (seen.get(id) ?? 0) + 1);
      const e = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      arrived.add(`${e.type}:${e.data.object.id}`);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const ep = await call(apis[1], acct.live_key, 'POST', '/v1/webhook_endpoints', {
    url,
    event_types: ['payment.underpaid', 'payment.settled'],
  });
  expect(ep.status).toBe(201);
  const waitFor = async (key: string) => {
    const end = Date.now() + 60_000;
    while (!arrived.has(key)) {
      if (Date.now() > end) throw new Error(`no ${key} webhook within 60 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  const payments: string[] = [];
  const journey = async (i: number) => {
    const api = apis[i % 2];
    const other = apis[(i + 1) % 2];
    const link = await call(api, acct.live_key, 'POST', '/v1/payment_links', {
      amount: { amount: '1000', currency: 'USD', decimals: 2 },
      title: `Order ${i}`,
      accepted_rail_kinds: ['crypto'],
    });
    expect(link.status).toBe(201);
    const act = await call(other, acct.live_key, 'POST', `/v1/payment_links/${link.body.id}/activate`, { attestation_accepted: true });
    expect(act.status).toBe(200);
    const token = String(act.body.url).split('/pay/')[1];
    const pay = await call(api, null, 'POST', `/v1/payment_sessions/${token}/payments`, { rail: 'crypto_native' });
    expect(pay.status).toBe(201);
    payments.push(pay.body.id);
    const di = pay.body.deposit_instructions;
    const due = BigInt(di.amount.amount);
    const short = (due * 6n) / 10n;
    expect(
      (
        await call(other, null, 'POST', '/sim/chain/transfers', {
          chain: di.chain,
          to_address: di.address,
          asset: di.asset,
          amount: String(short),
        })
      ).status,
    ).toBe(201);
    await waitFor(`payment.underpaid:${pay.body.id}`);
    expect(
      (
        await call(api, null, 'POST', '/sim/chain/transfers', {
          chain: di.chain,
          to_address: di.address,
          asset: di.asset,
          amount: String(due - short),
        })
      ).status,
    ).toBe(201);
    await waitFor(`payment.settled:${pay.body.id}`);
  };
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < 24) await journey(next++);
    }),
  );
  receiver.close();

  expect(payments).toHaveLength(24);
  const settled = await db().query(`SELECT count(*)::int AS n FROM payments WHERE id = ANY($1) AND status = 'settled'`, [payments]);
  expect(settled[0].n).toBe(24);
  const transfers = await db().query(`SELECT idempotency_key FROM sandbox_chain_transfers WHERE idempotency_key = ANY($1)`, [
    payments.map((p) => `settle:${p}`),
  ]);
  expect(transfers).toHaveLength(24);
  const events = await db().query(
    `SELECT object_id, type, count(*)::int AS n FROM events WHERE object_id = ANY($1) AND type IN ('payment.underpaid', 'payment.paid', 'payment.settled') GROUP BY 1, 2`,
    [payments],
  );
  expect(events).toHaveLength(72);
  expect(events.every((e: { n: number }) => e.n === 1)).toBe(true);
  // The receiver answers before the drain records the outcome (results are written in batches
  // after the sends): wait until every delivery's outcome is recorded, not for a fixed time.
  const readDeliveries = async (): Promise<Array<{ n: number; ok: boolean }>> =>
    db().query(
      `SELECT event_id, count(*)::int AS n, bool_and(status = 'succeeded') AS ok FROM webhook_deliveries WHERE endpoint_id = $1 GROUP BY event_id`,
      [ep.body.id],
    );
  let deliveries = await readDeliveries();
  for (const until = Date.now() + 60_000; deliveries.some((d) => !d.ok) && Date.now() < until;) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    deliveries = await readDeliveries();
  }
  expect(deliveries).toHaveLength(48);
  expect(deliveries.every((d) => d.n === 1 && d.ok)).toBe(true);
  expect([...seen.values()].every((n) => n === 1)).toBe(true);

  // One workflow run per payment, whichever worker ran it.
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS });
  try {
    const temporal = new Client({ connection });
    for (const id of payments.slice(0, 6)) {
      const runs: string[] = [];
      for await (const w of temporal.workflow.list({ query: `WorkflowId = '${id}'` })) runs.push(w.runId);
      expect(runs).toHaveLength(1);
    }
  } finally {
    await connection.close();
  }
}, 300_000);

test('one rate-limit budget per key across both instances', async () => {
  const acct = await newAccount();
  // A fresh key: its first request starts its one-second window, and the burst fits inside it.
  const answers = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      fetch(`${apis[i % 2]}/v1/payment_links?limit=1`, { headers: { 'x-api-key': acct.live_key } }).then((r) => r.status),
    ),
  );
  const ok = answers.filter((s) => s === 200).length;
  const limited = answers.filter((s) => s === 429).length;
  expect(ok + limited).toBe(40);
  // Two instances each spending a budget of their own would let up to 2 x RATE_LIMIT through per window.
  expect(ok).toBeGreaterThan(0);
  expect(ok).toBeLessThanOrEqual(RATE_LIMIT + 1);
  expect(limited).toBeGreaterThan(0);
}, 60_000);

test('an Idempotency-Key sent to both instances at once creates one link', async () => {
  const acct = await newAccount();
  const key = `two_${crypto.randomBytes(12).toString('hex')}`;
  const body = { amount: { amount: '2500', currency: 'USD', decimals: 2 }, title: 'Twice' };
  const [a, b] = await Promise.all(apis.map((api) => call(api, acct.live_key, 'POST', '/v1/payment_links', body, key)));
  const created = [a, b].filter((r) => r.status === 201);
  expect(created.length).toBeGreaterThanOrEqual(1);
  for (const r of [a, b]) expect([201, 409]).toContain(r.status);
  const again = await Promise.all(apis.map((api) => call(api, acct.live_key, 'POST', '/v1/payment_links', body, key)));
  for (const r of again) {
    expect(r.status).toBe(201);
    expect(r.body.id).toBe(created[0].body.id);
  }
  const rows = await db().query('SELECT count(*)::int AS n FROM payment_links WHERE account_id = $1', [acct.account_id]);
  expect(rows[0].n).toBe(1);
}, 60_000);
