/**
 * Webhook endpoint workflow under the Java time-skipping test server (workflows/webhook-endpoint.ts)
 * with the real drain activity against real PostgreSQL and a local receiver: the retry schedule over
 * hours (read back from the workflow history's timers), exhaustion (`failed`), auto-disable,
 * cancellation when the endpoint is disabled between attempts, a refused URL, a timed-out attempt,
 * a backlog of one endpoint drained many at a time in few activity calls, and the wait for new
 * deliveries once nothing is live: the next delivery's wake-up (signalWithStart, as the dispatcher
 * sends it) is drained by the waiting run, and the run ends idle after ENDPOINT_IDLE_MS (issue 36).
 */
import crypto from 'node:crypto';
import net from 'node:net';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import type { WorkflowHandle } from '@temporalio/client';
import { Webhook } from 'standardwebhooks';
import { activities } from '../../activities';
import { closeDb, db } from '../../lib/db';
import { newId } from '../../lib/ids';
import { encrypt } from '../../lib/secrets';
import { startTimeSkipping } from '../helpers/time-skipping';
import { WEBHOOK_MAX_ATTEMPTS } from '../../domain/webhook-schedule';
import { ENDPOINT_IDLE_MS, webhookEndpointWorkflow } from '../../workflows/webhook-endpoint';
import { wakeEndpoint } from '../../activities/webhooks/signals';
import { closeTemporalClient, setTemporalClient } from '../../temporal/client';
import { registerSearchAttributes } from '../../temporal/dev/bootstrap';
import { connectDb, newAccount } from '../helpers/api';
import { Receiver, testTls } from '../helpers/receiver';
import { HEARTBEAT_THROTTLE_MS } from '../../temporal/config';
import { deadline } from '../fixtures/deadlines';

/** A port nothing listens on and no process is handed by the kernel (below the ephemeral range). */
const REFUSING_PORT = 1;
/** True when a TCP connection to 127.0.0.1:`port` is refused. */
function refuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    sock.once('connect', () => {
      sock.destroy();
      resolve(false);
    });
    sock.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'));
  });
}

const SETUP_TIMEOUT_MS = 20 * 60_000;
const MIN = 60_000;
const HOUR = 60 * MIN;

/** Inserts an endpoint, an already-dispatched event and a delivery (`extra` more event/delivery pairs after it) whose endpoint workflow the test runs itself. */
async function seed(
  accountId: string,
  url: string,
  consecutiveFailures = 0,
  extra = 0,
): Promise<{ secret: string; endpointId: string; eventId: string; deliveryId: string }> {
  const secret = `whsec_${crypto.randomBytes(24).toString('base64')}`;
  const endpointId = newId('whe_');
  const eventId = newId('evt_');
  const deliveryId = newId('whd_');
  await db().query(
    `INSERT INTO webhook_endpoints(id, account_id, livemode, url, event_types, enabled, secret_ciphertext, secret_prefix, consecutive_failures)
     VALUES ($1,$2,true,$3,'{}',true,$4,$5,$6)`,
    [endpointId, accountId, url, encrypt(secret), secret.slice(0, 10), consecutiveFailures],
  );
  await db().query(
    `INSERT INTO events(id, account_id, livemode, type, object_type, object_id, data, api_version, dispatched_at)
     VALUES ($1,$2,true,'payment_link.paid','payment_link','pl_wf',$3,'2026-09-04', now())`,
    [eventId, accountId, JSON.stringify({ object: { id: 'pl_wf', object: 'payment_link', status: 'paid' } })],
  );
  await db().query(
    `INSERT INTO webhook_deliveries(id, account_id, livemode, endpoint_id, event_id, event_type, workflow_started_at)
     VALUES ($1,$2,true,$3,$4,'payment_link.paid', now())`,
    [deliveryId, accountId, endpointId, eventId],
  );
  for (let i = 0; i < extra; i++) {
    const e = newId('evt_');
    await db().query(
      `INSERT INTO events(id, account_id, livemode, type, object_type, object_id, data, api_version, dispatched_at)
       VALUES ($1,$2,true,'payment_link.paid','payment_link','pl_wf',$3,'2026-09-04', now())`,
      [e, accountId, JSON.stringify({ object: { id: 'pl_wf', object: 'payment_link' } })],
    );
    await db().query(
      `INSERT INTO webhook_deliveries(id, account_id, livemode, endpoint_id, event_id, event_type, workflow_started_at)
       VALUES ($1,$2,true,$3,$4,'payment_link.paid', now())`,
      [newId('whd_'), accountId, endpointId, e],
    );
  }
  return { secret, endpointId, eventId, deliveryId };
}

