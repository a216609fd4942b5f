/**
 * Developers area over HTTP against the running product (spec 4.10, 2.2, 5, 6): the activity feed
 * and its summary, account readiness and setup guide (standalone and as `GET /account?expand=`,
 * with `expand_errors` when an expansion cannot be computed), revoking every dashboard session,
 * and the webhook and card waitlists, each with its refusals.
 */
import { createSession, insertApiKey } from '../../activities/accounts/commands';
import { emitEvent } from '../../lib/outbox';
import { closeDb, db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { API, call, client, connectDb, eventually, expectError, newAccount, memberSession } from '../helpers/api';
import { activeCryptoLink } from '../helpers/fixtures';
import { openStream, opened } from '../helpers/sse';

async function emit(accountId: string, type: string, object: Record<string, unknown> = {}, livemode = true): Promise<string> {
  const objectType = type.split('.')[0];
  const objectId = (object.id as string | undefined) ?? newId(`${objectType.slice(0, 3)}_`);
  return transaction((m) => emitEvent(m, { accountId, livemode, type, objectType, objectId, object: { id: objectId, ...object } }));
}

const ownerOf = async (accountId: string): Promise<string> =>
  (await db().query('SELECT owner_user_id FROM accounts WHERE id = $1', [accountId]))[0].owner_user_id;

beforeAll(async () => {
  await connectDb();
});
afterAll(async () => {
  await closeDb();
});

describe('GET /activity', () => {
  it('lists shipped events as activity, newest first, with category, description, subject, amount and status', async () => {
    const a = await newAccount();
    const other = await newAccount();
    const plId = newId('pl_');
    const e1 = await emit(a.account_id, 'payment_link.created', {
      id: plId,
      status: 'draft',
      amount: { amount: '12345', currency: 'USD', decimals: 2 },
    });
    await emit(a.account_id, 'test.ping');
    await emit(a.account_id, 'payment.detected');
    await emit(a.account_id, 'payment_link.paid', { id: plId }, false);
    await emit(other.account_id, 'payment_link.created');
    const e2 = await emit(a.account_id, 'payment.paid', { status: 'paid' });
    const e3 = await emit(a.account_id, 'webhook_endpoint.disabled');
    const r = await client(a.live_key).get('/v1/activity');
    expect(r.status).toBe(200);
    expect(r.body.data.map((x: any) => x.id)).toEqual([e3, e2, e1]);
    expect(r.body.data[2]).toEqual({
      id: e1,
      object: 'activity',
      livemode: true,
      type: 'payment_link.created',
      category: 'payment_links',
      description: `Payment link ${plId} was created`,
      subject: { id: plId, type: 'payment_link' },
      amount: { amount: '12345', currency: 'USD', decimals: 2 },
      status: 'draft',
      occurred_at: expect.any(String),
    });
    expect(r.body.data[0]).toMatchObject({ category: 'developers', amount: null, status: null });
    expect(r.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    expect(r.body.summary).toBeUndefined();
    const viaSession = await client(a.session_token).get('/v1/activity');
    expect(viaSession.body.data.map((x: any) => x.id)).toEqual([e3, e2, e1]);
  });

  it('filters by category, type, object and time; summary counts; pagination', async () => {
    const a = await newAccount();
    const plId = newId('pl_');
    const e1 = await emit(a.account_id, 'payment_link.created', { id: plId });
    const e2 = await emit(a.account_id, 'payment_link.activated', { id: plId });
    const e3 = await emit(a.account_id, 'payment.paid');
    const api = client(a.live_key);
    const ids = async (q: string) => (await api.get(`/v1/activity?${q}`)).body.data.map((x: any) => x.id);
    expect(await ids('category=payments')).toEqual([e3]);
    expect(await ids('type=payment_link.activated')).toEqual([e2]);
    expect(await ids('type=payment.detected')).toEqual([]);
    expect(await ids(`object=${plId}`)).toEqual([e2, e1]);
    expect(await ids(`until=${encodeURIComponent(new Date(Date.now() - 3600_000).toISOString())}`)).toEqual([]);
    expect(await ids(`since=${encodeURIComponent(new Date(Date.now() - 3600_000).toISOString())}`)).toEqual([e3, e2, e1]);
    const s = await api.get('/v1/activity?expand=summary&limit=1');
    expect(s.body.summary).toEqual({
      total: 3,
      by_category: { payment_links: 2, payments: 1, subscriptions: 0, payouts: 0, payroll: 0, customers: 0, orders: 0, developers: 0 },
    });
    expect(s.body.data.map((x: any) => x.id)).toEqual([e3]);
    expect(s.body.has_more).toBe(true);
    const p2 = await api.get(`/v1/activity?limit=2&cursor=${s.body.next_cursor}`);
    expect(p2.body.data.map((x: any) => x.id)).toEqual([e2, e1]);
    expect(p2.body.has_more).toBe(false);
  });

  it('refusals: bad filters, cursor, scope and test mode', async () => {
    const a = await newAccount();
    const api = client(a.live_key);
    expectError(await api.get('/v1/activity?category=wallets'), 400, 'invalid_request', 'parameter_invalid', 'category');
    expectError(await api.get('/v1/activity?type=payment.nope'), 400, 'invalid_request', 'event_type_unknown', 'type');
    expectError(await api.get('/v1/activity?since=soon'), 400, 'invalid_request', 'parameter_invalid', 'since');
    expectError(await api.get('/v1/activity?cursor=abc'), 400, 'invalid_request', 'cursor_invalid', 'cursor');
    const narrow = await transaction((m) => insertApiKey(m, { accountId: a.account_id, livemode: true, scopes: ['events.read'] }));
    expectError(await client(narrow.secret).get('/v1/activity'), 403, 'permission_error', 'missing_scope');
    expectError(await client(narrow.secret).get('/v1/activity/summary'), 403, 'permission_error', 'missing_scope');
    expectError(await client(a.test_key).get('/v1/activity'), 503, 'temporarily_unavailable', 'test_mode_not_supported');
    expectError(await client(a.test_key).get('/v1/activity/summary'), 503, 'temporarily_unavailable', 'test_mode_not_supported');
  });
});

describe('GET /activity/summary', () => {
  it('counts per category and type over the period, with first and last occurrence', async () => {
    const a = await newAccount();
    const e1 = await emit(a.account_id, 'payment_link.created');
    await emit(a.account_id, 'payment_link.created');
    await emit(a.account_id, 'payment.paid');
    await emit(a.account_id, 'test.ping');
    const old = await emit(a.account_id, 'order.created');
    await db().query(`UPDATE events SET created_at = now() - interval '40 days' WHERE id = $1`, [old]);
    const r = await client(a.live_key).get('/v1/activity/summary');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      object: 'activity_summary',
      livemode: true,
      total: 3,
      by_category: { payment_links: 2, payments: 1, subscriptions: 0, payouts: 0, payroll: 0, customers: 0, orders: 0, developers: 0 },
      by_type: { 'payment.paid': 1, 'payment_link.created': 2 },
    });
    expect(Date.parse(r.body.period.end) - Date.parse(r.body.period.start)).toBe(30 * 86_400_000);
    const first = (await db().query('SELECT created_at FROM events WHERE id = $1', [e1]))[0].created_at as Date;
    expect(r.body.first_at).toBe(first.toISOString());
    const wide = await client(a.session_token).get(
      `/v1/activity/summary?since=${encodeURIComponent(new Date(Date.now() - 50 * 86_400_000).toISOString())}`,
    );
    expect(wide.body.total).toBe(4);
    expect(wide.body.by_category.orders).toBe(1);
    const empty = await client(a.live_key).get(
      `/v1/activity/summary?until=${encodeURIComponent(new Date(Date.now() - 45 * 86_400_000).toISOString())}`,
    );
    expect(empty.body).toMatchObject({ total: 0, by_type: {}, first_at: null, last_at: null });
  });

  it('counts nothing over an empty or inverted period (issue 24) and refuses malformed dates', async () => {
    const a = await newAccount();
    const now = new Date().toISOString();
    const earlier = new Date(Date.now() - 86_400_000).toISOString();
    for (const [since, until] of [
      [now, now],
      [now, earlier],
    ]) {
      const r = await client(a.live_key).get(`/v1/activity/summary?since=${encodeURIComponent(since)}&until=${encodeURIComponent(until)}`);
      expect([r.status, r.body.total, r.body.first_at]).toEqual([200, 0, null]);
    }
    expectError(await client(a.live_key).get('/v1/activity/summary?until=tomorrow'), 400, 'invalid_request', 'parameter_invalid', 'until');
  });
});

