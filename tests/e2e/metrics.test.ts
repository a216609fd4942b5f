/**
 * Issue 29 item 1 and 4 (decision 0085): after an e2e journey on a private stack (so no other test
 * file moves its counters), `GET /metrics` shows the counters and histograms moved by exactly the
 * right amounts: HTTP requests by operation, status class and caller kind, idempotent replays and
 * key reuse, rate-limit refusals, provider calls, webhook delivery attempts and lag, the sampled
 * gauges, and the Temporal SDK's own worker metrics in the same document. And `/metrics` on the
 * public port answers 404 to anyone without the scrape token, a merchant's secret key included.
 */
import { call, client, connectDb, eventually, expectError, expectOk, idem, newAccount, webhooksSettled } from '../helpers/api';
import { closeDb } from '../../lib/db';
import { Receiver } from '../helpers/receiver';
import { usePrivateStack } from '../helpers/stack';

usePrivateStack('metrics', { RATE_LIMIT_BUSINESS_KEY: '25', METRICS_SAMPLE_SECONDS: '1' });

// Plain http on loopback (WEBHOOKS_ALLOW_LOOPBACK): the private stack's certificate is not known at import time.
const receiver = new Receiver();
beforeAll(async () => {
  await receiver.start();
  await connectDb();
});
afterAll(async () => {
  await receiver.stop();
  await closeDb();
});

