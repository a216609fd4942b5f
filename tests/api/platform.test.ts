/**
 * Cross-cutting platform rules against the running product (real PostgreSQL, real Temporal):
 * authentication (spec 5), the error envelope (7), idempotency (8), versioning (9), test mode
 * (1 rule 5), scopes and roles, Service-Account selection, well-known routes, API keys (4.10).
 */
import crypto from 'node:crypto';
import { insertApiKey } from '../../activities/accounts/commands';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { sha256Hex } from '../../lib/secrets';
import { call, client, connectDb, expectError, idem, newAccount, memberSession } from '../helpers/api';

let acct: Awaited<ReturnType<typeof newAccount>>;

beforeAll(async () => {
  await connectDb();
  acct = await newAccount();
});

async function keyWith(scopes: string[], extra: { ipAllowlist?: string[]; livemode?: boolean } = {}): Promise<string> {
  const { secret } = await transaction((m) =>
    insertApiKey(m, { accountId: acct.account_id, livemode: extra.livemode ?? true, scopes, ipAllowlist: extra.ipAllowlist }),
  );
  return secret;
}

describe('authentication (spec 5)', () => {
  test('no credential is 401 with the envelope and a req_ id; every response carries Service-Version', async () => {
    const r = await call('GET', '/v1/account');
    expectError(r, 401, 'authentication_error');
    expect(r.body.error.request_id).toMatch(/^req_/);
    expect(r.headers.get('request-id')).toBe(r.body.error.request_id);
    expect(r.headers.get('service-version')).toBe('2026-09-04');
    expect(JSON.stringify(r.body)).not.toMatch(/at .*\.js/);
  });

  test('a key works in x-api-key and as a Bearer token', async () => {
    expect((await call('GET', '/v1/account', undefined, { key: acct.live_key })).status).toBe(200);
    const r = await call('GET', '/v1/account', undefined, { bearer: acct.live_key });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: acct.account_id, object: 'account', livemode: true, caller: { type: 'business_key', role: null } });
  });

  test('an unknown or malformed key is 401 invalid_api_key', async () => {
    expectError(
      await call('GET', '/v1/account', undefined, { key: 'sk_live_doesnotexist123' }),
      401,
      'authentication_error',
      'invalid_api_key',
    );
    expectError(await call('GET', '/v1/account', undefined, { key: 'sk_live_' }), 401, 'authentication_error', 'invalid_api_key');
    expectError(await call('GET', '/v1/account', undefined, { bearer: 'nonsense' }), 401, 'authentication_error', 'invalid_api_key');
  });

  test('a key whose prefix does not match the mode it was minted for is 401 invalid_api_key', async () => {
    const secret = `sk_test_${crypto.randomBytes(16).toString('hex')}`;
    await db().query(
      `INSERT INTO api_keys(id, account_id, livemode, secret_hash, secret_last4, scopes) VALUES ($1,$2,true,$3,'abcd','{account.read}')`,
      [newId('key_'), acct.account_id, sha256Hex(secret)],
    );
    expectError(await call('GET', '/v1/account', undefined, { key: secret }), 401, 'authentication_error', 'invalid_api_key');
  });

  test('a key revoked in flight fails with authentication_error', async () => {
    const k = await keyWith(['account.read']);
    expect((await call('GET', '/v1/account', undefined, { key: k })).status).toBe(200);
    await db().query(`UPDATE api_keys SET status = 'revoked', revoked_at = now() WHERE secret_hash = $1`, [sha256Hex(k)]);
    // The revocation reaches every instance's cache through NOTIFY at commit (milliseconds; allow
    // for a loaded machine): the key fails on the first request after the notification lands.
    let res = await call('GET', '/v1/account', undefined, { key: k });
    for (let i = 0; i < 40 && res.status === 200; i++) {
      await new Promise((r) => setTimeout(r, 25));
      res = await call('GET', '/v1/account', undefined, { key: k });
    }
    expectError(res, 401, 'authentication_error', 'api_key_revoked');
  });

  test('an expired key is refused', async () => {
    const k = await keyWith(['account.read']);
    await db().query(`UPDATE api_keys SET expires_at = now() - interval '1 minute' WHERE secret_hash = $1`, [sha256Hex(k)]);
    expectError(await call('GET', '/v1/account', undefined, { key: k }), 401, 'authentication_error', 'api_key_expired');
  });

  test('a populated IP allowlist refuses other sources; an empty one allows all', async () => {
    const k = await keyWith(['account.read'], { ipAllowlist: ['203.0.113.9'] });
    expectError(await call('GET', '/v1/account', undefined, { key: k }), 403, 'permission_error', 'ip_not_allowed');
    const k2 = await keyWith(['account.read'], { ipAllowlist: ['127.0.0.1'] });
    expect((await call('GET', '/v1/account', undefined, { key: k2 })).status).toBe(200);
  });

  test('a missing scope is 403 permission_error; an empty scope list denies everything', async () => {
    const readOnly = await keyWith(['account.read']);
    expectError(await call('GET', '/v1/api_keys', undefined, { key: readOnly }), 403, 'permission_error', 'missing_scope');
    const none = await keyWith([]);
    expectError(await call('GET', '/v1/account', undefined, { key: none }), 403, 'permission_error', 'missing_scope');
  });

  test('dashboard-session-only routes refuse keys with role_denied; a key never mints a key', async () => {
    expectError(await client(acct.live_key).post('/v1/api_keys', { scopes: ['account.read'] }), 403, 'permission_error', 'role_denied');
    expectError(await client(acct.live_key).patch('/v1/account', { display_name: 'x' }), 403, 'permission_error', 'role_denied');
  });

  test('owner/admin-only actions refuse other members with scope_denied', async () => {
    const viewer = await memberSession(acct.account_id, 'viewer');
    expectError(await client(viewer).post('/v1/api_keys', { scopes: ['account.read'] }), 403, 'permission_error', 'scope_denied');
    const dev = await memberSession(acct.account_id, 'developer');
    expectError(await client(dev).patch('/v1/account', { display_name: 'x' }), 403, 'permission_error', 'scope_denied');
    const r = await client(viewer).get('/v1/account');
    expect(r.status).toBe(200);
    expect(r.body.caller).toEqual({ type: 'dashboard_session', role: 'viewer' });
  });

  test('Service-Account selects a membership; a non-member account is 404', async () => {
    const other = await newAccount();
    const r = await client(acct.session_token).get('/v1/account', { headers: { 'Service-Account': acct.account_id } });
    expect(r.body.id).toBe(acct.account_id);
    expectError(
      await client(acct.session_token).get('/v1/account', { headers: { 'Service-Account': other.account_id } }),
      404,
      'not_found',
    );
    // Ignored for keys.
    expect((await client(acct.live_key).get('/v1/account', { headers: { 'Service-Account': other.account_id } })).body.id).toBe(
      acct.account_id,
    );
  });

  test('a revoked or expired dashboard session is 401', async () => {
    const s = await memberSession(acct.account_id, 'admin');
    await db().query('UPDATE dashboard_sessions SET revoked_at = now() WHERE token_hash = $1', [sha256Hex(s)]);
    expectError(await client(s).get('/v1/account'), 401, 'authentication_error', 'session_revoked');
  });

  test('/.well-known OAuth documents answer 404', async () => {
    for (const p of ['/.well-known/oauth-authorization-server', '/.well-known/oauth-protected-resource']) {
      expectError(await call('GET', p), 404, 'not_found');
    }
  });

  test('cross-account ids are 404, never 403', async () => {
    const other = await newAccount();
    const keys = await client(other.live_key).get('/v1/api_keys');
    const otherKeyId = keys.body.data[0].id;
    expectError(await client(acct.live_key).get(`/v1/api_keys/${otherKeyId}`), 404, 'not_found');
  });
});

