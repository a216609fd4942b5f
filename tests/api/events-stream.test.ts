/**
 * `GET /events/stream` over HTTP against the running product (spec 6 "Stream", 4.10), with a real
 * EventSource client (npm `eventsource`): live push through LISTEN/NOTIFY with the exact
 * `GET /events/{id}` envelope, both key headers and sessions, account and type isolation,
 * unshipped types withheld, resume after `Last-Event-ID` (explicit and automatic after the server
 * drops the stream), heartbeats, the resume-window gap, every refusal (the `api_v1.events` switch is
 * in global-switches.test.ts), credential revocation, and shutdown of a second in-process API instance.
 */
import http from 'node:http';
import { EventSource } from 'eventsource';
import { createSession, insertApiKey } from '../../activities/accounts/commands';
import { emitEvent } from '../../lib/outbox';
import { closeDb, db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { sha256Hex } from '../../lib/secrets';
import { API, call, client, connectDb, eventually, expectError, newAccount } from '../helpers/api';
import { openStream, opened, type StreamClient } from '../helpers/sse';

/** Commits one event for `accountId` (as an activity would); returns its id. */
async function emit(accountId: string, type = 'payment_link.created', livemode = true): Promise<string> {
  const objectType = type.split('.')[0];
  const objectId = newId(objectType === 'payment' ? 'pay_' : 'pl_');
  return transaction((m) =>
    emitEvent(m, {
      accountId,
      livemode,
      type,
      objectType,
      objectId,
      object: { id: objectId, status: 'open', amount: { amount: '1000', currency: 'USD', decimals: 2 } },
    }),
  );
}

const open: StreamClient[] = [];
function stream(cred: string, o: Parameters<typeof openStream>[2] = {}): StreamClient {
  const c = openStream(API(), cred, o);
  open.push(c);
  return c;
}

beforeAll(async () => {
  await connectDb();
});
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});
afterAll(async () => {
  await closeDb();
});

