/**
 * Activity tier, webhooks (activities/webhooks: `webhookEndpointWorkflowActivities.drainEndpoint`
 * and the attempt records it writes, ./record.ts): one drain of one endpoint at the workflow's
 * clock, in MockActivityEnvironment, on real PostgreSQL, to a local receiver. Proves the delivery
 * attempt record (attempt row, delivery status, next attempt time from the retry schedule), the
 * summary the endpoint workflow plans its next wake-up with (live, due, nextDueAtMs, failing),
 * that a not-yet-due delivery is not sent, that a repeated attempt record is written once, the
 * heartbeats, the refill of deliveries that become due during a call, closing on a disabled endpoint
 * and the auto-disable after repeated failures. And the wake-ups (./signals.ts): one `deliver` per
 * endpoint however many of its deliveries a dispatch pass created.
 *
 * The endpoint, its event and deliveries are rows written here (the event already dispatched), so
 * the shared stack's dispatcher and workflows never touch them.
 */
import crypto from 'node:crypto';
import { provisionAccount } from '../../activities/accounts/commands';
import { drainEndpoint, IDLE_WAIT_MS, REFILL_FOR_MS } from '../../activities/webhooks/drain';
import { announceDeliveries, DELIVERIES_CHANNEL, markDrainReading } from '../../activities/webhooks/delivery-wake';
import { startNotifyListener, stopNotifyListener } from '../../lib/notify';
import { recordAttempts } from '../../activities/webhooks/record';
import { retryDelayAfter, WEBHOOK_MAX_ATTEMPTS } from '../../domain/webhook-schedule';
import { AUTO_DISABLE_CONSECUTIVE_FAILURES } from '../../domain/webhooks';
import { db } from '../../lib/db';
import { newId } from '../../lib/ids';
import { encrypt } from '../../lib/secrets';
import { wakeEndpointsOf } from '../../activities/webhooks/signals';
import {
  activityEnv,
  callsFor,
  count,
  describeWithDb,
  eventTypes,
  row,
  runActivity,
  runWithHeartbeats,
  useActivityTier,
} from '../helpers/activity-env';
import { Receiver, verify, type Reply } from '../helpers/receiver';

const receiver = new Receiver();

/** An endpoint of a fresh account at a receiver path answering `replies`, with one already-dispatched event and its pending delivery. */
async function seed(replies: Reply[], o: { consecutiveFailures?: number; attemptCount?: number; status?: string } = {}) {
  const creds = await provisionAccount();
  const { url, path } = receiver.path('hook', replies);
  const secret = `whsec_${crypto.randomBytes(24).toString('base64')}`;
  const endpointId = newId('whe_');
  const eventId = newId('evt_');
  const deliveryId = newId('whd_');
  await db().query(
    `INSERT INTO webhook_endpoints(id, account_id, livemode, url, event_types, enabled, secret_ciphertext, secret_prefix, consecutive_failures)
     VALUES ($1,$2,true,$3,'{payment_link.paid}',true,$4,$5,$6)`,
    [endpointId, creds.account_id, url, encrypt(secret), secret.slice(0, 10), o.consecutiveFailures ?? 0],
  );
  await db().query(
    `INSERT INTO events(id, account_id, livemode, type, object_type, object_id, data, api_version, dispatched_at)
     VALUES ($1,$2,true,'payment_link.paid','payment_link','pl_activity_tier',$3,'2026-09-04', now())`,
    [eventId, creds.account_id, JSON.stringify({ object: { id: 'pl_activity_tier', object: 'payment_link', status: 'paid' } })],
  );
  await db().query(
    `INSERT INTO webhook_deliveries(id, account_id, livemode, endpoint_id, event_id, event_type, status, attempt_count, workflow_started_at)
     VALUES ($1,$2,true,$3,$4,'payment_link.paid',$5,$6, now())`,
    [deliveryId, creds.account_id, endpointId, eventId, o.status ?? 'pending', o.attemptCount ?? 0],
  );
  return { endpointId, eventId, deliveryId, secret, path };
}

const attempts = (deliveryId: string): Promise<Array<{ attempt_number: number; status_code: number | null; error: string | null }>> =>
  db().query('SELECT attempt_number, status_code, error FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempt_number', [
    deliveryId,
  ]);