describe('request validation and the envelope (spec 7, 1 rule 7)', () => {
  test('an unknown body key is 400 naming it in param', async () => {
    expectError(
      await client(acct.session_token).patch('/v1/account', { display_name: 'ok', surprise: 1 }),
      400,
      'invalid_request',
      'parameter_unknown',
      'surprise',
    );
  });

  test('a malformed JSON body is 400 invalid_request', async () => {
    expectError(
      await call('PATCH', '/v1/account', undefined, { bearer: acct.session_token, raw: '{"display_name":' }),
      400,
      'invalid_request',
    );
  });

  test('an unknown route is 404 in the envelope', async () => {
    expectError(await client(acct.live_key).get('/v1/nope'), 404, 'not_found');
  });
});

describe('idempotency (spec 8)', () => {
  test('mutations require a valid Idempotency-Key', async () => {
    expectError(
      await client(acct.session_token).patch('/v1/account', { display_name: 'A' }, { idem: null }),
      400,
      'invalid_request',
      'idempotency_key_invalid',
      'Idempotency-Key',
    );
    expectError(
      await client(acct.session_token).patch('/v1/account', { display_name: 'A' }, { idem: 'short' }),
      400,
      'invalid_request',
      'idempotency_key_invalid',
    );
    expectError(
      await client(acct.session_token).patch('/v1/account', { display_name: 'A' }, { idem: 'has spaces in it!!!!' }),
      400,
      'invalid_request',
      'idempotency_key_invalid',
    );
    expectError(
      await client(acct.session_token).patch('/v1/account', { display_name: 'A' }, { idem: 'x'.repeat(129) }),
      400,
      'invalid_request',
      'idempotency_key_invalid',
    );
  });

  test('a replay returns the stored status and body, with the secret redacted; a different body is 409', async () => {
    const key = idem();
    const first = await client(acct.session_token).post('/v1/api_keys', { scopes: ['account.read'], name: 'replayed' }, { idem: key });
    expect(first.status).toBe(201);
    expect(first.body.secret).toMatch(/^sk_live_/);
    const again = await client(acct.session_token).post('/v1/api_keys', { scopes: ['account.read'], name: 'replayed' }, { idem: key });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.secret).toBeNull();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expectError(
      await client(acct.session_token).post('/v1/api_keys', { scopes: ['account.read'], name: 'different' }, { idem: key }),
      409,
      'idempotency_error',
    );
    const count = await db().query(`SELECT count(*)::int AS n FROM api_keys WHERE account_id = $1 AND name = 'replayed'`, [
      acct.account_id,
    ]);
    expect(count[0].n).toBe(1);
  });

  test('the same key on another route is independent', async () => {
    const key = idem();
    const a = await client(acct.session_token).post('/v1/api_keys', { scopes: ['account.read'] }, { idem: key });
    const b = await client(acct.session_token).patch('/v1/account', { display_name: 'Renamed' }, { idem: key });
    expect(a.status).toBe(201);
    expect(b.status).toBe(200);
  });

  test('concurrent duplicates execute once', async () => {
    const key = idem();
    const body = { scopes: ['account.read'], name: `concurrent-${key}` };
    const results = await Promise.all(
      Array.from({ length: 6 }, () => client(acct.session_token).post('/v1/api_keys', body, { idem: key })),
    );
    const ids = new Set(results.filter((r) => r.status === 201).map((r) => r.body.id));
    expect(ids.size).toBe(1);
    const n = await db().query('SELECT count(*)::int AS n FROM api_keys WHERE name = $1', [body.name]);
    expect(n[0].n).toBe(1);
  });

  describe('inline records (POST /payment_links: link, event and record in one statement)', () => {
    const linkBody = (title: string) => ({ amount: { amount: '2500', currency: 'USD', decimals: 2 }, title });

    test('a replay returns the stored body with the minted reference; a different body is 409', async () => {
      const key = idem();
      const first = await client(acct.live_key).post('/v1/payment_links', linkBody(`inline-${key}`), { idem: key });
      expect(first.status).toBe(201);
      expect(first.body.reference_id).toMatch(/^CP-\d+$/);
      const again = await client(acct.live_key).post('/v1/payment_links', linkBody(`inline-${key}`), { idem: key });
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      expectError(
        await client(acct.live_key).post('/v1/payment_links', linkBody('other'), { idem: key }),
        409,
        'idempotency_error',
        'idempotency_key_reused',
      );
      const rows = await db().query(`SELECT count(*)::int AS n FROM payment_links WHERE title = $1`, [`inline-${key}`]);
      expect(rows[0].n).toBe(1);
      const events = await db().query(`SELECT count(*)::int AS n FROM events WHERE object_id = $1 AND type = 'payment_link.created'`, [
        first.body.id,
      ]);
      expect(events[0].n).toBe(1);
      const ev = await db().query(`SELECT data FROM events WHERE object_id = $1`, [first.body.id]);
      expect(ev[0].data.object.reference_id).toBe(first.body.reference_id);
    });

    test('concurrent duplicates create one link and all answer with it', async () => {
      const key = idem();
      const results = await Promise.all(
        Array.from({ length: 6 }, () => client(acct.live_key).post('/v1/payment_links', linkBody(`race-${key}`), { idem: key })),
      );
      expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201, 201, 201]);
      expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
      const rows = await db().query(`SELECT count(*)::int AS n FROM payment_links WHERE title = $1`, [`race-${key}`]);
      expect(rows[0].n).toBe(1);
    });

    test('reference numbers are unique and increasing across concurrent creates', async () => {
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => client(acct.live_key).post('/v1/payment_links', linkBody(`seq-${i}`))),
      );
      const refs = results.map((r) => Number(String(r.body.reference_id).slice(3)));
      expect(new Set(refs).size).toBe(8);
      const stored = await db().query('SELECT reference_id FROM payment_links WHERE id = ANY($1)', [results.map((r) => r.body.id)]);
      expect(stored.map((r: { reference_id: string }) => r.reference_id).sort()).toEqual(results.map((r) => r.body.reference_id).sort());
    });

    test('a refusal is recorded under the key and replayed; a validation failure leaves the key free', async () => {
      const key = idem();
      const refused = await client(acct.live_key).post(
        '/v1/payment_links',
        { ...linkBody('x'), client_id: 'cli_doesnotexist000000000000' },
        { idem: key },
      );
      expectError(refused, 404, 'not_found', undefined, 'client_id');
      const replayed = await client(acct.live_key).post(
        '/v1/payment_links',
        { ...linkBody('x'), client_id: 'cli_doesnotexist000000000000' },
        { idem: key },
      );
      expectError(replayed, 404, 'not_found', undefined, 'client_id');
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
      const key2 = idem();
      expectError(
        await client(acct.live_key).post('/v1/payment_links', { amount: { amount: '-1', currency: 'USD', decimals: 2 } }, { idem: key2 }),
        400,
        'invalid_request',
      );
      expect((await client(acct.live_key).post('/v1/payment_links', linkBody('after-validation'), { idem: key2 })).status).toBe(201);
    });
  });

  test('a request that failed after it may have taken effect answers 409 idempotency_failed on retry', async () => {
    const key = idem();
    await db().query(
      `INSERT INTO idempotency_records(account_id, route, key, livemode, request_hash, state) VALUES ($1, $2, $3, true, $4, 'failed')`,
      [acct.account_id, 'live:POST /v1/api_keys', key, crypto.createHash('sha256').update('{"scopes":["account.read"]}').digest('hex')],
    );
    expectError(
      await client(acct.session_token).post('/v1/api_keys', { scopes: ['account.read'] }, { idem: key }),
      409,
      'idempotency_error',
      'idempotency_failed',
    );
  });
});

