/**
 * The order workflow (workflows/order.ts) under the Java time-skipping test server with real
 * activities on real PostgreSQL (spec 2.10, 4.9, part 6 `order.*`; issue 16), driven as the outside
 * world drives it: the product's own Koa app in this process (its Temporal client is the test
 * server's) takes `POST /v1/quotes` and `POST /v1/orders`, and the quote provider is played through
 * `POST /sim/providers/orders/{id}`. Covered: an unpaid order expires at its payment deadline (a
 * card buy's hosted checkout, 30 minutes; a swap's self-custody deposit, 60 minutes): still
 * `awaiting_payment` a minute before, failed `payment_expired` at it, in workflow time; the happy
 * path (authorize, capture, then a delivery the provider never reports) completed by the workflow's
 * 10-minute poll; and a replay of every completed history.
 */
import { orderContract } from '../../contracts/order';
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { buildApp } from '../../api/app';
import { flushRequestLogs } from '../../api/middleware/request-log';
import { db } from '../../lib/db';
import { orderProviders } from '../../providers/order-providers';
import { eventually, expectOk, idem, newAccount, type Res } from '../helpers/api';
import { startWorkflowHarness, type WorkflowHarness } from '../helpers/temporal';
import {
  BEFORE_DEADLINE_MS,
  pendingTimer,
  runElapsedMs,
  runTimes,
  skipToRunOffset,
  skipToTime,
  TURN_SLACK_MS,
} from '../helpers/time-skipping';
import { deadline } from '../fixtures/deadlines';

let h: WorkflowHarness;
let env: TestWorkflowEnvironment;
let server: http.Server;
let base: string;
let key: string;
const MINUTE = 60_000;
/** Workflow ids that completed in this file: their histories are replayed at the end (determinism). */
const completed = new Set<string>();

beforeAll(async () => {
  h = await startWorkflowHarness();
  env = h.env;
  server = http.createServer(buildApp({ simulator: true }).callback());
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', () => res()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  key = (await newAccount()).live_key;
}, 600_000);

afterAll(async () => {
  await new Promise((res) => server?.close(res));
  await flushRequestLogs().catch(() => undefined);
  await h?.stop();
});

/** One request to the in-process app: the business key on /v1 (mutations with an Idempotency-Key), none on /sim. */
async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Res> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (path.startsWith('/v1/')) {
    headers['x-api-key'] = key;
    if (method === 'POST') headers['Idempotency-Key'] = idem();
  }
  const r = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null, headers: r.headers };
}
const evm = () => `0x${crypto.randomBytes(20).toString('hex')}`;
const order = async (id: string) => expectOk(await call('GET', `/v1/orders/${id}`));
const orderRow = async (id: string) =>
  (await db().query('SELECT created_at, checkout_expires_at, deposit_instructions FROM orders WHERE id = $1', [id]))[0];
const sim = async (id: string, action: string) => expectOk(await call('POST', `/sim/providers/orders/${id}`, { action }));
const result = async (id: string) => {
  const r = await env.client.workflow.getHandle(id).result();
  completed.add(id);
  return r;
};
/** Places an order for the `provider` offer of a quote for `quote`, delivered to a fresh address. */
async function place(quote: Record<string, unknown>, provider?: string) {
  const q = expectOk(await call('POST', '/v1/quotes', quote), 201);
  const offer = provider ? q.offers.find((o: { provider: { id: string } }) => o.provider.id === provider) : q.offers[0];
  expect(offer).toBeDefined();
  return expectOk(await call('POST', '/v1/orders', { offer_id: offer.offer_id, wallet_address: evm() }), 201);
}