describeWithDb('webhook endpoint activities', () => {
  useActivityTier();
  beforeAll(async () => {
    await receiver.start();
  });
  afterAll(async () => {
    await receiver.stop();
  });

  test('a due delivery answered 200: one signed POST (webhook-id = event id), attempt 1 recorded, delivery succeeded, nothing left; the drain heartbeats', async () => {
    const s = await seed([]);
    const { result, heartbeats } = await runWithHeartbeats(activityEnv(), drainEndpoint, s.endpointId, Date.now());
    expect(result).toEqual({
      state: 'open',
      closedReason: null,
      sent: 1,
      succeeded: 1,
      retrying: 0,
      failed: 0,
      cancelled: 0,
      live: 0,
      due: 0,
      nextDueAtMs: null,
      failing: [],
    });
    expect(heartbeats.length).toBeGreaterThanOrEqual(1);
    const got = receiver.received(s.path);
    expect(got).toHaveLength(1);
    expect(got[0].headers['webhook-id']).toBe(s.eventId);
    expect(verify(s.secret, got[0])).toMatchObject({ id: s.eventId, type: 'payment_link.paid' });
    expect(await attempts(s.deliveryId)).toEqual([{ attempt_number: 1, status_code: 200, error: null }]);
    expect(await row('webhook_deliveries', s.deliveryId)).toMatchObject({
      status: 'succeeded',
      attempt_count: 1,
      last_status_code: 200,
      next_attempt_at: null,
    });
  });

  /** Inserts one more already-dispatched event of endpoint `endpointId` and its pending delivery; returns the event id. */
  async function addDelivery(endpointId: string): Promise<string> {
    const [{ account_id }] = await db().query('SELECT account_id FROM webhook_endpoints WHERE id = $1', [endpointId]);
    const eventId = newId('evt_');
    await db().query(
      `INSERT INTO events(id, account_id, livemode, type, object_type, object_id, data, api_version, dispatched_at)
       VALUES ($1,$2,true,'payment_link.paid','payment_link','pl_activity_tier',$3,'2026-09-04', now())`,
      [eventId, account_id, JSON.stringify({ object: { id: 'pl_activity_tier', object: 'payment_link', status: 'paid' } })],
    );
    await db().query(
      `INSERT INTO webhook_deliveries(id, account_id, livemode, endpoint_id, event_id, event_type, status, workflow_started_at)
       VALUES ($1,$2,true,$3,$4,'payment_link.paid','pending', now())`,
      [newId('whd_'), account_id, endpointId, eventId],
    );
    return eventId;
  }

  test('refill: a delivery that becomes due while the call sends goes out in the same call, after the first, once', async () => {
    let endpointId = '';
    let second = '';
    const s = await seed([
      {
        before: async () => {
          second = await addDelivery(endpointId);
        },
      },
    ]);
    endpointId = s.endpointId;
    expect(await runActivity(drainEndpoint, s.endpointId, Date.now())).toMatchObject({
      state: 'open',
      sent: 2,
      succeeded: 2,
      live: 0,
      due: 0,
    });
    expect(receiver.received(s.path).map((r) => r.headers['webhook-id'])).toEqual([s.eventId, second]);
  });

  test('idle wait: a delivery the dispatcher announces (NOTIFY webhook_deliveries) after the call sent all it took goes out in the same call; without one the call returns after IDLE_WAIT_MS', async () => {
    await startNotifyListener(process.env.DATABASE_URL!);
    let endpointId = '';
    let second = '';
    const s = await seed([
      {
        before: async () => {
          setTimeout(
            () =>
              void (async () => {
                second = await addDelivery(endpointId);
                await db().query('SELECT pg_notify($1, $2)', [DELIVERIES_CHANNEL, `whe_other,${endpointId}`]); // as another worker's dispatcher does
              })(),
            150,
          );
        },
      },
    ]);
    endpointId = s.endpointId;
    const t0 = Date.now();
    expect(await runActivity(drainEndpoint, s.endpointId, Date.now())).toMatchObject({
      state: 'open',
      sent: 2,
      succeeded: 2,
      live: 0,
      due: 0,
    });
    expect(receiver.received(s.path).map((r) => r.headers['webhook-id'])).toEqual([s.eventId, second]);
    // It returned once the idle wait after the second round ran out (about 150 ms + 2 idle waits), not
    // at the end of the refill window: a return at its end takes REFILL_FOR_MS at least, whatever the load.
    expect(Date.now() - t0).toBeLessThan(REFILL_FOR_MS);

    const quiet = await seed([]);
    const t1 = Date.now();
    expect(await runActivity(drainEndpoint, quiet.endpointId, Date.now())).toMatchObject({ state: 'open', sent: 1, live: 0 });
    expect(Date.now() - t1).toBeGreaterThanOrEqual(IDLE_WAIT_MS - 20);
    await stopNotifyListener();
  });

  test('refill stops when the endpoint is disabled meanwhile: the delivery that became due is left for the next call', async () => {
    let endpointId = '';
    const s = await seed([
      {
        before: async () => {
          await addDelivery(endpointId);
          await db().query('UPDATE webhook_endpoints SET enabled = false WHERE id = $1', [endpointId]);
        },
      },
    ]);
    endpointId = s.endpointId;
    expect(await runActivity(drainEndpoint, s.endpointId, Date.now())).toMatchObject({ state: 'open', sent: 1, live: 1, due: 1 });
    expect(receiver.received(s.path)).toHaveLength(1);
  });

  test('a 503: retrying with next_attempt_at = workflow clock + the first retry delay; the summary tells the workflow when to wake; before then nothing is sent, at that time attempt 2 goes out', async () => {
    const s = await seed([
      { status: 503, body: 'busy' },
      { status: 503, body: 'busy' },
    ]);
    const nowMs = Date.parse('2031-03-01T12:00:00Z');
    const delay = retryDelayAfter(1)!;
    const r1 = await runActivity(drainEndpoint, s.endpointId, nowMs);
    expect(r1).toMatchObject({ state: 'open', sent: 1, retrying: 1, live: 1, due: 0 });
    const d1 = await row('webhook_deliveries', s.deliveryId);
    expect(d1).toMatchObject({ status: 'retrying', attempt_count: 1, last_status_code: 503 });
    const nextMs = d1.next_attempt_at.getTime();
    expect(nextMs).toBeGreaterThanOrEqual(nowMs + delay);
    expect(nextMs).toBeLessThan(nowMs + delay + 5_000);
    expect(r1.nextDueAtMs).toBe(nextMs);
    expect(r1.failing).toEqual([{ id: s.deliveryId, attempts: 1, nextAttemptAtMs: nextMs, lastError: 'http_status_503' }]);

    expect(await runActivity(drainEndpoint, s.endpointId, nowMs + 1_000)).toMatchObject({ sent: 0, live: 1, due: 0, nextDueAtMs: nextMs });
    expect(receiver.received(s.path)).toHaveLength(1);

    const r2 = await runActivity(drainEndpoint, s.endpointId, nextMs);
    expect(r2).toMatchObject({ sent: 1, retrying: 1 });
    expect((await row('webhook_deliveries', s.deliveryId)).next_attempt_at.getTime()).toBeGreaterThanOrEqual(nextMs + retryDelayAfter(2)!);
    expect((await attempts(s.deliveryId)).map((a) => a.attempt_number)).toEqual([1, 2]);
  });

  test('the attempt record is written once: a repeated batch (a retried write) adds no second attempt row and keeps the count', async () => {
    const s = await seed([]);
    const rec = {
      id: newId('wha_'),
      deliveryId: s.deliveryId,
      attempt: 1,
      finishedAtMs: Date.now(),
      http: { statusCode: 500, error: 'http_status_500', latencyMs: 3, excerpt: 'x', retryable: true },
    };
    await recordAttempts(s.endpointId, [rec]);
    await recordAttempts(s.endpointId, [rec]);
    expect(await count('webhook_attempts', 'delivery_id = $1', [s.deliveryId])).toBe(1);
    const d = await row('webhook_deliveries', s.deliveryId);
    expect(d).toMatchObject({ status: 'retrying', attempt_count: 1 });
    expect(d.next_attempt_at.getTime()).toBe(rec.finishedAtMs + retryDelayAfter(1)!);
  });

  test('two drains sent the same delivery (a retried drain while the first still ran): each POST is its own attempt, numbered at write, and the delivery ends as the success says', async () => {
    const at = Date.now();
    const timeout = { statusCode: null, error: 'timeout', latencyMs: 10_000, excerpt: null, retryable: true };
    const ok = { statusCode: 200, error: null, latencyMs: 5, excerpt: 'ok', retryable: false };
    // The late drain's timeout is written first, then the retried drain's success, both assuming attempt 1.
    const a = await seed([]);
    await recordAttempts(a.endpointId, [{ id: newId('wha_'), deliveryId: a.deliveryId, attempt: 1, finishedAtMs: at, http: timeout }]);
    await recordAttempts(a.endpointId, [{ id: newId('wha_'), deliveryId: a.deliveryId, attempt: 1, finishedAtMs: at, http: ok }]);
    expect((await attempts(a.deliveryId)).map((x) => [x.attempt_number, x.status_code, x.error])).toEqual([
      [1, null, 'timeout'],
      [2, 200, null],
    ]);
    expect(await row('webhook_deliveries', a.deliveryId)).toMatchObject({
      status: 'succeeded',
      attempt_count: 2,
      next_attempt_at: null,
      last_error: null,
    });
    // The other order: the success is written first; the late timeout is recorded as attempt 2 and leaves the delivery succeeded.
    const b = await seed([]);
    await recordAttempts(b.endpointId, [{ id: newId('wha_'), deliveryId: b.deliveryId, attempt: 1, finishedAtMs: at, http: ok }]);
    await recordAttempts(b.endpointId, [{ id: newId('wha_'), deliveryId: b.deliveryId, attempt: 1, finishedAtMs: at, http: timeout }]);
    expect((await attempts(b.deliveryId)).map((x) => [x.attempt_number, x.status_code])).toEqual([
      [1, 200],
      [2, null],
    ]);
    expect(await row('webhook_deliveries', b.deliveryId)).toMatchObject({
      status: 'succeeded',
      attempt_count: 2,
      last_status_code: 200,
      next_attempt_at: null,
    });
  });

  test('a disabled endpoint: the drain closes (endpoint_disabled), cancels its live deliveries and sends nothing', async () => {
    const s = await seed([]);
    await db().query('UPDATE webhook_endpoints SET enabled = false WHERE id = $1', [s.endpointId]);
    expect(await runActivity(drainEndpoint, s.endpointId, Date.now())).toMatchObject({
      state: 'closed',
      closedReason: 'endpoint_disabled',
      cancelled: 1,
      sent: 0,
    });
    expect(await row('webhook_deliveries', s.deliveryId)).toMatchObject({ status: 'cancelled', last_error: 'endpoint_disabled' });
    expect(receiver.received(s.path)).toHaveLength(0);
    expect(await runActivity(drainEndpoint, 'whe_missing', Date.now())).toMatchObject({
      state: 'closed',
      closedReason: 'endpoint_not_found',
    });
  });

  test('the last scheduled attempt fails with the failure streak at the limit: delivery failed, endpoint auto-disabled with webhook_endpoint.disabled', async () => {
    const s = await seed([{ status: 500 }], {
      consecutiveFailures: AUTO_DISABLE_CONSECUTIVE_FAILURES - 1,
      attemptCount: WEBHOOK_MAX_ATTEMPTS - 1,
      status: 'retrying',
    });
    expect(await runActivity(drainEndpoint, s.endpointId, Date.now())).toMatchObject({ sent: 1, failed: 1, live: 0 });
    expect(await row('webhook_deliveries', s.deliveryId)).toMatchObject({ status: 'failed', attempt_count: WEBHOOK_MAX_ATTEMPTS });
    expect(await row('webhook_endpoints', s.endpointId)).toMatchObject({
      enabled: false,
      disabled_reason: 'auto_disabled_repeated_failures',
      consecutive_failures: AUTO_DISABLE_CONSECUTIVE_FAILURES,
    });
    expect(await eventTypes(s.endpointId)).toEqual(['webhook_endpoint.disabled']);
  });

  test('wake-ups: one signalWithStart `deliver` per endpoint however many of its deliveries a dispatch pass created', async () => {
    const [a, b] = [newId('whe_'), newId('whe_')];
    const rows = [
      ...Array.from({ length: 30 }, (_, i) => ({ account_id: 'acct_wake', endpoint_id: i % 2 ? a : b })),
      { account_id: 'acct_wake', endpoint_id: a },
    ];
    expect((await wakeEndpointsOf(rows)).sort()).toEqual([a, b].sort());
    // signalWithStart: a run waiting for new deliveries (or a retry) is woken; a run is started only when none is open.
    expect(callsFor(a)).toEqual(['signalWithStart:deliver']);
    expect(callsFor(b)).toEqual(['signalWithStart:deliver']);
  });

  test('a drain sending in this process takes the deliveries committed meanwhile itself: the dispatcher counts its endpoint as taken until the drain reads its summary', async () => {
    const [a, b] = [newId('whe_'), newId('whe_')];
    const doneReading = markDrainReading(a);
    expect(await announceDeliveries([a, b, a])).toEqual(new Set([a]));
    doneReading();
    doneReading(); // once only
    expect(await announceDeliveries([a])).toEqual(new Set());
    // Overlapping drains of one endpoint: taken until the last one reads its summary.
    const [first, second] = [markDrainReading(a), markDrainReading(a)];
    first();
    expect(await announceDeliveries([a])).toEqual(new Set([a]));
    second();
    expect(await announceDeliveries([a])).toEqual(new Set());
  });
});