describe('live push', () => {
  it('sends each committed event once, as GET /events/{id} renders it, to key and session callers', async () => {
    const a = await newAccount();
    const viaKey = stream(a.live_key);
    const viaBearerKey = stream(a.live_key, { bearer: true });
    const viaSession = stream(a.session_token);
    await Promise.all([opened(viaKey), opened(viaBearerKey), opened(viaSession)]);
    const e1 = await emit(a.account_id, 'payment_link.created');
    const e2 = await emit(a.account_id, 'payment.paid');
    for (const c of [viaKey, viaBearerKey, viaSession]) {
      const frames = await c.waitFor(2);
      expect(frames.map((f) => [f.id, f.type])).toEqual([
        [e1, 'payment_link.created'],
        [e2, 'payment.paid'],
      ]);
    }
    const got = await client(a.live_key).get(`/v1/events/${e1}`);
    expect(got.status).toBe(200);
    expect(viaKey.frames[0].data).toEqual(got.body);
    // Deterministic "nothing else arrived": the stream is ordered by sequence, so once a sentinel
    // written after the two events comes third, nothing came in between.
    const sentinel = await emit(a.account_id, 'payment.paid');
    expect((await viaKey.waitFor(3)).map((f) => f.id)).toEqual([e1, e2, sentinel]);
  });

  it("withholds unshipped types and other accounts' events; `type` narrows the stream", async () => {
    const a = await newAccount();
    const b = await newAccount();
    const all = stream(a.live_key);
    const onlyPaid = stream(a.live_key, { query: '?type=payment.paid' });
    await Promise.all([opened(all), opened(onlyPaid)]);
    await emit(b.account_id, 'payment_link.created');
    await emit(a.account_id, 'payment.detected');
    await emit(a.account_id, 'payment_link.created', false);
    const e1 = await emit(a.account_id, 'payment_link.created');
    const e2 = await emit(a.account_id, 'payment.paid');
    expect((await all.waitFor(2)).map((f) => f.id)).toEqual([e1, e2]);
    expect((await onlyPaid.waitFor(1)).map((f) => f.id)).toEqual([e2]);
    // Deterministic "nothing else arrived": a sentinel written after them comes next on both streams.
    const sentinel = await emit(a.account_id, 'payment.paid');
    expect((await all.waitFor(3)).map((f) => f.id)).toEqual([e1, e2, sentinel]);
    expect((await onlyPaid.waitFor(2)).map((f) => f.id)).toEqual([e2, sentinel]);
  });

  it('sends comment-frame heartbeats and the SSE headers', async () => {
    const a = await newAccount();
    const ac = new AbortController();
    const res = await fetch(`${API()}/v1/events/stream`, { headers: { 'x-api-key': a.live_key }, signal: ac.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('cache-control')).toContain('no-cache');
    expect(res.headers.get('service-version')).toBe('2026-09-04');
    const reader = res.body!.getReader();
    let text = '';
    const end = Date.now() + 8000;
    while (!/: heartbeat /.test(text) && Date.now() < end) {
      const { value, done } = await reader.read();
      if (done) break;
      text += Buffer.from(value).toString('utf8');
    }
    ac.abort();
    expect(text).toMatch(/^retry: \d+\n\n/);
    expect(text).toMatch(/\n: heartbeat \d{4}-\d{2}-\d{2}T[^\n]+\n\n/);
  });
});

describe('resume', () => {
  it('replays the events after Last-Event-ID in order, then continues live without duplicates', async () => {
    const a = await newAccount();
    const e1 = await emit(a.account_id);
    const e2 = await emit(a.account_id, 'payment.paid');
    const e3 = await emit(a.account_id, 'payment_link.paid');
    const c = stream(a.live_key, { lastEventId: e1 });
    expect((await c.waitFor(2)).map((f) => f.id)).toEqual([e2, e3]);
    const e4 = await emit(a.account_id, 'payment_link.settled');
    expect((await c.waitFor(3)).map((f) => f.id)).toEqual([e2, e3, e4]);
    // No duplicates, deterministically: a sentinel written last is the fourth frame.
    const sentinel = await emit(a.account_id, 'payment.paid');
    expect((await c.waitFor(4)).map((f) => f.id)).toEqual([e2, e3, e4, sentinel]);
  });

  it('a dropped connection is resumed automatically by the client from its last event id', async () => {
    const a = await newAccount();
    const c = stream(a.live_key);
    await opened(c);
    const e1 = await emit(a.account_id);
    await c.waitFor(1);
    // Dropping the product's shared LISTEN connection closes every stream (notifications in the gap are lost)...
    await db().query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%' AND pid <> pg_backend_pid()`,
    );
    const e2 = await emit(a.account_id, 'payment.paid');
    const e3 = await emit(a.account_id, 'payment_link.paid');
    // ...and the client reconnects with Last-Event-ID = e1, getting e2 and e3 from the database.
    const frames = await c.waitFor(3, 15000);
    expect(frames.map((f) => f.id)).toEqual([e1, e2, e3]);
    expect(c.opens).toBeGreaterThanOrEqual(2);
    const e4 = await emit(a.account_id, 'payment_link.settled');
    expect((await c.waitFor(4)).map((f) => f.id)).toEqual([e1, e2, e3, e4]);
  });

  it('does not bridge a gap beyond the resume window: 409 stream_resume_gap naming the list fallback', async () => {
    const a = await newAccount();
    const old = await emit(a.account_id);
    await db().query(`UPDATE events SET created_at = now() - interval '2 days' WHERE id = $1`, [old]);
    const res = await call('GET', '/v1/events/stream', undefined, { key: a.live_key, headers: { 'Last-Event-ID': old } });
    expectError(res, 409, 'conflict', 'stream_resume_gap', 'Last-Event-ID');
    expect(res.body.error.details.fallback).toBe(`/v1/events?since=${old}`);
    const fallback = await client(a.live_key).get(res.body.error.details.fallback);
    expect(fallback.status).toBe(200);
    // A real EventSource treats the refusal as final (no reconnect loop).
    const c = stream(a.live_key, { lastEventId: old });
    await eventually(async () => c.es.readyState === EventSource.CLOSED, 'event source to give up');
    expect(c.errors[0].code).toBe(409);
  });

  it('refuses an id the caller cannot see: 400 param Last-Event-ID', async () => {
    const a = await newAccount();
    const b = await newAccount();
    const theirs = await emit(b.account_id);
    expectError(
      await call('GET', '/v1/events/stream', undefined, { key: a.live_key, headers: { 'Last-Event-ID': theirs } }),
      400,
      'invalid_request',
      'parameter_invalid',
      'Last-Event-ID',
    );
    expectError(
      await call('GET', '/v1/events/stream', undefined, { key: a.live_key, headers: { 'Last-Event-ID': 'evt_nope' } }),
      400,
      'invalid_request',
      'parameter_invalid',
      'Last-Event-ID',
    );
    expectError(
      await call('GET', '/v1/events/stream', undefined, { key: a.live_key, headers: { 'Last-Event-ID': 'garbage' } }),
      400,
      'invalid_request',
      'parameter_invalid',
      'Last-Event-ID',
    );
  });
});

