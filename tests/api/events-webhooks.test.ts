/**
 * Events and webhooks over HTTP against the running product (spec 4.10, 6): endpoint CRUD and
 * its errors, owner-only writes, secrets shown once, test-mode isolation, `GET /events` filters,
 * and real signed deliveries to a local receiver that verifies every signature with the
 * `standardwebhooks` package (test pings, retries after 500 and 302, cancellation, replay,
 * secret rotation overlap, the delivery switch, payment link events), and the endpoint run that
 * waits for new deliveries being woken by the dispatcher and by its sweep (issue 36).
 * Deliveries go to a real local https receiver (the test stack's self-signed certificate, trusted by
 * the product through WEBHOOKS_EXTRA_CA_FILE). The URL rule and the SSRF guard are covered in
 * webhooks-ssrf.test.ts (the product under test runs with WEBHOOKS_ALLOW_LOOPBACK=true so it can
 * reach the receiver).
 */
import { insertApiKey } from '../../activities/accounts/commands';
import { emitEvent } from '../../lib/outbox';
import { dispatchOnce } from '../../activities/webhooks/dispatcher';
import Router from '@koa/router';
import type Joi from 'joi';
import { REGISTRY } from '../../api/operation';
import { register as registerWebhookRoutes } from '../../api/routes/webhooks';
import * as schemas from '../../views/webhook';
import { closeDb, db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { decrypt } from '../../lib/secrets';
import { closeTemporalClient, temporalClient } from '../../temporal/client';
import {
  client,
  deliveryReaches,
  eventually,
  expectError,
  expectOk,
  idem,
  memberSession,
  newAccount,
  webhooksSettled,
} from '../helpers/api';
import { Receiver, testTls, verify } from '../helpers/receiver';
import { deadline } from '../fixtures/deadlines';

/** Fails unless `body` matches the declared response schema (unknown keys allowed: spec 1 rule 7). */
function conforms(schema: Joi.Schema, body: unknown): void {
  const { error } = schema.validate(body, { allowUnknown: true, presence: 'optional' });
  if (error) throw new Error(`response does not match its schema: ${error.message}\n${JSON.stringify(body)}`);
}

/** Adds a dashboard session for a new user who is a member of `accountId` with `role`. */
const receiver = new Receiver({ tls: testTls() });
const plainReceiver = new Receiver();
beforeAll(async () => {
  await receiver.start();
  await plainReceiver.start();
});
afterAll(async () => {
  await receiver.stop();
  await plainReceiver.stop();
  await closeDb();
});

// ---------------------------------------------------------------------------------------------
// Endpoint CRUD and errors
// ---------------------------------------------------------------------------------------------

describe('webhook endpoints', () => {
  let live: ReturnType<typeof client>;
  let test: ReturnType<typeof client>;
  let owner: ReturnType<typeof client>;
  let accountId: string;

  beforeAll(async () => {
    const a = await newAccount();
    accountId = a.account_id;
    live = client(a.live_key);
    test = client(a.test_key);
    owner = client(a.session_token);
  });

  it('creates, reads, lists, updates and soft-deletes an endpoint; the secret is shown once', async () => {
    const created = expectOk(
      await live.post('/v1/webhook_endpoints', {
        url: 'https://hooks.example.com/payments',
        event_types: ['payment_link.paid', 'payment.settled', 'payment_link.paid'],
        description: 'Main',
      }),
      201,
    );
    expect(created).toMatchObject({
      object: 'webhook_endpoint',
      livemode: true,
      url: 'https://hooks.example.com/payments',
      event_types: ['payment_link.paid', 'payment.settled'],
      enabled: true,
      disabled_reason: null,
      description: 'Main',
      previous_secret_expires_at: null,
    });
    expect(created.id).toMatch(/^whe_[A-Za-z0-9]+$/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(created.secret.slice(6), 'base64')).toHaveLength(24);
    expect(created.secret_prefix).toBe(created.secret.slice(0, 10));
    expect(typeof created.created_at).toBe('string');

    conforms(schemas.webhookEndpointWithSecretOut, created);
    const stored: Array<{ secret_ciphertext: string }> = await db().query('SELECT secret_ciphertext FROM webhook_endpoints WHERE id = $1', [
      created.id,
    ]);
    expect(stored[0].secret_ciphertext).not.toContain(created.secret.slice(6));
    expect(stored[0].secret_ciphertext).toMatch(/^v1\./); // AES-256-GCM under APP_ENCRYPTION_KEY (lib/secrets.ts)
    expect(decrypt(stored[0].secret_ciphertext)).toBe(created.secret);

    const got = expectOk(await live.get(`/v1/webhook_endpoints/${created.id}`));
    conforms(schemas.webhookEndpointOut, got);
    expect(got).not.toHaveProperty('secret');
    expect(got.secret_prefix).toBe(created.secret_prefix);
    const bySession = expectOk(await owner.get(`/v1/webhook_endpoints/${created.id}`));
    expect(bySession.id).toBe(created.id);

    const list = expectOk(await live.get('/v1/webhook_endpoints'));
    conforms(schemas.webhookEndpointListOut, list);
    expect(list).toMatchObject({ has_more: false, next_cursor: null });
    expect(list.data.map((w: any) => w.id)).toContain(created.id);
    expect(list.data.every((w: any) => !('secret' in w))).toBe(true);

    const patched = expectOk(
      await live.patch(`/v1/webhook_endpoints/${created.id}`, {
        url: 'https://hooks.example.com/v2',
        event_types: [],
        description: null,
      }),
    );
    conforms(schemas.webhookEndpointOut, patched);
    expect(patched).toMatchObject({ url: 'https://hooks.example.com/v2', event_types: [], description: null, enabled: true });

    const disabled = expectOk(await live.patch(`/v1/webhook_endpoints/${created.id}`, { enabled: false }));
    expect(disabled).toMatchObject({ enabled: false, disabled_reason: 'manual' });
    expect(expectOk(await live.get('/v1/webhook_endpoints?enabled=false')).data.map((w: any) => w.id)).toContain(created.id);
    const enabled = expectOk(await live.patch(`/v1/webhook_endpoints/${created.id}`, { enabled: true }));
    expect(enabled).toMatchObject({ enabled: true, disabled_reason: null });

    const deleted = expectOk(await live.del(`/v1/webhook_endpoints/${created.id}`));
    conforms(schemas.webhookEndpointDeletedOut, deleted);
    expect(deleted).toMatchObject({ id: created.id, deleted: true });
    expectError(await live.get(`/v1/webhook_endpoints/${created.id}`), 404, 'not_found');
    expectError(await live.patch(`/v1/webhook_endpoints/${created.id}`, { description: 'x' }), 404, 'not_found');
    expectError(await live.del(`/v1/webhook_endpoints/${created.id}`), 404, 'not_found');
    expectError(await live.post(`/v1/webhook_endpoints/${created.id}/rotate_secret`), 404, 'not_found');
    expectError(await live.post(`/v1/webhook_endpoints/${created.id}/send_test_event`), 404, 'not_found');
    expect(expectOk(await live.get('/v1/webhook_endpoints')).data.map((w: any) => w.id)).not.toContain(created.id);
  });

  it('declares a response schema on every webhook operation', () => {
    registerWebhookRoutes(new Router());
    const defs = REGISTRY.filter((d) => d.id.startsWith('webhook_'));
    expect(defs.map((d) => d.id).sort()).toEqual([
      'webhook_deliveries.get',
      'webhook_deliveries.list',
      'webhook_deliveries.replay',
      'webhook_endpoints.create',
      'webhook_endpoints.delete',
      'webhook_endpoints.get',
      'webhook_endpoints.list',
      'webhook_endpoints.rotate_secret',
      'webhook_endpoints.send_test_event',
      'webhook_endpoints.update',
    ]);
    for (const d of defs) expect([d.id, typeof d.response?.validate]).toEqual([d.id, 'function']);
  });

  it('replays an idempotent create without the secret', async () => {
    const key = idem();
    const body = { url: 'https://hooks.example.com/idem', event_types: ['order.created'] };
    const first = expectOk(await live.post('/v1/webhook_endpoints', body, { idem: key }), 201);
    expect(first.secret).toMatch(/^whsec_/);
    const again = await live.post('/v1/webhook_endpoints', body, { idem: key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.id);
    expect(again.body.secret).toBeNull();
    conforms(schemas.webhookEndpointWithSecretOut, again.body);
    expect(again.body.secret_prefix).toBe(first.secret_prefix);
    const same: Array<{ n: number }> = await db().query(
      'SELECT count(*)::int AS n FROM webhook_endpoints WHERE account_id = $1 AND url = $2',
      [accountId, body.url],
    );
    expect(same[0].n).toBe(1);
  });

  it('refuses bad urls, unknown event types and unknown fields; accepts catalogued-but-unshipped types', async () => {
    expectError(await live.post('/v1/webhook_endpoints', {}), 400, 'invalid_request', 'parameter_missing', 'url');
    expectError(await live.post('/v1/webhook_endpoints', { url: 'not a url' }), 400, 'invalid_request', 'url_invalid', 'url');
    expectError(
      await live.post('/v1/webhook_endpoints', { url: 'ftp://hooks.example.com/x' }),
      400,
      'invalid_request',
      'url_not_https',
      'url',
    );
    expectError(
      await live.post('/v1/webhook_endpoints', { url: 'http://hooks.example.com/x' }),
      400,
      'invalid_request',
      'url_not_https',
      'url',
    );
    expectError(
      await live.post('/v1/webhook_endpoints', { url: 'https://10.0.0.8/x' }),
      400,
      'invalid_request',
      'url_destination_forbidden',
      'url',
    );
    expectError(await live.post('/v1/webhook_endpoints', { url: 123 }), 400, 'invalid_request', undefined, 'url');
    expectError(
      await live.post('/v1/webhook_endpoints', { url: 'https://hooks.example.com/x', event_types: ['payment_link.exploded'] }),
      400,
      'invalid_request',
      'event_type_unknown',
      'event_types',
    );
    expectError(
      await live.post('/v1/webhook_endpoints', { url: 'https://hooks.example.com/x', event_types: ['*'] }),
      400,
      'invalid_request',
      'event_type_unknown',
      'event_types',
    );
    expectError(
      await live.post('/v1/webhook_endpoints', { url: 'https://hooks.example.com/x', event_types: 'payment.paid' }),
      400,
      'invalid_request',
      undefined,
      'event_types',
    );
    expectError(
      await live.post('/v1/webhook_endpoints', { url: 'https://hooks.example.com/x', enabled: false }),
      400,
      'invalid_request',
      'parameter_unknown',
      'enabled',
    );
    expectError(
      await live.post('/v1/webhook_endpoints', { url: 'https://hooks.example.com/x' }, { idem: null }),
      400,
      'invalid_request',
      'idempotency_key_invalid',
    );

    const unshipped = expectOk(
      await live.post('/v1/webhook_endpoints', {
        url: 'https://hooks.example.com/later',
        event_types: ['payment.detected', 'wallet.created', 'test.ping'],
      }),
      201,
    );
    expect(unshipped.event_types).toEqual(['payment.detected', 'wallet.created', 'test.ping']);

    expectError(
      await live.patch(`/v1/webhook_endpoints/${unshipped.id}`, { url: 'gopher://x' }),
      400,
      'invalid_request',
      'url_not_https',
      'url',
    );
    expectError(
      await live.patch(`/v1/webhook_endpoints/${unshipped.id}`, { event_types: ['nope.nope'] }),
      400,
      'invalid_request',
      'event_type_unknown',
      'event_types',
    );
    expectError(
      await live.patch(`/v1/webhook_endpoints/${unshipped.id}`, { secret: 'whsec_x' }),
      400,
      'invalid_request',
      'parameter_unknown',
      'secret',
    );
    expectError(
      await live.patch(`/v1/webhook_endpoints/${unshipped.id}`, { enabled: 'sometimes' }),
      400,
      'invalid_request',
      undefined,
      'enabled',
    );
    expectError(await live.get('/v1/webhook_endpoints/whe_doesnotexist'), 404, 'not_found');
    expectError(await live.get('/v1/webhook_deliveries/whd_doesnotexist'), 404, 'not_found');
    expectError(await live.get('/v1/webhook_deliveries?status=lost'), 400, 'invalid_request', undefined, 'status');
  });

  it('lets only the owner manage endpoints from a dashboard session (403 scope_denied)', async () => {
    const ep = expectOk(await owner.post('/v1/webhook_endpoints', { url: 'https://hooks.example.com/owner' }), 201);
    expect(ep.secret).toMatch(/^whsec_/);
    for (const role of ['developer', 'admin', 'viewer'] as const) {
      const member = client(await memberSession(accountId, role));
      expectError(
        await member.post('/v1/webhook_endpoints', { url: 'https://hooks.example.com/dev' }),
        403,
        'permission_error',
        'scope_denied',
      );
      expectError(await member.patch(`/v1/webhook_endpoints/${ep.id}`, { description: 'mine' }), 403, 'permission_error', 'scope_denied');
      expectError(await member.del(`/v1/webhook_endpoints/${ep.id}`), 403, 'permission_error', 'scope_denied');
      expectError(await member.post(`/v1/webhook_endpoints/${ep.id}/rotate_secret`), 403, 'permission_error', 'scope_denied');
      expectError(await member.post(`/v1/webhook_endpoints/${ep.id}/send_test_event`), 403, 'permission_error', 'scope_denied');
      expect(expectOk(await member.get(`/v1/webhook_endpoints/${ep.id}`)).id).toBe(ep.id);
      expect(expectOk(await member.get('/v1/webhook_deliveries')).object).toBe('list');
    }
    const viewer = client(await memberSession(accountId, 'viewer'));
    expect(expectOk(await viewer.get('/v1/webhook_endpoints')).object).toBe('list');
    // Business keys with developers.write are not sessions: the owner rule does not apply to them.
    expectOk(await live.patch(`/v1/webhook_endpoints/${ep.id}`, { description: 'by key' }));
  });

  it('needs developers.write for a business key to write, developers.read to read', async () => {
    const { secret } = await transaction((m) => insertApiKey(m, { accountId, livemode: true, scopes: ['developers.read'] }));
    const ro = client(secret);
    expect(expectOk(await ro.get('/v1/webhook_endpoints')).object).toBe('list');
    expectError(await ro.post('/v1/webhook_endpoints', { url: 'https://hooks.example.com/ro' }), 403, 'permission_error');
    const { secret: ev } = await transaction((m) => insertApiKey(m, { accountId, livemode: true, scopes: ['events.read'] }));
    expectError(await client(ev).get('/v1/webhook_endpoints'), 403, 'permission_error');
    expect(expectOk(await client(ev).get('/v1/events')).object).toBe('list');
  });

  it('keeps test-mode endpoints apart from live ones', async () => {
    const t = expectOk(await test.post('/v1/webhook_endpoints', { url: 'https://hooks.example.com/test' }), 201);
    expect(t.livemode).toBe(false);
    expect(expectOk(await test.get('/v1/webhook_endpoints')).data.map((w: any) => w.id)).toEqual([t.id]);
    expect(expectOk(await live.get('/v1/webhook_endpoints')).data.map((w: any) => w.id)).not.toContain(t.id);
    expectError(await live.get(`/v1/webhook_endpoints/${t.id}`), 404, 'not_found');
    expectError(await test.patch('/v1/webhook_endpoints/whe_nope', { enabled: false }), 404, 'not_found');
    const other = await newAccount();
    expectError(await client(other.live_key).get(`/v1/webhook_endpoints/${t.id}`), 404, 'not_found');
    expectError(await client(other.test_key).get(`/v1/webhook_endpoints/${t.id}`), 404, 'not_found');
  });

  it('caps endpoints per account and mode', async () => {
    const a = await newAccount();
    const k = client(a.test_key);
    for (let i = 0; i < 16; i++) expectOk(await k.post('/v1/webhook_endpoints', { url: `https://hooks.example.com/cap/${i}` }), 201);
    expectError(
      await k.post('/v1/webhook_endpoints', { url: 'https://hooks.example.com/cap/16' }),
      400,
      'invalid_request',
      'webhook_endpoint_limit_reached',
    );
    expectOk(await client(a.live_key).post('/v1/webhook_endpoints', { url: 'https://hooks.example.com/cap/live' }), 201);
  });
});

// ---------------------------------------------------------------------------------------------
// Events list
// ---------------------------------------------------------------------------------------------

describe('GET /events', () => {
  let live: ReturnType<typeof client>;
  let a: Awaited<ReturnType<typeof newAccount>>;
  const ids: Record<string, string> = {};
  const times: Record<string, string> = {};

  beforeAll(async () => {
    a = await newAccount();
    live = client(a.live_key);
    const other = await newAccount();
    const emit = async (name: string, e: Parameters<typeof emitEvent>[1]) => {
      ids[name] = await transaction((m) => emitEvent(m, e));
      const rows: Array<{ created_at: Date }> = await db().query('SELECT created_at FROM events WHERE id = $1', [ids[name]]);
      times[name] = rows[0].created_at.toISOString();
      await new Promise((r) => setTimeout(r, 15));
    };
    const base = { accountId: a.account_id, livemode: true };
    await emit('linkCreated', {
      ...base,
      type: 'payment_link.created',
      objectType: 'payment_link',
      objectId: 'pl_Evt1',
      object: { id: 'pl_Evt1', object: 'payment_link', status: 'draft' },
      request: { id: 'req_abc', idempotency_key: 'idem_key_0123456789' },
    });
    await emit('paymentCreated', {
      ...base,
      type: 'payment.created',
      objectType: 'payment',
      objectId: 'pay_Evt1',
      object: { id: 'pay_Evt1', object: 'payment' },
      relatedIds: ['pl_Evt1'],
    });
    await emit('unshipped', {
      ...base,
      type: 'payment.detected',
      objectType: 'payment',
      objectId: 'pay_Evt1',
      object: { id: 'pay_Evt1', object: 'payment' },
      relatedIds: ['pl_Evt1'],
    });
    await emit('linkActivated', {
      ...base,
      type: 'payment_link.activated',
      objectType: 'payment_link',
      objectId: 'pl_Evt1',
      object: { id: 'pl_Evt1', object: 'payment_link', status: 'active' },
    });
    await emit('testMode', {
      accountId: a.account_id,
      livemode: false,
      type: 'payment_link.created',
      objectType: 'payment_link',
      objectId: 'pl_Evt2',
      object: { id: 'pl_Evt2' },
    });
    await emit('otherAccount', {
      accountId: other.account_id,
      livemode: true,
      type: 'payment_link.created',
      objectType: 'payment_link',
      objectId: 'pl_Evt3',
      object: { id: 'pl_Evt3' },
    });
  });

  const listIds = async (q = '') => expectOk(await live.get(`/v1/events${q}`)).data.map((e: any) => e.id);

  it('lists shipped events of the caller, newest first, with the event envelope', async () => {
    expect(await listIds()).toEqual([ids.linkActivated, ids.paymentCreated, ids.linkCreated]);
    const one = expectOk(await live.get(`/v1/events/${ids.linkCreated}`));
    expect(one).toEqual({
      id: ids.linkCreated,
      object: 'event',
      type: 'payment_link.created',
      created_at: times.linkCreated,
      livemode: true,
      api_version: '2026-09-04',
      data: { object: { id: 'pl_Evt1', object: 'payment_link', type: 'payment_link', status: 'draft' } },
      request: { id: 'req_abc', idempotency_key: 'idem_key_0123456789' },
      sequence: expect.any(Number),
    });
    expect(expectOk(await live.get(`/v1/events/${ids.paymentCreated}`)).request).toEqual({ id: null, idempotency_key: null });
    expect(expectOk(await client(a.session_token).get('/v1/events')).data).toHaveLength(3);
    expectError(await live.get(`/v1/events/${ids.unshipped}`), 404, 'not_found');
    expectError(await live.get(`/v1/events/${ids.testMode}`), 404, 'not_found');
    expectError(await live.get(`/v1/events/${ids.otherAccount}`), 404, 'not_found');
    expectError(await live.get('/v1/events/evt_missing'), 404, 'not_found');
  });

  it('filters by type (closed catalogue), object and since', async () => {
    expect(await listIds('?type=payment_link.created')).toEqual([ids.linkCreated]);
    expect(await listIds('?type=payment.detected')).toEqual([]);
    expectError(await live.get('/v1/events?type=payment_link.exploded'), 400, 'invalid_request', 'event_type_unknown', 'type');
    expect(await listIds('?object=pl_Evt1')).toEqual([ids.linkActivated, ids.paymentCreated, ids.linkCreated]);
    expect(await listIds('?object=pay_Evt1')).toEqual([ids.paymentCreated]);
    expect(await listIds('?object=pl_Evt3')).toEqual([]);
    expect(await listIds(`?object=pl_Evt1&type=payment.created`)).toEqual([ids.paymentCreated]);
    expect(await listIds(`?since=${ids.linkCreated}`)).toEqual([ids.linkActivated, ids.paymentCreated]);
    expect(await listIds(`?since=${ids.linkActivated}`)).toEqual([]);
    expect(await listIds(`?since=${encodeURIComponent(times.paymentCreated)}`)).toEqual([ids.linkActivated, ids.paymentCreated]);
    expect(await listIds('?since=2000-01-01')).toHaveLength(3);
    expectError(await live.get(`/v1/events?since=${ids.otherAccount}`), 404, 'not_found', 'not_found', 'since');
    expectError(await live.get('/v1/events?since=yesterday'), 400, 'invalid_request', undefined, 'since');
  });

  it('paginates with an opaque cursor over the outbox sequence', async () => {
    const p1 = expectOk(await live.get('/v1/events?limit=2'));
    expect(p1.data.map((e: any) => e.id)).toEqual([ids.linkActivated, ids.paymentCreated]);
    expect(p1.has_more).toBe(true);
    expect(typeof p1.next_cursor).toBe('string');
    const p2 = expectOk(await live.get(`/v1/events?limit=2&cursor=${encodeURIComponent(p1.next_cursor)}`));
    expect(p2).toMatchObject({ has_more: false, next_cursor: null });
    expect(p2.data.map((e: any) => e.id)).toEqual([ids.linkCreated]);
    expect(expectOk(await live.get('/v1/events?limit=0')).data).toHaveLength(3);
    expectError(await live.get('/v1/events?cursor=garbage'), 400, 'invalid_request', 'cursor_invalid', 'cursor');
  });

  it('is unavailable in test mode (503 without Retry-After)', async () => {
    const r = await client(a.test_key).get('/v1/events');
    expectError(r, 503, 'temporarily_unavailable');
    expect(r.headers.get('retry-after')).toBeNull();
    expectError(await client(a.test_key).get(`/v1/events/${ids.testMode}`), 503, 'temporarily_unavailable');
  });
});

// ---------------------------------------------------------------------------------------------
// Deliveries
// ---------------------------------------------------------------------------------------------

describe('webhook deliveries', () => {
  let live: ReturnType<typeof client>;
  let test: ReturnType<typeof client>;
  let accountId: string;

  beforeAll(async () => {
    const a = await newAccount();
    accountId = a.account_id;
    live = client(a.live_key);
    test = client(a.test_key);
  });

  const createEndpoint = async (api: ReturnType<typeof client>, url: string, eventTypes: string[] = []) =>
    expectOk(await api.post('/v1/webhook_endpoints', { url, event_types: eventTypes }), 201) as {
      id: string;
      secret: string;
      secret_prefix: string;
    };

  it('delivers a signed test.ping to that endpoint only, and records the attempt', async () => {
    const target = receiver.path('ping');
    const bystander = receiver.path('bystander');
    const ep = await createEndpoint(live, target.url, ['payment.paid']);
    await createEndpoint(live, bystander.url);

    const d = expectOk(await live.post(`/v1/webhook_endpoints/${ep.id}/send_test_event`));
    expect(d).toMatchObject({ object: 'webhook_delivery', livemode: true, endpoint_id: ep.id, event_type: 'test.ping', replay_of: null });
    expect(d.id).toMatch(/^whd_/);
    expect(d.event_id).toMatch(/^evt_/);

    const got = (await receiver.waitFor(target.path, 1, 'the test ping'))[0];
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['webhook-id']).toBe(d.event_id);
    expect(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    const evt = verify(ep.secret, got);
    expect(evt).toMatchObject({
      id: d.event_id,
      object: 'event',
      type: 'test.ping',
      livemode: true,
      data: { object: { id: ep.id, type: 'webhook_endpoint' } },
    });
    expect(() => verify(`whsec_${Buffer.alloc(24, 7).toString('base64')}`, got)).toThrow();

    conforms(schemas.webhookDeliveryOut, d);
    const done = await deliveryReaches(live, d.id, 'succeeded');
    conforms(schemas.webhookDeliveryWithAttemptsOut, done);
    expect(done).toMatchObject({ attempt_count: 1, last_status_code: 200, last_error: null, next_attempt_at: null });
    expect(typeof done.delivered_at).toBe('string');
    expect(done.attempts).toHaveLength(1);
    expect(done.attempts[0]).toMatchObject({ attempt_number: 1, status_code: 200, error: null, response_excerpt: '{"received":true}' });
    expect(typeof done.attempts[0].latency_ms).toBe('number');

    await webhooksSettled(accountId); // deterministic: every delivery of the account's events exists and finished
    expect(receiver.received(bystander.path)).toHaveLength(0);
    expect(receiver.received(target.path)).toHaveLength(1);

    const byEndpoint = expectOk(await live.get(`/v1/webhook_deliveries?endpoint_id=${ep.id}`));
    expect(byEndpoint.data.map((x: any) => x.id)).toEqual([d.id]);
    expect(byEndpoint.data[0]).not.toHaveProperty('attempts');
    conforms(schemas.webhookDeliveryListOut, byEndpoint);
    expect(expectOk(await live.get(`/v1/webhook_deliveries?event_id=${d.event_id}`)).data.map((x: any) => x.id)).toEqual([d.id]);
    expect(expectOk(await live.get('/v1/webhook_deliveries?status=succeeded')).data.map((x: any) => x.id)).toContain(d.id);
    expect(expectOk(await live.get('/v1/webhook_deliveries?status=failed')).data.map((x: any) => x.id)).not.toContain(d.id);
    expect(expectOk(await test.get('/v1/webhook_deliveries')).data.map((x: any) => x.id)).not.toContain(d.id);
    expectError(await test.get(`/v1/webhook_deliveries/${d.id}`), 404, 'not_found');

    // Replay: a new delivery of the same event (same webhook-id), by a non-owner member too.
    const dev = client(await memberSession(accountId, 'developer'));
    const replay = expectOk(await dev.post(`/v1/webhook_deliveries/${d.id}/replay`));
    expect(replay).toMatchObject({ endpoint_id: ep.id, event_id: d.event_id, replay_of: d.id, event_type: 'test.ping' });
    expect(replay.id).not.toBe(d.id);
    conforms(schemas.webhookDeliveryOut, replay);
    const again = (await receiver.waitFor(target.path, 2, 'the replay'))[1];
    expect(again.headers['webhook-id']).toBe(d.event_id);
    expect(verify(ep.secret, again).id).toBe(d.event_id);
    expect((await deliveryReaches(live, replay.id, 'succeeded')).attempts).toHaveLength(1);
    expect(expectOk(await live.get(`/v1/webhook_deliveries/${d.id}`)).attempt_count).toBe(1);
    expect(expectOk(await live.get(`/v1/webhook_deliveries?event_id=${d.event_id}`)).data).toHaveLength(2);
  });

  it('delivers test-mode pings from test-mode endpoints', async () => {
    const target = receiver.path('testmode');
    const ep = await createEndpoint(test, target.url);
    const d = expectOk(await test.post(`/v1/webhook_endpoints/${ep.id}/send_test_event`));
    expect(d.livemode).toBe(false);
    const got = (await receiver.waitFor(target.path, 1, 'the test-mode ping'))[0];
    expect(verify(ep.secret, got)).toMatchObject({ type: 'test.ping', livemode: false });
    await deliveryReaches(test, d.id, 'succeeded');
  });

  it('delivers over https to a receiver whose certificate the product trusts, and over loopback http under the development switch', async () => {
    const secure = receiver.path('tls');
    expect(secure.url).toMatch(/^https:\/\/127\.0\.0\.1:/);
    const byName = new URL(secure.url);
    byName.hostname = 'localhost';
    const e1 = await createEndpoint(live, byName.toString());
    const plain = plainReceiver.path('plain');
    expect(plain.url).toMatch(/^http:\/\//);
    const e2 = await createEndpoint(live, plain.url);
    const [d1, d2] = [
      expectOk(await live.post(`/v1/webhook_endpoints/${e1.id}/send_test_event`)),
      expectOk(await live.post(`/v1/webhook_endpoints/${e2.id}/send_test_event`)),
    ];
    const got1 = (await receiver.waitFor(secure.path, 1, 'the https delivery'))[0];
    const got2 = (await plainReceiver.waitFor(plain.path, 1, 'the http delivery'))[0];
    expect(verify(e1.secret, got1).id).toBe(d1.event_id);
    expect(verify(e2.secret, got2).id).toBe(d2.event_id);
    await deliveryReaches(live, d1.id, 'succeeded');
    await deliveryReaches(live, d2.id, 'succeeded');
  });

  it('retries after a 500 and after a 302 (never following it), and cancels when the endpoint is disabled', async () => {
    const flaky = receiver.path('flaky', [{ status: 500, body: 'boom' }]);
    const landing = receiver.path('landing');
    const redirect = receiver.path('redirect', [{ status: 302, headers: { location: landing.url } }]);
    const down = receiver.path(
      'down',
      Array.from({ length: 10 }, () => ({ status: 503, body: 'x'.repeat(900) })),
    );
    const [e1, e2, e3] = [
      await createEndpoint(live, flaky.url),
      await createEndpoint(live, redirect.url),
      await createEndpoint(live, down.url),
    ];
    const [d1, d2, d3] = [
      expectOk(await live.post(`/v1/webhook_endpoints/${e1.id}/send_test_event`)),
      expectOk(await live.post(`/v1/webhook_endpoints/${e2.id}/send_test_event`)),
      expectOk(await live.post(`/v1/webhook_endpoints/${e3.id}/send_test_event`)),
    ];
    const firstFail = await deliveryReaches(live, d3.id, 'retrying');
    expect(firstFail).toMatchObject({ attempt_count: 1, last_status_code: 503, last_error: 'http_status_503' });
    // The first retry is due 30 s after the attempt finished (read here up to 20 s later).
    const firstWait = deadline('webhook_retry_schedule').schedule![0];
    expect(Date.parse(firstFail.next_attempt_at) - Date.now()).toBeGreaterThan(firstWait - 20_000);
    expect(Date.parse(firstFail.next_attempt_at) - Date.now()).toBeLessThanOrEqual(firstWait);
    expect(firstFail.attempts[0].response_excerpt).toBe('x'.repeat(500));
    expect((await deliveryReaches(live, d2.id, 'retrying')).attempts[0]).toMatchObject({
      status_code: 302,
      error: expect.stringMatching(/^redirect_not_followed/),
    });
    expectOk(await live.patch(`/v1/webhook_endpoints/${e3.id}`, { enabled: false }));

    const ok1 = await deliveryReaches(live, d1.id, 'succeeded', 60000);
    expect(ok1.attempts.map((x: any) => [x.attempt_number, x.status_code])).toEqual([
      [1, 500],
      [2, 200],
    ]);
    expect(ok1.attempts[0]).toMatchObject({ error: 'http_status_500', response_excerpt: 'boom' });
    // Attempt 2 starts once the 30 s wait after attempt 1 ended: not before (1 s of clock rounding), within a turn after.
    const between = Date.parse(ok1.attempts[1].created_at) - Date.parse(ok1.attempts[0].created_at);
    expect(between).toBeGreaterThanOrEqual(deadline('webhook_retry_schedule').schedule![0] - 1_000);
    expect(between).toBeLessThanOrEqual(deadline('webhook_retry_schedule').schedule![0] + 30_000);
    const ok2 = await deliveryReaches(live, d2.id, 'succeeded', 60000);
    expect(ok2.attempts.map((x: any) => x.status_code)).toEqual([302, 200]);
    const cancelled = await deliveryReaches(live, d3.id, 'cancelled', 60000);
    expect(cancelled.attempts).toHaveLength(1);
    expect(cancelled.next_attempt_at).toBeNull();

    expect(receiver.received(landing.path)).toHaveLength(0);
    for (const [ep, p, n] of [
      [e1, flaky, 2],
      [e2, redirect, 2],
      [e3, down, 1],
    ] as const) {
      const got = receiver.received(p.path);
      expect(got).toHaveLength(n);
      for (const r of got) expect(verify(ep.secret, r).type).toBe('test.ping');
      expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(1);
    }
    expectError(await live.post(`/v1/webhook_deliveries/${d3.id}/replay`), 409, 'conflict', 'webhook_endpoint_disabled');
    expectError(await live.post(`/v1/webhook_endpoints/${e3.id}/send_test_event`), 409, 'conflict', 'webhook_endpoint_disabled');
  }, 120_000);

  it('signs with both secrets during the 24 h rotation overlap, then with the new one only', async () => {
    const target = receiver.path('rotate');
    const ep = await createEndpoint(live, target.url);
    const key = idem();
    const rotated = expectOk(await live.post(`/v1/webhook_endpoints/${ep.id}/rotate_secret`, {}, { idem: key }));
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(rotated.secret).not.toBe(ep.secret);
    expect(rotated.secret_prefix).toBe(rotated.secret.slice(0, 10));
    const overlapMs = Date.parse(rotated.previous_secret_expires_at) - Date.now();
    expect(overlapMs).toBeGreaterThan(deadline('secret_rotation_overlap').ms - 60_000);
    expect(overlapMs).toBeLessThanOrEqual(deadline('secret_rotation_overlap').ms);
    const replayed = await live.post(`/v1/webhook_endpoints/${ep.id}/rotate_secret`, {}, { idem: key });
    expect(replayed.body.secret).toBeNull();
    expect(expectOk(await live.get(`/v1/webhook_endpoints/${ep.id}`)).secret_prefix).toBe(rotated.secret_prefix);

    expectOk(await live.post(`/v1/webhook_endpoints/${ep.id}/send_test_event`));
    const during = (await receiver.waitFor(target.path, 1, 'a delivery during the overlap'))[0];
    const sigs = during.headers['webhook-signature'].split(' ');
    expect(sigs).toHaveLength(2);
    for (const s of sigs) expect(s).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    expect(verify(rotated.secret, during).type).toBe('test.ping');
    expect(verify(ep.secret, during).type).toBe('test.ping');

    await db().query(`UPDATE webhook_endpoints SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1`, [ep.id]);
    expect(expectOk(await live.get(`/v1/webhook_endpoints/${ep.id}`)).previous_secret_expires_at).toBeNull();
    expectOk(await live.post(`/v1/webhook_endpoints/${ep.id}/send_test_event`));
    const after = (await receiver.waitFor(target.path, 2, 'a delivery after the overlap'))[1];
    expect(after.headers['webhook-signature'].split(' ')).toHaveLength(1);
    expect(verify(rotated.secret, after).type).toBe('test.ping');
    expect(() => verify(ep.secret, after)).toThrow();
  });

  it('delivers payment link events to subscribed live endpoints only', async () => {
    const fresh = await newAccount();
    const live = client(fresh.live_key);
    const test = client(fresh.test_key);
    const onlyActivated = receiver.path('link-activated');
    const all = receiver.path('link-all');
    const testOnly = receiver.path('link-test');
    const e1 = await createEndpoint(live, onlyActivated.url, ['payment_link.activated']);
    const e2 = await createEndpoint(live, all.url);
    await createEndpoint(test, testOnly.url);

    const link = expectOk(
      await live.post('/v1/payment_links', {
        amount: { amount: '10000', currency: 'USD', decimals: 2 },
        title: 'T',
        accepted_rail_kinds: ['crypto'],
      }),
      201,
    );
    expectOk(await live.post(`/v1/payment_links/${link.id}/activate`, { attestation_accepted: true }));

    const activated = (await receiver.waitFor(onlyActivated.path, 1, 'payment_link.activated at the subscribed endpoint'))[0];
    const evt = verify(e1.secret, activated);
    expect(evt).toMatchObject({ type: 'payment_link.activated', livemode: true, data: { object: { id: link.id, type: 'payment_link' } } });
    expect(evt.request.idempotency_key).toEqual(expect.any(String));
    const types = await eventually(
      async () => {
        const t = receiver.received(all.path).map((r) => verify(e2.secret, r).type);
        return t.includes('payment_link.created') && t.includes('payment_link.activated') ? t : null;
      },
      'both link events at the catch-all endpoint',
      30000,
    );
    expect(types).toEqual(expect.arrayContaining(['payment_link.created', 'payment_link.activated']));
    await webhooksSettled(fresh.account_id); // deterministic: every delivery of the account's events exists and finished
    expect(receiver.received(onlyActivated.path).map((r) => verify(e1.secret, r).type)).toEqual(['payment_link.activated']);
    expect(receiver.received(testOnly.path)).toHaveLength(0);

    const listed = expectOk(await live.get(`/v1/events?object=${link.id}`)).data.map((e: any) => e.type);
    expect(listed).toEqual(expect.arrayContaining(['payment_link.created', 'payment_link.activated']));
    expect(expectOk(await live.get(`/v1/events?type=payment_link.activated&object=${link.id}`)).data).toHaveLength(1);
    const deliveries = expectOk(await live.get(`/v1/webhook_deliveries?event_id=${evt.id}`)).data;
    expect(deliveries.map((x: any) => x.endpoint_id).sort()).toEqual([e1.id, e2.id].sort());
  });
});

// ---------------------------------------------------------------------------------------------
// Dispatcher
// ---------------------------------------------------------------------------------------------

describe('dispatcher', () => {
  afterAll(async () => {
    await closeTemporalClient();
  });

  it('fans each event out once per subscribed endpoint, even with several dispatchers racing', async () => {
    const a = await newAccount();
    const live = client(a.live_key);
    const target = receiver.path('fanout');
    const ep = expectOk(
      await live.post('/v1/webhook_endpoints', { url: target.url, event_types: ['order.created', 'payment.detected'] }),
      201,
    );
    const disabled = expectOk(await live.post('/v1/webhook_endpoints', { url: receiver.path('fanout-disabled').url }), 201);
    expectOk(await live.patch(`/v1/webhook_endpoints/${disabled.id}`, { enabled: false }));
    const base = { accountId: a.account_id, livemode: true, objectType: 'order', object: { id: 'ord_x' } };
    const evts = await transaction(async (m) => {
      const ids: string[] = [];
      for (let i = 0; i < 30; i++) ids.push(await emitEvent(m, { ...base, type: 'order.created', objectId: `ord_${i}` }));
      await emitEvent(m, { ...base, type: 'payment.detected', objectId: 'ord_unshipped' });
      await emitEvent(m, { ...base, type: 'test.ping', objectId: 'ord_ping' });
      await emitEvent(m, { ...base, type: 'order.failed', objectId: 'ord_unsubscribed' });
      await emitEvent(m, { ...base, livemode: false, type: 'order.created', objectId: 'ord_testmode' });
      return ids;
    });
    await Promise.all([dispatchOnce(), dispatchOnce(), dispatchOnce()]);
    const got = await eventually(
      async () => {
        const r = receiver.received(target.path);
        return r.length >= 30 ? r : null;
      },
      '30 deliveries',
      30000,
    );
    await webhooksSettled(a.account_id); // deterministic: every delivery of the account's events exists and finished
    expect(receiver.received(target.path)).toHaveLength(30);
    expect(new Set(got.map((r) => r.headers['webhook-id']))).toEqual(new Set(evts));
    for (const r of got) expect(verify(ep.secret, r).type).toBe('order.created');
    const rows: Array<{ n: number }> = await db().query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE account_id = $1', [
      a.account_id,
    ]);
    expect(rows[0].n).toBe(30);
    // The dispatcher's durable cursor has passed every event of the account.
    const pending: Array<{ n: number }> = await db().query(
      `SELECT count(*)::int AS n FROM events WHERE account_id = $1 AND seq > (SELECT seq FROM outbox_cursors WHERE name = 'webhooks')`,
      [a.account_id],
    );
    expect(pending[0].n).toBe(0);
  }, 60_000);

  it('starts a delivery whose workflow start was lost (sweep)', async () => {
    const a = await newAccount();
    const live = client(a.live_key);
    const target = receiver.path('sweep');
    const ep = expectOk(await live.post('/v1/webhook_endpoints', { url: target.url }), 201);
    const deliveryId = newId('whd_');
    const eventId = await transaction(async (m) => {
      const id = await emitEvent(m, {
        accountId: a.account_id,
        livemode: true,
        type: 'order.created',
        objectType: 'order',
        objectId: 'ord_sweep',
        object: { id: 'ord_sweep' },
      });
      await m.query('UPDATE events SET dispatched_at = now() WHERE id = $1', [id]);
      await m.query(
        `INSERT INTO webhook_deliveries(id, account_id, livemode, endpoint_id, event_id, event_type, created_at)
         VALUES ($1,$2,true,$3,$4,'order.created', now() - interval '20 seconds')`,
        [deliveryId, a.account_id, ep.id, id],
      );
      return id;
    });
    const got = (await receiver.waitFor(target.path, 1, 'the swept delivery'))[0];
    expect(verify(ep.secret, got).id).toBe(eventId);
    const d = await deliveryReaches(live, deliveryId, 'succeeded');
    expect(d.attempt_count).toBe(1);
    const started: Array<{ workflow_started_at: Date | null }> = await db().query(
      'SELECT workflow_started_at FROM webhook_deliveries WHERE id = $1',
      [deliveryId],
    );
    expect(started[0].workflow_started_at).not.toBeNull();
  }, 60_000);

  it('wakes the run that waits for new deliveries: the next event (dispatcher) and a lost wake-up (sweep) go out in that run', async () => {
    const a = await newAccount();
    const live = client(a.live_key);
    const target = receiver.path('waiting');
    const ep = expectOk(await live.post('/v1/webhook_endpoints', { url: target.url, event_types: ['order.created'] }), 201);
    const order = (id: string) => ({
      accountId: a.account_id,
      livemode: true,
      type: 'order.created',
      objectType: 'order',
      objectId: id,
      object: { id, object: 'order' },
    });
    const handle = (await temporalClient()).workflow.getHandle(ep.id);
    // The drain has returned and the run waits (workflows/webhook-endpoint.ts): the next delivery needs a signal.
    const waits = () =>
      eventually(
        async () => {
          const w: string = await handle.query<string>('waiting_for').catch(() => '');
          return /^new deliveries \(idle since \S+; the run ends at \S+ if none\)$/.test(w) ? w : null;
        },
        `endpoint ${ep.id} waiting for new deliveries`,
        30_000,
      );

    await transaction((m) => emitEvent(m, order('ord_wait1')));
    await receiver.waitFor(target.path, 1, 'the first delivery');
    await waits();
    const run = (await handle.describe()).runId;

    await transaction((m) => emitEvent(m, order('ord_wait2')));
    await receiver.waitFor(target.path, 2, 'the delivery the dispatcher woke the run for');
    await waits();

    // Committed with no wake-up sent (a crash between commit and signal): the sweep wakes the waiting run.
    const swept = newId('whd_');
    await transaction(async (m) => {
      const id = await emitEvent(m, order('ord_wait3'));
      await m.query('UPDATE events SET dispatched_at = now() WHERE id = $1', [id]);
      await m.query(
        `INSERT INTO webhook_deliveries(id, account_id, livemode, endpoint_id, event_id, event_type, created_at)
         VALUES ($1,$2,true,$3,$4,'order.created', now() - interval '20 seconds')`,
        [swept, a.account_id, ep.id, id],
      );
    });
    await receiver.waitFor(target.path, 3, 'the swept delivery');
    expect((await deliveryReaches(live, swept, 'succeeded')).attempt_count).toBe(1);
    await waits();
    // One run drained all three.
    expect((await handle.describe()).runId).toBe(run);
    expect(new Set(receiver.received(target.path).map((r) => r.headers['webhook-id'])).size).toBe(3);
  }, 90_000);
});