/** One scrape with the token, parsed to `name{labels}` -> value (labels as printed by prom-client). */
async function scrape(): Promise<{ text: string; value(name: string, labels?: Record<string, string>): number }> {
  const res = await fetch(`${process.env.TEST_API_URL}/metrics`, { headers: { Authorization: `Bearer ${process.env.METRICS_TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)/.exec(line);
    if (m) samples.set(`${m[1]}${m[2] ?? ''}`, Number(m[3]));
  }
  return {
    text,
    value(name, labels = {}) {
      // Sums every series of `name` whose labels include `labels`.
      let sum = 0;
      for (const [k, v] of samples) {
        const [n, rest] = k.includes('{') ? [k.slice(0, k.indexOf('{')), k.slice(k.indexOf('{'))] : [k, ''];
        if (n !== name) continue;
        if (Object.entries(labels).every(([lk, lv]) => rest.includes(`${lk}="${lv}"`))) sum += v;
      }
      return sum;
    },
  };
}

test('/metrics on the public port answers only to the scrape token', async () => {
  const acct = await newAccount();
  for (const headers of [
    {} as Record<string, string>,
    { Authorization: `Bearer ${acct.live_key}` },
    { Authorization: `Bearer ${acct.session_token}` },
    { Authorization: 'Bearer wrong-token-of-any-length' },
  ]) {
    const res = await fetch(`${process.env.TEST_API_URL}/metrics`, { headers });
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { type: string; code: string } };
    expect(body.error).toMatchObject({ type: 'not_found', code: 'not_found' });
  }
  // A merchant key on its usual header is not a scrape credential either.
  expectError(await call('GET', '/metrics', undefined, { key: acct.live_key }), 404, 'not_found', 'not_found');
  expect((await scrape()).text).toContain('# TYPE payments_http_requests_total counter');
});

test('a journey moves the counters and histograms by exactly what it did', async () => {
  const acct = await newAccount();
  const merchant = client(acct.live_key);
  const before = await scrape();
  const created = (caller: string, cls: string) => ({ operation: 'payment_links.create', status_class: cls, caller_kind: caller });

  // 3 creates (one replayed once, one key reused with another body), 1 invalid create, 2 reads.
  const key = idem();
  const body = { amount: { amount: '10000', currency: 'USD', decimals: 2 }, title: 'Metrics', accepted_rail_kinds: ['crypto'] };
  const first = expectOk(await merchant.post('/v1/payment_links', body, { idem: key }), 201);
  const replay = await merchant.post('/v1/payment_links', body, { idem: key });
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expectError(
    await merchant.post('/v1/payment_links', { ...body, title: 'Other' }, { idem: key }),
    409,
    'idempotency_error',
    'idempotency_key_reused',
  );
  expectOk(await merchant.post('/v1/payment_links', body), 201);
  expectOk(await merchant.post('/v1/payment_links', body), 201);
  expectError(
    await merchant.post('/v1/payment_links', { ...body, amount: { amount: '-1', currency: 'USD', decimals: 2 } }),
    400,
    'invalid_request',
  );
  expectOk(await merchant.get(`/v1/payment_links/${first.id}`));
  expectOk(await merchant.get(`/v1/payment_links/${first.id}`));

  // A webhook endpoint, then the link activated and paid on chain through the simulator: provider
  // calls (the chain), events, and a signed delivery that the receiver accepts.
  const hook = receiver.path('metrics');
  const ep = expectOk(await merchant.post('/v1/webhook_endpoints', { url: hook.url, event_types: [] }), 201);
  expect(ep.id).toMatch(/^whe_/);
  const activated = expectOk(await merchant.post(`/v1/payment_links/${first.id}/activate`, { attestation_accepted: true }));
  const token = String(activated.url).split('/pay/')[1];
  const pay = await call(
    'POST',
    `/v1/payment_sessions/${token}/payments`,
    { rail: 'crypto_native', payer_email: 'payer@example.com' },
    { idem: null },
  );
  expect(pay.status).toBe(201);
  // The payer pays the exact amount on chain (the simulator); the payment is detected and settled
  // to the merchant's wallet through the chain adapter (provider calls).
  const di = pay.body.deposit_instructions;
  const sent = await call(
    'POST',
    '/sim/chain/transfers',
    { chain: di.chain, to_address: di.address, asset: di.asset, amount: di.amount.amount },
    { idem: null },
  );
  expect(sent.status).toBeLessThan(300);
  // Polled through the payment (not the link: the link reads are counted below).
  await eventually(
    async () => ['paid', 'settled'].includes((await merchant.get(`/v1/payments/${pay.body.id}`)).body.status),
    'the payment paid',
    30_000,
  );
  // Over the business-key budget (RATE_LIMIT_BUSINESS_KEY=25 per second): a burst of 60 reads.
  const burst = await Promise.all(Array.from({ length: 60 }, () => merchant.get(`/v1/payment_links/${first.id}`)));
  const refused = burst.filter((r) => r.status === 429).length;
  const served = burst.filter((r) => r.status === 200).length;
  expect(refused).toBeGreaterThan(0);
  expect(refused + served).toBe(60);

  // Settled: the dispatcher is past every event and no delivery is live; the sampler (every second
  // here) has seen this stack's links and payment; the successful attempts counted equal the deliveries the
  // receiver got (the payment may still emit events after it is paid: the loop waits for quiet).
  let delivered = 0;
  const after = await eventually(
    async () => {
      await webhooksSettled(acct.account_id);
      delivered = receiver.received(hook.path).length;
      const s = await scrape();
      const succeeded =
        s.value('payments_webhook_delivery_attempts_total', { outcome: 'succeeded' }) -
        before.value('payments_webhook_delivery_attempts_total', { outcome: 'succeeded' });
      // A sample taken once the payment exists (so after the link's activation): one taken between
      // the links' creation and the payment counts three links and no payment.
      const sampled =
        s.value('payments_money_objects', { object: 'payment_link' }) >= 3 && s.value('payments_money_objects', { object: 'payment' }) >= 1;
      return delivered > 0 && succeeded === delivered && sampled ? s : null;
    },
    'the deliveries, and the sampled links and payment in the metrics',
    30_000,
  );
  const delta = (name: string, labels?: Record<string, string>) => after.value(name, labels) - before.value(name, labels);

  // RED by operation, status class and caller kind: exactly the requests made.
  expect(delta('payments_http_requests_total', created('business_key', '2xx'))).toBe(4); // 3 creates + 1 replay
  expect(delta('payments_http_requests_total', created('business_key', '4xx'))).toBe(2); // key reused + invalid
  expect(delta('payments_http_requests_total', { operation: 'payment_links.get', status_class: '2xx', caller_kind: 'business_key' })).toBe(
    2 + served,
  );
  expect(delta('payments_http_requests_total', { operation: 'payment_links.get', status_class: '4xx', caller_kind: 'business_key' })).toBe(
    refused,
  );
  expect(
    delta('payments_http_requests_total', {
      operation: 'payment_sessions.payments.create',
      status_class: '2xx',
      caller_kind: 'public_token',
    }),
  ).toBe(1);
  expect(delta('payments_http_request_duration_seconds_count', { operation: 'payment_links.create', status_class: '2xx' })).toBe(4);
  expect(delta('payments_http_request_duration_seconds_count', { operation: 'payment_links.create', status_class: '4xx' })).toBe(2);
  expect(delta('payments_http_request_duration_seconds_sum', { operation: 'payment_links.create', status_class: '2xx' })).toBeGreaterThan(
    0,
  );

  // Idempotency and rate limiting.
  expect(delta('payments_idempotency_outcomes_total', { operation: 'payment_links.create', outcome: 'replayed' })).toBe(1);
  expect(delta('payments_idempotency_outcomes_total', { operation: 'payment_links.create', outcome: 'key_reused' })).toBe(1);
  expect(delta('payments_rate_limit_refusals_total', { caller_kind: 'business_key' })).toBe(refused);

  // Provider calls: the payment's deposit address came from the chain adapter.
  expect(delta('payments_provider_calls_total', { provider: 'chain', outcome: 'ok' })).toBeGreaterThan(0);
  expect(delta('payments_provider_call_duration_seconds_count', { provider: 'chain' })).toBe(
    delta('payments_provider_calls_total', { provider: 'chain' }),
  );

  // Webhooks: one successful attempt per delivery the receiver got, its duration and its commit-to-receipt lag.
  expect(delta('payments_webhook_delivery_attempts_total', { outcome: 'succeeded' })).toBe(delivered);
  expect(delta('payments_webhook_delivery_attempts_total', { outcome: 'retrying' })).toBe(0);
  expect(delta('payments_webhook_delivery_attempt_duration_seconds_count', { outcome: 'succeeded' })).toBe(delivered);
  expect(delta('payments_webhook_delivery_lag_seconds_count')).toBe(delivered);

  // Sampled gauges: dependencies up, the outbox caught up, the new link counted by status.
  expect(after.value('payments_dependency_up', { dependency: 'postgresql' })).toBe(1);
  expect(after.value('payments_dependency_up', { dependency: 'temporal' })).toBe(1);
  // This stack's links: the paid one and two drafts (the count tables, decision 0077).
  expect(after.value('payments_money_objects', { object: 'payment_link', status: 'draft' })).toBe(2);
  expect(after.value('payments_money_objects', { object: 'payment_link' })).toBe(3);
  expect(after.value('payments_money_objects', { object: 'payment' })).toBe(1);
  expect(after.text).toContain('# TYPE payments_outbox_undispatched_events gauge');
  // Parked workflows per type from Temporal visibility (tests/workflows/parked-visibility.test.ts parks one): none here.
  expect(after.text).toMatch(/^payments_workflows_parked\{workflow_type="payoutWorkflow"\} 0$/m);
  expect(after.value('payments_workflows_parked')).toBe(0);
  expect(after.value('payments_outbox_oldest_undispatched_event_age_seconds')).toBeLessThan(60);

  // The Temporal SDK's worker metrics, in the same document and format.
  expect(after.text).toMatch(/^temporal_[a-z_]+_total\{/m);
  expect(after.value('temporal_workflow_completed_total') + after.value('temporal_workflow_task_queue_poll_succeed_total')).toBeGreaterThan(
    0,
  );
});
