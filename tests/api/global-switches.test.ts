/**
 * Global switches against a private copy of the product (spec 1 rule 5 "Operation status", 6):
 * the test-mode master switch, the `api_v1.events` and `api_v1.webhooks` resource switches and the
 * `api_v1.webhooks_delivery` switch. A switch is global to a deployment, so this file runs its own
 * stack (tests/helpers/stack.ts usePrivateStack) instead of flipping the shared one under the test
 * files running alongside.
 */
import { EventSource } from 'eventsource';
import { emitEvent } from '../../lib/outbox';
import { setSwitch } from '../../lib/switches';
import { db, transaction } from '../../lib/db';
import {
  API,
  call,
  client,
  connectDb,
  deliveryReaches,
  eventually,
  expectError,
  expectOk,
  newAccount,
  webhooksSettled,
} from '../helpers/api';
import { Receiver, testTls, verify } from '../helpers/receiver';
import { openStream, opened, type StreamClient } from '../helpers/sse';
import { usePrivateStack } from '../helpers/stack';

usePrivateStack('switches');

/** Flips a global switch and waits past the product's 2 s switch cache. */
async function flip(name: string, on: boolean): Promise<void> {
  await setSwitch(name, on);
  await new Promise((r) => setTimeout(r, 2300));
}

let receiver: Receiver;
const streams: StreamClient[] = [];
beforeAll(async () => {
  await connectDb();
  receiver = new Receiver({ tls: testTls() });
  await receiver.start();
});
afterEach(() => {
  for (const c of streams.splice(0)) c.close();
});
afterAll(async () => {
  await receiver?.stop();
});

describe('test mode (spec 1 rule 5)', () => {
  test('with the master switch off every test-mode call is 503 with Retry-After: 60; live calls are served', async () => {
    const a = await newAccount();
    try {
      await flip('test_mode', false);
      const r = await client(a.test_key).get('/v1/account');
      expectError(r, 503, 'temporarily_unavailable', 'test_mode_unavailable');
      expect(r.headers.get('retry-after')).toBe('60');
      expect((await client(a.live_key).get('/v1/account')).status).toBe(200);
    } finally {
      await flip('test_mode', true);
    }
    expect((await client(a.test_key).get('/v1/account')).status).toBe(200);
  });
});

describe('events and webhook endpoints (spec 6)', () => {
  test('answer 503 for events and endpoint routes while off', async () => {
    const a = await newAccount();
    const live = client(a.live_key);
    try {
      await setSwitch('api_v1.events', false);
      await flip('api_v1.webhooks', false);
      const r1 = await live.get('/v1/events');
      expectError(r1, 503, 'temporarily_unavailable');
      expect(r1.headers.get('retry-after')).toBe('60');
      expectError(await live.get('/v1/webhook_endpoints'), 503, 'temporarily_unavailable');
      expectError(await live.post('/v1/webhook_endpoints', { url: 'https://hooks.example.com/off' }), 503, 'temporarily_unavailable');
      expect(expectOk(await live.get('/v1/webhook_deliveries')).object).toBe('list');
    } finally {
      await setSwitch('api_v1.events', true);
      await flip('api_v1.webhooks', true);
    }
    expect(expectOk(await live.get('/v1/events')).object).toBe('list');
    expectOk(await live.post('/v1/webhook_endpoints', { url: 'https://hooks.example.com/on' }), 201);
  });

  test('the api_v1.events switch refuses new streams (503 + Retry-After) and closes open ones', async () => {
    const a = await newAccount();
    const c = openStream(API(), a.live_key);
    streams.push(c);
    await opened(c);
    try {
      await flip('api_v1.events', false);
      const res = await call('GET', '/v1/events/stream', undefined, { key: a.live_key });
      expectError(res, 503, 'temporarily_unavailable', 'switch_off');
      expect(res.headers.get('retry-after')).toBe('60');
      // The open stream is ended at the next heartbeat; the client's reconnect is refused and it stops.
      await eventually(async () => c.es.readyState === EventSource.CLOSED, 'open stream to be closed', 10000);
      expect(c.errors.some((e) => e.code === 503)).toBe(true);
    } finally {
      await flip('api_v1.events', true);
    }
  });
});