describe('refusals and gates', () => {
  it('authentication, scope, test mode and the type catalogue', async () => {
    const a = await newAccount();
    expectError(await call('GET', '/v1/events/stream'), 401, 'authentication_error', 'missing_credentials');
    expectError(
      await call('GET', '/v1/events/stream', undefined, { key: 'sk_live_notakey' }),
      401,
      'authentication_error',
      'invalid_api_key',
    );
    const narrow = await transaction((m) => insertApiKey(m, { accountId: a.account_id, livemode: true, scopes: ['payment_links.read'] }));
    expectError(await call('GET', '/v1/events/stream', undefined, { key: narrow.secret }), 403, 'permission_error', 'missing_scope');
    const test = await call('GET', '/v1/events/stream', undefined, { key: a.test_key });
    expectError(test, 503, 'temporarily_unavailable', 'test_mode_not_supported');
    expect(test.headers.get('retry-after')).toBeNull();
    expectError(
      await call('GET', '/v1/events/stream?type=payment.nope', undefined, { key: a.live_key }),
      400,
      'invalid_request',
      'event_type_unknown',
      'type',
    );
  });

  it('revoking the key or the session ends their streams', async () => {
    const a = await newAccount();
    const extra = await transaction((m) => insertApiKey(m, { accountId: a.account_id, livemode: true, scopes: ['events.read'] }));
    const userId: string = (await db().query('SELECT owner_user_id FROM accounts WHERE id = $1', [a.account_id]))[0].owner_user_id;
    const session = await transaction((m) => createSession(m, userId));
    const byKey = stream(extra.secret);
    const bySession = stream(session);
    const other = stream(a.live_key);
    await Promise.all([opened(byKey), opened(bySession), opened(other)]);
    expect((await client(a.session_token).post(`/v1/api_keys/${extra.key.id}/revoke`)).status).toBe(200);
    await eventually(async () => byKey.es.readyState === EventSource.CLOSED, 'revoked key stream to end');
    expect(byKey.errors.some((e) => e.code === 401)).toBe(true);
    await db().query('UPDATE dashboard_sessions SET revoked_at = now() WHERE token_hash = $1', [sha256Hex(session)]);
    await eventually(async () => bySession.es.readyState === EventSource.CLOSED, 'revoked session stream to end');
    const e = await emit(a.account_id);
    expect((await other.waitFor(1)).map((f) => f.id)).toEqual([e]);
  });
});

describe('a second in-process API instance', () => {
  it('refuses streams while its LISTEN connection is down (503 stream_unavailable); stopApi ends streams and flushes request logs', async () => {
    // A second API instance in this process, on the same database and Temporal.
    const { startApi, stopApi } = await import('../../api/main');
    const notify = await import('../../lib/notify');
    const server: http.Server = await startApi(0);
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const a = await newAccount();
    const c = openStream(base, a.live_key);
    await opened(c);
    const e = await emit(a.account_id);
    await c.waitFor(1);
    expect(c.frames[0].id).toBe(e);

    // Listener down: the open stream ends (its notifications would be lost) and reconnects are refused.
    await notify.stopNotifyListener();
    await eventually(async () => c.es.readyState === EventSource.CLOSED, 'stream to end and its reconnect to be refused', 15000);
    expect(c.errors.some((x) => x.code === 503)).toBe(true);
    const refused = await fetch(`${base}/v1/events/stream`, { headers: { 'x-api-key': a.live_key } });
    expect(refused.status).toBe(503);
    const body = (await refused.json()) as { error: { type: string; code: string } };
    expect(body.error).toMatchObject({ type: 'temporarily_unavailable', code: 'stream_unavailable' });
    expect(refused.headers.get('retry-after')).toBe('5');

    // Listener back: streams open again; shutdown ends them promptly.
    await notify.startNotifyListener(process.env.DATABASE_URL!);
    const d = openStream(base, a.live_key);
    await opened(d);
    const rid = refused.headers.get('request-id')!;
    const t0 = Date.now();
    await stopApi(server);
    expect(Date.now() - t0).toBeLessThan(3000);
    await eventually(async () => d.es.readyState !== EventSource.OPEN, 'client to see the stream end');
    d.close();
    // Buffered request logs were written by the shutdown.
    expect(await db().query('SELECT status FROM request_logs WHERE id = $1', [rid])).toEqual([{ status: 503 }]);
    await notify.stopNotifyListener();
    const { closeTemporalClient } = await import('../../temporal/client');
    await closeTemporalClient();
  });
});