/** Inserts another already-dispatched event of the endpoint and its pending delivery (committed, no wake-up sent); returns the delivery id. */
async function addDelivery(accountId: string, endpointId: string): Promise<string> {
  const eventId = newId('evt_');
  const deliveryId = newId('whd_');
  await db().query(
    `INSERT INTO events(id, account_id, livemode, type, object_type, object_id, data, api_version, dispatched_at)
     VALUES ($1,$2,true,'payment_link.paid','payment_link','pl_wf',$3,'2026-09-04', now())`,
    [eventId, accountId, JSON.stringify({ object: { id: 'pl_wf', object: 'payment_link' } })],
  );
  await db().query(
    `INSERT INTO webhook_deliveries(id, account_id, livemode, endpoint_id, event_id, event_type)
     VALUES ($1,$2,true,$3,$4,'payment_link.paid')`,
    [deliveryId, accountId, endpointId, eventId],
  );
  return deliveryId;
}

/** The idle wait's `waiting_for` (workflows/webhook-endpoint.ts). */
const IDLE_WAIT = /^new deliveries \(idle since \S+; the run ends at \S+ if none\)$/;

/** Polls `handle`'s `waiting_for` until it matches `re` (time does not skip while the test polls); returns the answer. */
async function waitingFor(handle: WorkflowHandle, re: RegExp, timeoutMs = 60_000): Promise<string> {
  const end = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      last = await handle.query<string>('waiting_for');
    } catch {
      /* not started yet */
    }
    if (re.test(last)) return last;
    if (Date.now() > end) throw new Error(`waiting_for never matched ${re}; last answer: ${last}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function attemptsOf(
  deliveryId: string,
): Promise<Array<{ attempt_number: number; status_code: number | null; error: string | null }>> {
  return db().query('SELECT attempt_number, status_code, error FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempt_number', [
    deliveryId,
  ]);
}

async function deliveryRow(deliveryId: string): Promise<Record<string, any>> {
  return (await db().query('SELECT * FROM webhook_deliveries WHERE id = $1', [deliveryId]))[0];
}

const durationMs = (d: { seconds?: unknown; nanos?: number | null } | null | undefined): number =>
  Number(String(d?.seconds ?? 0)) * 1000 + Math.round((d?.nanos ?? 0) / 1e6);

/**
 * Timers of a run, in order (the real-activity tests run with the delivery switch on: no hold
 * timers), rounded to the second: the drain writes `next_attempt_at` from the workflow's clock plus
 * the real time it ran, so a timer is the scheduled wait give or take a few milliseconds.
 */
/**
 * The retry timers match `expected`: each sleeps until the row's `next_attempt_at`, which the drain
 * set to its own clock plus the delay, so the timer is the delay less the time the drain activity
 * itself took (real time, a second or two on a loaded machine): never longer, at most 5 s shorter.
 */
function expectRetryTimers(timers: number[], expected: readonly number[]): void {
  expect(timers).toHaveLength(expected.length);
  timers.forEach((t, i) => {
    expect(t).toBeLessThanOrEqual(expected[i]);
    expect(t).toBeGreaterThanOrEqual(expected[i] - 5000);
  });
}

/** The run's timers before its last (the idle wait after the last delivery went out, checked to be ENDPOINT_IDLE_MS). */
async function retryTimers(handle: WorkflowHandle): Promise<number[]> {
  const history = await handle.fetchHistory();
  const timers = (history.events ?? []).flatMap((e) =>
    e.timerStartedEventAttributes ? [Math.round(durationMs(e.timerStartedEventAttributes.startToFireTimeout as any) / 1000) * 1000] : [],
  );
  expect(timers.at(-1)).toBe(ENDPOINT_IDLE_MS);
  return timers.slice(0, -1);
}

let env: TestWorkflowEnvironment;

beforeAll(async () => {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    /* already installed in this process */
  }
  env = await startTimeSkipping();
  // The wake-up under test is the product's own (activities/webhooks/signals.ts): signalWithStart with AccountId.
  await registerSearchAttributes(env.connection);
  setTemporalClient(env.client);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await closeTemporalClient();
  await env?.teardown();
  await closeDb();
}, 60_000);

describe('webhookEndpointWorkflow with the real drain, PostgreSQL and a receiver', () => {
  let worker: Worker;
  let running: Promise<void>;
  const taskQueue = `webhooks-${Date.now()}`;
  const receiver = new Receiver({ tls: testTls() });
  let accountId: string;

  beforeAll(async () => {
    await connectDb();
    accountId = (await newAccount()).account_id;
    await receiver.start();
    worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowsPath: require.resolve('../../workflows'),
      activities,
      maxHeartbeatThrottleInterval: HEARTBEAT_THROTTLE_MS,
    });
    running = worker.run();
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    worker?.shutdown();
    await running?.catch(() => undefined);
    await receiver.stop();
  }, 60_000);

  const start = (s: { endpointId: string }) =>
    env.client.workflow.start(webhookEndpointWorkflow, { taskQueue, workflowId: s.endpointId, args: [{ endpointId: s.endpointId }] });

  it('follows the retry schedule over hours: 5 failures (500) then success on attempt 6', async () => {
    const p = receiver.path(
      'flaky',
      Array.from({ length: 5 }, () => ({ status: 500 })),
    );
    const s = await seed(accountId, p.url);
    const before = await env.currentTimeMs();
    const handle = await start(s);
    expect(await handle.result()).toBe('idle');
    const skipped = (await env.currentTimeMs()) - before;

    expectRetryTimers(await retryTimers(handle), deadline('webhook_retry_schedule').schedule!.slice(0, 5));
    expect(skipped).toBeGreaterThanOrEqual(30_000 + 2 * MIN + 10 * MIN + 1 * HOUR + 6 * HOUR);
    expect((await attemptsOf(s.deliveryId)).map((a) => [a.attempt_number, a.status_code])).toEqual([
      [1, 500],
      [2, 500],
      [3, 500],
      [4, 500],
      [5, 500],
      [6, 200],
    ]);
    expect(await deliveryRow(s.deliveryId)).toMatchObject({
      status: 'succeeded',
      attempt_count: 6,
      last_status_code: 200,
      next_attempt_at: null,
    });
    const received = receiver.received(p.path);
    expect(received).toHaveLength(6);
    for (const r of received) {
      expect(r.headers['webhook-id']).toBe(s.eventId);
      expect(new Webhook(s.secret).verify(r.body, r.headers as any)).toMatchObject({ id: s.eventId, type: 'payment_link.paid' });
    }
    const ep = (await db().query('SELECT consecutive_failures FROM webhook_endpoints WHERE id = $1', [s.endpointId]))[0];
    expect(ep.consecutive_failures).toBe(0);
  }, 120_000);

  it('gives up after 8 attempts over about 43.2 hours (connection refused): status failed', async () => {
    expect(await refuses(REFUSING_PORT)).toBe(true);
    // Port 1 (tcpmux): outside the ephemeral range, so no other process can be handed it while the
    // retries run (a just-closed ephemeral port could be); nothing listens there: ECONNREFUSED.
    const s = await seed(accountId, `http://127.0.0.1:${REFUSING_PORT}/closed`);
    const before = await env.currentTimeMs();
    const handle = await start(s);
    expect(await handle.result()).toBe('idle');
    const total = deadline('webhook_retry_schedule').schedule!.reduce((a, b) => a + b, 0);
    expect(total).toBe(30_000 + 2 * MIN + 10 * MIN + 1 * HOUR + 6 * HOUR + 12 * HOUR + 24 * HOUR);
    expect((await env.currentTimeMs()) - before).toBeGreaterThanOrEqual(total);
    expectRetryTimers(await retryTimers(handle), deadline('webhook_retry_schedule').schedule!);
    const attempts = await attemptsOf(s.deliveryId);
    expect(attempts).toHaveLength(WEBHOOK_MAX_ATTEMPTS);
    expect(WEBHOOK_MAX_ATTEMPTS).toBe(8);
    for (const a of attempts)
      expect(a).toMatchObject({ status_code: null, error: expect.stringMatching(/^connection_error: ECONNREFUSED/) });
    expect(await deliveryRow(s.deliveryId)).toMatchObject({
      status: 'failed',
      attempt_count: 8,
      next_attempt_at: null,
      delivered_at: null,
    });
    const ep = (await db().query('SELECT enabled, consecutive_failures FROM webhook_endpoints WHERE id = $1', [s.endpointId]))[0];
    expect(ep).toEqual({ enabled: true, consecutive_failures: 8 });
  }, 120_000);

  it('auto-disables an endpoint whose deliveries keep failing and emits webhook_endpoint.disabled', async () => {
    const own = (await newAccount()).account_id;
    const p = receiver.path(
      'dead',
      Array.from({ length: 8 }, () => ({ status: 500 })),
    );
    const s = await seed(own, p.url, 15);
    const handle = await start(s);
    expect(await handle.result()).toBe('idle');
    const ep = (
      await db().query('SELECT enabled, disabled_reason, consecutive_failures FROM webhook_endpoints WHERE id = $1', [s.endpointId])
    )[0];
    expect(ep).toEqual({ enabled: false, disabled_reason: 'auto_disabled_repeated_failures', consecutive_failures: 23 });
    const evts = await db().query(`SELECT type, object_type, data FROM events WHERE account_id = $1 AND object_id = $2`, [
      own,
      s.endpointId,
    ]);
    expect(evts).toHaveLength(1);
    expect(evts[0]).toMatchObject({ type: 'webhook_endpoint.disabled', object_type: 'webhook_endpoint' });
    expect(evts[0].data.object).toMatchObject({ id: s.endpointId, enabled: false, disabled_reason: 'auto_disabled_repeated_failures' });
    expect(evts[0].data.object).not.toHaveProperty('secret');
  }, 120_000);

  it('cancels the delivery when the endpoint is disabled between attempts', async () => {
    let endpointId = '';
    const p = receiver.path('disable-me', [
      {
        status: 500,
        before: async () => {
          await db().query('UPDATE webhook_endpoints SET enabled = false, disabled_reason = $2 WHERE id = $1', [endpointId, 'manual']);
        },
      },
    ]);
    const s = await seed(accountId, p.url);
    endpointId = s.endpointId;
    const handle = await start(s);
    expect(await handle.result()).toBe('endpoint_disabled');
    expect(await attemptsOf(s.deliveryId)).toHaveLength(1);
    expect(await deliveryRow(s.deliveryId)).toMatchObject({ status: 'cancelled', next_attempt_at: null, last_error: 'endpoint_disabled' });
    expect(receiver.received(p.path)).toHaveLength(1);
  }, 120_000);

  it('fails at once, sending nothing, when the stored URL no longer passes the URL rule', async () => {
    const s = await seed(accountId, 'https://10.20.30.40/hook');
    const handle = await start(s);
    expect(await handle.result()).toBe('idle');
    const attempts = await attemptsOf(s.deliveryId);
    expect(attempts).toEqual([{ attempt_number: 1, status_code: null, error: expect.stringMatching(/^url_rejected: .*private/) }]);
    expect(await deliveryRow(s.deliveryId)).toMatchObject({ status: 'failed', attempt_count: 1, next_attempt_at: null });
  }, 120_000);

  it('counts a receiver that does not answer within 10 s as a failed attempt (timeout), then retries', async () => {
    const p = receiver.path('slow', [{ hangMs: 12_000 }]);
    const s = await seed(accountId, p.url);
    const handle = await start(s);
    expect(await handle.result()).toBe('idle');
    const attempts = await attemptsOf(s.deliveryId);
    expect(attempts.map((a) => [a.status_code, a.error])).toEqual([
      [null, 'timeout'],
      [200, null],
    ]);
    const latency = (
      await db().query('SELECT latency_ms FROM webhook_attempts WHERE delivery_id = $1 AND attempt_number = 1', [s.deliveryId])
    )[0].latency_ms;
    expect(latency).toBeGreaterThanOrEqual(9_900);
    expect(latency).toBeLessThan(12_000);
  }, 120_000);

  it('drains a backlog of one endpoint many at a time, in few activity calls, each delivered once', async () => {
    const p = receiver.path('backlog', []);
    const s = await seed(accountId, p.url, 0, 119);
    const handle = await start(s);
    expect(await handle.result()).toBe('idle');
    const rows = await db().query(`SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 GROUP BY status`, [
      s.endpointId,
    ]);
    expect(rows).toEqual([{ status: 'succeeded', n: 120 }]);
    const got = receiver.received(p.path);
    expect(got).toHaveLength(120);
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(120);
    const history = await handle.fetchHistory();
    const drains = (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes).length;
    expect(drains).toBeLessThanOrEqual(2);
  }, 120_000);

  it('waits for new deliveries once nothing is live: the next wake-up is drained by the same run, which ends idle after ENDPOINT_IDLE_MS', async () => {
    const p = receiver.path('waits', []);
    const s = await seed(accountId, p.url);
    const handle = await start(s);
    await waitingFor(handle, IDLE_WAIT);
    expect(receiver.received(p.path)).toHaveLength(1);
    expect(await handle.query('deliveries')).toMatchObject({ state: 'open', sent: 1, succeeded: 1, live: 0 });

    // The next delivery is committed, then woken as the dispatcher and the commands wake it.
    const second = await addDelivery(accountId, s.endpointId);
    await wakeEndpoint(s.endpointId, accountId);
    await receiver.waitFor(p.path, 2, 'the second delivery');
    await waitingFor(handle, IDLE_WAIT);
    expect(await deliveryRow(second)).toMatchObject({ status: 'succeeded', attempt_count: 1 });
    expect((await handle.describe()).runId).toBe(handle.firstExecutionRunId);

    const before = await env.currentTimeMs();
    expect(await handle.result()).toBe('idle');
    expect((await env.currentTimeMs()) - before).toBeGreaterThanOrEqual(ENDPOINT_IDLE_MS - 5_000);
    const events = (await env.client.workflow.getHandle(s.endpointId, handle.firstExecutionRunId).fetchHistory()).events ?? [];
    expect(events.filter((e) => e.activityTaskScheduledEventAttributes)).toHaveLength(2);
    expect(events.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'deliver')).toHaveLength(1);
    expect(events.at(-1)?.workflowExecutionCompletedEventAttributes).toBeTruthy();
    expect(receiver.received(p.path)).toHaveLength(2);
  }, 120_000);
});