describe('versioning (spec 9)', () => {
  test('the served version is echoed; an older date is echoed as the oldest; a malformed one is 400', async () => {
    const a = await client(acct.live_key).get('/v1/account', { headers: { 'Service-Version': '2026-09-04' } });
    expect(a.headers.get('service-version')).toBe('2026-09-04');
    const old = await client(acct.live_key).get('/v1/account', { headers: { 'Service-Version': '2020-01-01' } });
    expect(old.status).toBe(200);
    expect(old.headers.get('service-version')).toBe('2026-09-04');
    const bad = await client(acct.live_key).get('/v1/account', { headers: { 'Service-Version': 'yesterday' } });
    expectError(bad, 400, 'invalid_request', 'version_invalid', 'Service-Version');
    expect(bad.headers.get('service-version')).toBe('2026-09-04');
  });

  test("a key's default version is served when no header is sent", async () => {
    const { secret } = await transaction((m) =>
      insertApiKey(m, { accountId: acct.account_id, livemode: true, scopes: ['account.read'], defaultVersion: '2026-01-01' }),
    );
    const r = await client(secret).get('/v1/account');
    expect(r.headers.get('service-version')).toBe('2026-09-04');
  });
});

describe('test mode (spec 1 rule 5)', () => {
  test('a test key reads the account as its test twin', async () => {
    const r = await client(acct.test_key).get('/v1/account');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      livemode: false,
      language: null,
      support_contact: null,
      notification_preferences: { marketing: false, product_tips: true },
      dashboard_preferences: {},
    });
  });

  test('operations outside the test-mode reach answer 503 without Retry-After', async () => {
    const r = await client(acct.test_key).get('/v1/payments');
    expectError(r, 503, 'temporarily_unavailable');
    expect(r.headers.get('retry-after')).toBeNull();
  });

  test('a test key lists only test-mode API keys', async () => {
    const r = await client(acct.test_key).get('/v1/api_keys');
    expect(r.status).toBe(200);
    expect(r.body.data.every((k: { livemode: boolean }) => k.livemode === false)).toBe(true);
  });
});