describe('readiness and setup guide', () => {
  it('readiness: required and recommended checks, live and test twin, blocked account', async () => {
    const a = await newAccount();
    const r = await client(a.live_key).get('/v1/account/readiness');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ object: 'account_readiness', livemode: true, ready: true });
    const status = (body: any) => Object.fromEntries(body.checks.map((c: any) => [c.code, c.status]));
    expect(status(r.body)).toEqual({
      account_active: 'complete',
      service_wallet: 'complete',
      country: 'action_required',
      support_contact: 'action_required',
      webhook_endpoint: 'action_required',
      terms_accepted: 'action_required',
    });
    expect(r.body.checks.filter((c: any) => c.required).map((c: any) => c.code)).toEqual(['account_active', 'service_wallet']);
    expect((await client(a.session_token).patch('/v1/account', { support_contact: { email: 'help@merchant.example' } })).status).toBe(200);
    expect(status((await client(a.session_token).get('/v1/account/readiness')).body).support_contact).toBe('complete');
    const t = await client(a.test_key).get('/v1/account/readiness');
    expect(t.body).toMatchObject({ livemode: false, ready: true });
    expect(status(t.body)).toMatchObject({ service_wallet: 'not_applicable', support_contact: 'not_applicable' });
    await db().query(`UPDATE accounts SET access_state = 'restricted' WHERE id = $1`, [a.account_id]);
    const blocked = await client(a.live_key).get('/v1/account/readiness');
    expect(blocked.body.ready).toBe(false);
    expect(status(blocked.body).account_active).toBe('blocked');
  });

  it("setup guide: steps completed from the account's own data, next step, test twin", async () => {
    const { creds } = await activeCryptoLink();
    const g = await client(creds.live_key).get('/v1/account/setup_guide');
    expect(g.status).toBe(200);
    const done = (body: any) => Object.fromEntries(body.steps.map((s: any) => [s.key, s.completed]));
    expect(done(g.body)).toEqual({
      create_api_key: true,
      create_payment_link: true,
      activate_payment_link: true,
      receive_payment: false,
      add_webhook_endpoint: false,
      set_support_contact: false,
    });
    expect(g.body).toMatchObject({
      object: 'setup_guide',
      livemode: true,
      completed_count: 3,
      total_count: 6,
      next_step: 'receive_payment',
    });
    expect(Date.parse(g.body.steps[0].completed_at)).not.toBeNaN();
    const wh = await client(creds.live_key).post('/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/hooks' });
    expect(wh.status).toBeLessThan(300);
    expect(done((await client(creds.live_key).get('/v1/account/setup_guide')).body).add_webhook_endpoint).toBe(true);
    const t = await client(creds.test_key).get('/v1/account/setup_guide');
    expect(done(t.body)).toEqual({
      create_api_key: true,
      create_payment_link: false,
      activate_payment_link: false,
      receive_payment: false,
      add_webhook_endpoint: false,
    });
    expect(t.body).toMatchObject({ livemode: false, total_count: 5, next_step: 'create_payment_link' });
  });

  it('GET /account?expand= adds readiness and setup_guide; unknown values are ignored', async () => {
    const a = await newAccount();
    const plain = await client(a.live_key).get('/v1/account');
    expect(plain.body.readiness).toBeUndefined();
    expect(plain.body.setup_guide).toBeUndefined();
    expect(plain.body.expand_errors).toBeUndefined();
    const both = await client(a.live_key).get('/v1/account?expand=readiness,setup_guide');
    expect(both.body.readiness).toEqual((await client(a.live_key).get('/v1/account/readiness')).body);
    expect(both.body.setup_guide).toEqual((await client(a.live_key).get('/v1/account/setup_guide')).body);
    expect(both.body.expand_errors).toBeUndefined();
    const arr = await client(a.live_key).get('/v1/account?expand=setup_guide&expand=bogus');
    expect(arr.body.setup_guide.object).toBe('setup_guide');
    expect(arr.body.readiness).toBeUndefined();
    expect(arr.body.expand_errors).toBeUndefined();
  });

  it('an expansion that cannot be computed in time is reported in expand_errors; its own route answers 503', async () => {
    const a = await newAccount();
    // Hold an exclusive lock on wallets (read by readiness only) beyond the expansion statement timeout.
    const qr = db().createQueryRunner();
    await qr.connect();
    await qr.startTransaction();
    try {
      await qr.query('LOCK TABLE wallets IN ACCESS EXCLUSIVE MODE');
      const r = await client(a.live_key).get('/v1/account?expand=readiness,setup_guide');
      expect(r.status).toBe(200);
      expect(r.body.id).toBe(a.account_id);
      expect(r.body.readiness).toBeUndefined();
      expect(r.body.setup_guide.object).toBe('setup_guide');
      expect(r.body.expand_errors).toEqual({
        readiness: { type: 'temporarily_unavailable', code: 'readiness_unavailable', message: expect.any(String) },
      });
      const own = await client(a.live_key).get('/v1/account/readiness');
      expectError(own, 503, 'temporarily_unavailable', 'readiness_unavailable');
      expect(own.headers.get('retry-after')).toBe('5');
    } finally {
      await qr.rollbackTransaction();
      await qr.release();
    }
    const after = await client(a.live_key).get('/v1/account?expand=readiness');
    expect(after.body.readiness.object).toBe('account_readiness');
    expect(after.body.expand_errors).toBeUndefined();
  });

  it('refuses keys without account.read', async () => {
    const a = await newAccount();
    const narrow = await transaction((m) => insertApiKey(m, { accountId: a.account_id, livemode: true, scopes: ['events.read'] }));
    expectError(await client(narrow.secret).get('/v1/account/readiness'), 403, 'permission_error', 'missing_scope');
    expectError(await client(narrow.secret).get('/v1/account/setup_guide'), 403, 'permission_error', 'missing_scope');
  });
});