test.each([
  [
    "a card buy's hosted checkout",
    deadline('order_checkout').ms / MINUTE,
    { side: 'buy', from_asset: 'EUR', to_asset: 'USDC', from_amount: '80', to_network: 'base', payment_method: 'card' },
    'rampline',
  ],
  [
    "a swap's self-custody deposit",
    deadline('order_deposit').ms / MINUTE,
    { side: 'swap', from_asset: 'USDC', to_asset: 'ETH', from_amount: '100', to_network: 'base' },
    undefined,
  ],
] as const)(
  'unpaid: %s closes at its deadline (%i minutes): awaiting_payment a minute before, failed payment_expired at it',
  async (_what, minutes, quote, provider) => {
    const o = await place(quote, provider);
    expect(o).toMatchObject({ status: 'awaiting_payment', money_state: 'never_authorized' });
    const r = await orderRow(o.id);
    const deadlineAt: Date = r.checkout_expires_at ?? new Date(r.deposit_instructions.expiresAt);
    // The deadline as workflow time after the run's start: the provider's deadline less created_at (the object clock, domain/object-clock.ts).
    const deadline = deadlineAt.getTime() - r.created_at.getTime();
    expect(Math.abs(deadline - minutes * MINUTE)).toBeLessThan(5_000);

    await skipToRunOffset(env, o.id, deadline - BEFORE_DEADLINE_MS);
    expect(await order(o.id)).toMatchObject({ status: 'awaiting_payment', money_state: 'never_authorized', failure_kind: null });
    // The skip may wake the workflow for a poll whose step runs in real time: wait until it rests again.
    await eventually(
      async () =>
        (await env.client.workflow.getHandle(o.id).query(orderContract.queries.waitingFor)).includes(`until ${deadlineAt.toISOString()}`),
      'the order to wait for its deadline',
    );

    expect(await result(o.id)).toBe('failed');
    const elapsed = await runElapsedMs(env, o.id);
    expect(elapsed).toBeGreaterThanOrEqual(deadline);
    expect(elapsed).toBeLessThanOrEqual(deadline + TURN_SLACK_MS);
    const got = await order(o.id);
    expect(got).toMatchObject({ status: 'failed', failure_kind: 'payment_expired', money_state: 'never_authorized' });
    expect(got).not.toHaveProperty('next_action');
    const types = expectOk(await call('GET', `/v1/orders/${o.id}/events`)).data.map((e: { type: string }) => e.type);
    expect(types).toEqual(expect.arrayContaining(['order.created', 'order.failed']));
  },
);

test('happy path: authorized and captured through /sim, then a delivery the provider never reports is found by the 10-minute poll', async () => {
  const o = await place(
    { side: 'buy', from_asset: 'USD', to_asset: 'USDC', from_amount: '300.00', to_network: 'base', payment_method: 'card' },
    'rampline',
  );
  const handle = env.client.workflow.getHandle(o.id);
  await sim(o.id, 'authorize');
  await eventually(async () => (await order(o.id)).money_state === 'hold_placed', 'hold_placed');
  await sim(o.id, 'capture');
  await eventually(async () => {
    const x = await order(o.id);
    return x.status === 'processing' && x.money_state === 'captured';
  }, 'processing');
  await eventually(
    async () => /^the provider rampline to deliver/.test(await handle.query(orderContract.queries.waitingFor)),
    'waiting for the delivery',
  );

  // The poll the workflow now waits on: set by the turn that applied the capture, 10 minutes from that turn's start.
  const poll = await eventually(() => pendingTimer(env, o.id), 'the poll timer');
  expect(poll.fireAtMs - poll.startedMs).toBeLessThanOrEqual(10 * MINUTE);
  expect(poll.fireAtMs - poll.startedMs).toBeGreaterThan(10 * MINUTE - TURN_SLACK_MS);
  const signals = async () => ((await handle.fetchHistory()).events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes).length;
  const signalled = await signals();

  // The provider delivers and reports nothing (no /sim call, no signal).
  const delivered = await orderProviders().act(o.id, 'complete', {});
  expect(delivered).toMatchObject({ state: 'completed' });
  await skipToTime(env, poll.fireAtMs - BEFORE_DEADLINE_MS);
  expect(await order(o.id)).toMatchObject({ status: 'processing', money_state: 'captured' });

  expect(await result(o.id)).toBe('completed');
  const { closeMs } = await runTimes(env, o.id);
  expect(closeMs).toBeGreaterThanOrEqual(poll.fireAtMs);
  expect(closeMs).toBeLessThanOrEqual(poll.fireAtMs + TURN_SLACK_MS);
  expect(await signals()).toBe(signalled);
  const done = await order(o.id);
  expect(done).toMatchObject({ status: 'completed', money_state: 'captured' });
  expect(done.payout_destination.tx_hash).toBe((delivered as { deliveryTxHash: string }).deliveryTxHash);
});

test('replay: every completed order history replays against the current workflow code without nondeterminism', async () => {
  expect(completed.size).toBe(3);
  const histories = await Promise.all(
    [...completed].map(async (workflowId) => ({ workflowId, history: await env.client.workflow.getHandle(workflowId).fetchHistory() })),
  );
  let n = 0;
  for await (const r of Worker.runReplayHistories(
    { workflowsPath: require.resolve('../../workflows'), replayName: 'order-replay' },
    histories,
  )) {
    expect(r.error).toBeUndefined();
    n++;
  }
  expect(n).toBe(3);
}, 120_000);