describe('accounts and API keys (spec 4.10)', () => {
  test('PATCH /account updates writable fields for the owner session', async () => {
    const r = await client(acct.session_token).patch('/v1/account', {
      display_name: 'Acme Studio',
      language: 'en',
      support_contact: { email: 'help@acme.example' },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ display_name: 'Acme Studio', language: 'en', support_contact: { email: 'help@acme.example' } });
  });

  test('PATCH /account by a test-mode caller is 400 livemode_boundary', async () => {
    expectError(await client(acct.test_key).patch('/v1/account', { display_name: 'x' }), 400, 'invalid_request', 'livemode_boundary');
  });

  test('POST /accounts: 409 account_already_exists for a login owning a live account; 403 for keys', async () => {
    expectError(
      await client(acct.session_token).post('/v1/accounts', { display_name: 'Second' }),
      409,
      'conflict',
      'account_already_exists',
    );
    expectError(await client(acct.live_key).post('/v1/accounts', { display_name: 'Second' }), 403, 'permission_error');
    expectError(
      await client(acct.session_token).post('/v1/accounts', { display_name: 'Second', country: 'XX' }),
      400,
      'invalid_request',
      undefined,
      'country',
    );
    expect((await client(acct.session_token).get('/v1/accounts')).body.data.map((a: { id: string }) => a.id)).toContain(acct.account_id);
  });

  test('API keys: create needs a non-empty scopes array; the secret is shown once; roll and revoke', async () => {
    const s = client(acct.session_token);
    expectError(await s.post('/v1/api_keys', { scopes: [] }), 400, 'invalid_request', undefined, 'scopes');
    expectError(await s.post('/v1/api_keys', {}), 400, 'invalid_request', 'parameter_missing', 'scopes');
    expectError(await s.post('/v1/api_keys', { scopes: ['nope.read'] }), 400, 'invalid_request', undefined, 'scopes.0');
    const created = await s.post('/v1/api_keys', { scopes: ['account.read', 'developers.read'], name: 'ci' });
    expect(created.status).toBe(201);
    const secret = created.body.secret;
    const got = await s.get(`/v1/api_keys/${created.body.id}`);
    expect(got.body.secret).toBeUndefined();
    expect(got.body.redacted_secret).toBe(`sk_live_...${secret.slice(-4)}`);
    expect((await client(secret).get('/v1/api_keys')).status).toBe(200);
    const rolled = await s.post(`/v1/api_keys/${created.body.id}/roll`);
    expect(rolled.status).toBe(200);
    expect(rolled.body.rolled_from).toBe(created.body.id);
    expectError(await client(secret).get('/v1/account'), 401, 'authentication_error', 'api_key_revoked');
    expect((await client(rolled.body.secret).get('/v1/account')).status).toBe(200);
    const revoked = await s.post(`/v1/api_keys/${rolled.body.id}/revoke`);
    expect(revoked.body.status).toBe('revoked');
    expectError(await client(rolled.body.secret).get('/v1/account'), 401, 'authentication_error', 'api_key_revoked');
  });

  test('list pagination: limit rules and cursors', async () => {
    const s = client(acct.session_token);
    for (let i = 0; i < 3; i++) await s.post('/v1/api_keys', { scopes: ['account.read'], name: `page-${i}` });
    const all = await s.get('/v1/api_keys?limit=100');
    const total = all.body.data.length;
    expect(total).toBeGreaterThanOrEqual(5);
    for (const bad of ['0', '-1', '1.5', 'abc']) {
      const r = await s.get(`/v1/api_keys?limit=${bad}`);
      expect(r.body.data.length).toBe(Math.min(25, total));
    }
    const capped = await s.get('/v1/api_keys?limit=500');
    expect(capped.status).toBe(200);
    const p1 = await s.get('/v1/api_keys?limit=2');
    expect(p1.body).toMatchObject({ has_more: true });
    expect(typeof p1.body.next_cursor).toBe('string');
    const p2 = await s.get(`/v1/api_keys?limit=2&cursor=${encodeURIComponent(p1.body.next_cursor)}`);
    const ids = [...p1.body.data, ...p2.body.data].map((k: { id: string }) => k.id);
    expect(new Set(ids).size).toBe(4);
    expect(ids).toEqual(all.body.data.slice(0, 4).map((k: { id: string }) => k.id));
    expectError(await s.get('/v1/api_keys?cursor=garbage'), 400, 'invalid_request', 'cursor_invalid', 'cursor');
    const last = await s.get(`/v1/api_keys?limit=100`);
    expect(last.body).toMatchObject({ has_more: false, next_cursor: null });
  });
});