describe('POST /account/sessions/revoke_all', () => {
  it("revokes every session of the caller's login (the calling one too) and ends their streams", async () => {
    const a = await newAccount();
    const second = await transaction(async (m) => createSession(m, await ownerOf(a.account_id)));
    const viewer = await memberSession(a.account_id, 'viewer');
    const s = openStream(API(), second);
    try {
      await opened(s);
      const r = await client(a.session_token).post('/v1/account/sessions/revoke_all');
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ object: 'session_revocation', revoked_count: 2 });
      expect(Date.parse(r.body.revoked_at)).not.toBeNaN();
      expectError(await client(a.session_token).get('/v1/account'), 401, 'authentication_error', 'session_revoked');
      expectError(await client(second).get('/v1/account'), 401, 'authentication_error', 'session_revoked');
      expect((await client(viewer).get('/v1/account')).status).toBe(200);
      expect((await client(a.live_key).get('/v1/account')).status).toBe(200);
      await eventually(async () => s.errors.some((e) => e.code === 401), "the revoked session's stream to end");
    } finally {
      s.close();
    }
    // Any member may sign themselves out.
    const v = await client(viewer).post('/v1/account/sessions/revoke_all');
    expect(v.body.revoked_count).toBe(1);
  });

  it('refusals: business key, unknown body key, missing Idempotency-Key; replay', async () => {
    const a = await newAccount();
    expectError(await client(a.live_key).post('/v1/account/sessions/revoke_all'), 403, 'permission_error', 'role_denied');
    expectError(
      await client(a.session_token).post('/v1/account/sessions/revoke_all', { everywhere: true }),
      400,
      'invalid_request',
      'parameter_unknown',
      'everywhere',
    );
    expectError(
      await call('POST', '/v1/account/sessions/revoke_all', {}, { bearer: a.session_token, idem: null }),
      400,
      'invalid_request',
      'idempotency_key_invalid',
    );
    const other = await transaction(async (m) => createSession(m, await ownerOf(a.account_id)));
    const first = await client(other).post('/v1/account/sessions/revoke_all', {}, { idem: 'idem_revoke_all_replay_01' });
    expect(first.body.revoked_count).toBe(2);
    // The calling session is revoked, so even its replay is refused at authentication.
    expectError(
      await client(other).post('/v1/account/sessions/revoke_all', {}, { idem: 'idem_revoke_all_replay_01' }),
      401,
      'authentication_error',
      'session_revoked',
    );
  });
});