describe('webhook delivery (spec 6)', () => {
  test('holds deliveries while api_v1.webhooks_delivery is off (endpoints still register) and sends them promptly once it is on', async () => {
    const a = await newAccount();
    const accountId = a.account_id;
    const live = client(a.live_key);
    const target = receiver.path('held');
    const ep = expectOk(await live.post('/v1/webhook_endpoints', { url: target.url, event_types: ['order.created'] }), 201);
    let d: any;
    let eventId = '';
    let onAt = 0;
    try {
      await flip('api_v1.webhooks_delivery', false);
      // Registration is not gated by the delivery switch.
      const late = expectOk(await live.post('/v1/webhook_endpoints', { url: receiver.path('held-late').url }), 201);
      expect(late.enabled).toBe(true);
      d = expectOk(await live.post(`/v1/webhook_endpoints/${ep.id}/send_test_event`));
      eventId = await transaction((m) =>
        emitEvent(m, {
          accountId,
          livemode: true,
          type: 'order.created',
          objectType: 'order',
          objectId: 'ord_held',
          object: { id: 'ord_held', object: 'order' },
        }),
      );
      const fanned = await eventually(async () => {
        const r = expectOk(await live.get(`/v1/webhook_deliveries?event_id=${eventId}&endpoint_id=${ep.id}`)).data;
        return r.length === 1 ? r[0] : null;
      }, 'the held event to be fanned out');
      // Deterministic: the drain marks a delivery it holds (`held_at`) instead of sending it; once both
      // are marked, the drain has looked at them with the switch off and sent nothing.
      await eventually(
        async () =>
          Number(
            (
              await db().query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE id = ANY($1) AND held_at IS NOT NULL', [
                [d.id, fanned.id],
              ])
            )[0].n,
          ) === 2,
        'both deliveries held',
        20000,
      );
      expect(receiver.received(target.path)).toHaveLength(0);
      for (const id of [d.id, fanned.id]) {
        expect(expectOk(await live.get(`/v1/webhook_deliveries/${id}`))).toMatchObject({
          status: 'pending',
          attempt_count: 0,
          attempts: [],
        });
      }
    } finally {
      await setSwitch('api_v1.webhooks_delivery', true);
      onAt = Date.now();
    }
    const got = await eventually(
      async () => {
        const r = receiver.received(target.path);
        return r.length >= 2 ? r : null;
      },
      'both held deliveries',
      60000,
    );
    // The dispatcher nudges held deliveries: well before their own 30 s re-check.
    expect(Math.max(...got.map((r) => r.at)) - onAt).toBeLessThan(15_000);
    expect(got.map((r) => verify(ep.secret, r).id).sort()).toEqual([d.event_id, eventId].sort());
    await deliveryReaches(live, d.id, 'succeeded');
    await webhooksSettled(accountId); // deterministic: every delivery of the account exists and finished
    expect(receiver.received(target.path)).toHaveLength(2);
  }, 120_000);
});

describe('public eligibility (spec 4.6)', () => {
  test('closed (api_v1.eligibility off): 503 temporarily_unavailable eligibility_unavailable with Retry-After: 3600', async () => {
    const get = () => call('GET', '/v1/eligibility?country=US&customer_type=business', undefined, { key: null, idem: null });
    expectOk(await get());
    await flip('api_v1.eligibility', false);
    try {
      const r = await get();
      expectError(r, 503, 'temporarily_unavailable', 'eligibility_unavailable');
      expect(r.headers.get('retry-after')).toBe('3600');
    } finally {
      await flip('api_v1.eligibility', true);
    }
    expectOk(await get());
  });
});
