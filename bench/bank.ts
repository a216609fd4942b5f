/**
 * `npm run bench:bank`: bank-rail credit latency (issue 12), with the same harness and method as the
 * deposit latency of `npm run bench` (bench/run.ts): a throwaway stack (API and worker as separate
 * processes), then for BENCH_PAYMENTS SEPA payments of links settling to a bank address-book entry,
 * the time from `POST /sim/bank/credits` (the inbound transfer, exact amount) to `payment.paid`
 * committed in the outbox (seen through `LISTEN events`) and to the signed webhook received by a
 * local endpoint: p50 / p95 / max (target: outbox p95 < 500 ms).
 * Env: BENCH_PAYMENTS (60).
 */
import 'reflect-metadata';
import crypto from 'node:crypto';
import { Client as PgClient } from 'pg';
import type { DevCredentials } from '../activities/accounts/commands';
import type { Stack } from '../scripts/stack';
import { pct, runBench, startPaidReceiver } from './harness';

const PAYMENTS = Number(process.env.BENCH_PAYMENTS ?? 60);
const log = (m: string) => process.stderr.write(`[bench:bank] ${m}\n`);

async function measure(stack: Stack, creds: DevCredentials): Promise<void> {
  const idem = () => `bench_${crypto.randomBytes(12).toString('hex')}`;
  const post = async (path: string, body: unknown, auth: 'key' | 'session' | 'none' = 'key') => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (auth === 'key') headers['x-api-key'] = creds.live_key;
    if (auth === 'session') headers.authorization = `Bearer ${creds.session_token}`;
    if (auth !== 'none' || path.startsWith('/sim')) headers['Idempotency-Key'] = idem();
    const r = await fetch(`${stack.apiUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const b = (await r.json()) as any;
    if (r.status >= 300) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(b)}`);
    return b;
  };

  const adr = await post('/v1/address_book', { kind: 'bank', label: 'Bench EUR' }, 'session');
  await post(
    `/v1/address_book/${adr.id}/beneficiary`,
    { account_owner_type: 'business', account_holder_name: 'Bench SARL', rail: 'sepa', iban: 'FR1420041010050500013M02606' },
    'session',
  );

  const receiver = await startPaidReceiver();
  const webhookAt = receiver.paidAt;
  await post('/v1/webhook_endpoints', { url: receiver.url, event_types: ['payment.paid'] });
  const outboxAt = new Map<string, number>();
  const listener = new PgClient({ connectionString: stack.databaseUrl });
  await listener.connect();
  await listener.query('LISTEN events');
  listener.on('notification', (n) => {
    const now = performance.now();
    void listener.query('SELECT type, object_id FROM events WHERE id = $1', [n.payload]).then((r) => {
      if (r.rows[0]?.type === 'payment.paid') outboxAt.set(r.rows[0].object_id, now);
    });
  });

  log(`bank credit latency over ${PAYMENTS} SEPA payments...`);
  const toOutbox: number[] = [];
  const toWebhook: number[] = [];
  for (let i = 0; i < PAYMENTS; i++) {
    const l = await post('/v1/payment_links', {
      amount: { amount: '10000', currency: 'EUR', decimals: 2 },
      title: 'Bench bank link',
      settlement_destination: { address_book_id: adr.id },
    });
    const act = await post(`/v1/payment_links/${l.id}/activate`, { attestation_accepted: true });
    const token = String(act.url).split('/pay/')[1];
    const p = await post(`/v1/payment_sessions/${token}/payments`, { rail: 'sepa', payer_type: 'business' }, 'none');
    const bdi = p.bank_deposit_instructions;
    const t0 = performance.now();
    await post(
      '/sim/bank/credits',
      { rail: 'sepa', currency: 'EUR', amount: '10000', reference: bdi.reference, to_account: bdi.iban, sender_name: 'Bench Payer' },
      'none',
    );
    const end = Date.now() + 10000;
    while ((!outboxAt.has(p.id) || !webhookAt.has(p.id)) && Date.now() < end) await new Promise((r) => setTimeout(r, 2));
    if (!outboxAt.has(p.id) || !webhookAt.has(p.id))
      throw new Error(`payment ${p.id} did not reach payment.paid and its webhook within 10 s`);
    toOutbox.push(outboxAt.get(p.id)! - t0);
    toWebhook.push(webhookAt.get(p.id)! - t0);
  }
  await listener.end();
  receiver.close();
  toOutbox.sort((a, b) => a - b);
  toWebhook.sort((a, b) => a - b);
  const f = (n: number) => n.toFixed(1);
  process.stdout.write(
    [
      '',
      `Bank credit latency over ${PAYMENTS} SEPA payments (POST /sim/bank/credits -> ...):`,
      `  payment.paid in outbox   p50 ${f(pct(toOutbox, 50))} ms   p95 ${f(pct(toOutbox, 95))} ms   max ${f(toOutbox[toOutbox.length - 1])} ms   (target p95 < 500 ms)`,
      `  webhook received         p50 ${f(pct(toWebhook, 50))} ms   p95 ${f(pct(toWebhook, 95))} ms   max ${f(toWebhook[toWebhook.length - 1])} ms`,
      '',
    ].join('\n'),
  );
}

runBench({ name: 'bench:bank', tag: 'bench-bank', split: true, log }, measure);