describe('waitlists', () => {
  it('joins the webhook and card waitlists once per account; repeat calls update the contact', async () => {
    const a = await newAccount();
    const email: string = (await client(a.live_key).get('/v1/account')).body.email;
    const j = await client(a.live_key).post('/v1/webhook_waitlist', {});
    expect(j.status).toBe(200);
    expect(j.body).toMatchObject({ object: 'waitlist_entry', waitlist: 'webhooks', livemode: true, email, use_case: null });
    const again = await client(a.session_token).post('/v1/webhook_waitlist', { email: 'dev@merchant.example', use_case: 'Order sync' });
    expect(again.body).toMatchObject({ email: 'dev@merchant.example', use_case: 'Order sync', joined_at: j.body.joined_at });
    const keep = await client(a.live_key).post('/v1/webhook_waitlist', {});
    expect(keep.body).toMatchObject({ email: 'dev@merchant.example', use_case: 'Order sync' });
    const card = await client(a.live_key).post('/v1/card_waitlist', { use_case: 'Team expenses' });
    expect(card.body).toMatchObject({ waitlist: 'cards', email, use_case: 'Team expenses' });
    const rows = await db().query('SELECT waitlist FROM waitlist_entries WHERE account_id = $1 ORDER BY waitlist', [a.account_id]);
    expect(rows.map((x: { waitlist: string }) => x.waitlist)).toEqual(['cards', 'webhooks']);
    const replay = await client(a.live_key).post('/v1/card_waitlist', { use_case: 'Team expenses' }, { idem: 'idem_card_waitlist_rep01' });
    const replayed = await client(a.live_key).post(
      '/v1/card_waitlist',
      { use_case: 'Team expenses' },
      { idem: 'idem_card_waitlist_rep01' },
    );
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(replay.body);
  });

  it('refusals: body, scope, role, test mode, idempotency key', async () => {
    const a = await newAccount();
    for (const path of ['/v1/webhook_waitlist', '/v1/card_waitlist']) {
      expectError(await client(a.live_key).post(path, { email: 'not-an-email' }), 400, 'invalid_request', 'parameter_invalid', 'email');
      expectError(
        await client(a.live_key).post(path, { use_case: 'x'.repeat(501) }),
        400,
        'invalid_request',
        'parameter_invalid',
        'use_case',
      );
      expectError(await client(a.live_key).post(path, { plan: 'pro' }), 400, 'invalid_request', 'parameter_unknown', 'plan');
      expectError(await call('POST', path, {}, { key: a.live_key, idem: null }), 400, 'invalid_request', 'idempotency_key_invalid');
      expectError(await client(a.test_key).post(path, {}), 503, 'temporarily_unavailable', 'test_mode_not_supported');
      const readOnly = await transaction((m) => insertApiKey(m, { accountId: a.account_id, livemode: true, scopes: ['account.read'] }));
      expectError(await client(readOnly.secret).post(path, {}), 403, 'permission_error', 'missing_scope');
      expectError(await client(await memberSession(a.account_id, 'viewer')).post(path, {}), 403, 'permission_error', 'scope_denied');
    }
  });
});
