/**
 * Request logs and API-key usage over HTTP against the running product (spec 4.10): every /v1
 * request is recorded (successes, validation errors, refusals, authentication failures) with
 * method, path, status, latency, request id, caller, key id and idempotency key and never a body;
 * rows are buffered and flushed in batches, so reads poll. Filters, summary, pagination, test-mode
 * isolation, scope refusals, and `GET /api_keys/{id}/usage` with its errors.
 */
import { insertApiKey } from '../../activities/accounts/commands';
import { closeDb, db, transaction } from '../../lib/db';
import { sha256Hex } from '../../lib/secrets';
import { call, client, connectDb, eventually, expectError, newAccount } from '../helpers/api';

const keyId = async (secret: string): Promise<string> =>
  (await db().query('SELECT id FROM api_keys WHERE secret_hash = $1', [sha256Hex(secret)]))[0].id;

/** Polls the request-log list of `cred` (query `q`) until every id in `ids` is listed. */
async function logsFor(cred: string, ids: string[], q = ''): Promise<any[]> {
  return eventually(
    async () => {
      const r = await client(cred).get(`/v1/request_logs?limit=100${q}`);
      if (r.status !== 200) throw new Error(JSON.stringify(r.body));
      const data: any[] = r.body.data;
      return ids.every((id) => data.some((x) => x.id === id)) ? data : null;
    },
    `request logs ${ids.join(',')}`,
  );
}

beforeAll(async () => {
  await connectDb();
});
afterAll(async () => {
  await closeDb();
});

describe('recording', () => {
  it('records successes, errors and refusals with their final status, caller, key and idempotency key', async () => {
    const a = await newAccount();
    const api = client(a.live_key);
    const ok = await api.get('/v1/account');
    const missing = await api.get('/v1/clients/cli_nope');
    const bad = await api.post('/v1/clients', { display_name: 'Ada', nope: 1 }, { idem: 'idem_request_log_bad_0001' });
    const created = await api.post(
      '/v1/clients',
      { display_name: 'Grace', email: 'grace.private@merchant.example' },
      { idem: 'idem_request_log_ok_00001' },
    );
    expect([ok.status, missing.status, bad.status, created.status]).toEqual([200, 404, 400, 201]);
    const ids = [ok, missing, bad, created].map((r) => r.headers.get('request-id')!);
    const logs = await logsFor(a.live_key, ids);
    const byId = (id: string) => logs.find((x) => x.id === id);
    const k = await keyId(a.live_key);
    expect(byId(ids[0])).toMatchObject({
      object: 'request_log',
      livemode: true,
      method: 'GET',
      path: '/v1/account',
      status: 200,
      request_id: ids[0],
      caller_type: 'business_key',
      api_key_id: k,
      idempotency_key: null,
      error: null,
      api_version: '2026-09-04',
    });
    expect(byId(ids[0]).latency_ms).toBeGreaterThanOrEqual(0);
    expect(Date.parse(byId(ids[0]).created_at)).not.toBeNaN();
    expect(byId(ids[1])).toMatchObject({ status: 404, path: '/v1/clients/cli_nope', error: { type: 'not_found', code: 'not_found' } });
    expect(byId(ids[2])).toMatchObject({
      method: 'POST',
      status: 400,
      idempotency_key: 'idem_request_log_bad_0001',
      error: { type: 'invalid_request', code: 'parameter_unknown' },
    });
    expect(byId(ids[3])).toMatchObject({ method: 'POST', status: 201, idempotency_key: 'idem_request_log_ok_00001', error: null });
    // Never a body: the stored row carries nothing that was sent or answered.
    const row: Array<{ t: string }> = await db().query('SELECT r::text AS t FROM request_logs r WHERE id = $1', [ids[3]]);
    expect(row[0].t).not.toContain('grace.private');
    expect(row[0].t).not.toContain('Grace');
  });

  it("records authentication failures (no account) and scope refusals (the key's account)", async () => {
    const a = await newAccount();
    const unauth = await call('GET', '/v1/request_logs', undefined, { key: 'sk_live_doesnotexist' });
    expect(unauth.status).toBe(401);
    const rid = unauth.headers.get('request-id')!;
    const row = await eventually(async () => (await db().query('SELECT * FROM request_logs WHERE id = $1', [rid]))[0], 'the 401 row');
    expect(row).toMatchObject({
      account_id: null,
      api_key_id: null,
      status: 401,
      error_type: 'authentication_error',
      error_code: 'invalid_api_key',
      method: 'GET',
      path: '/v1/request_logs',
    });
    const narrow = await transaction((m) => insertApiKey(m, { accountId: a.account_id, livemode: true, scopes: ['payment_links.read'] }));
    const refused = await call('GET', '/v1/request_logs', undefined, { key: narrow.secret });
    expectError(refused, 403, 'permission_error', 'missing_scope');
    const logs = await logsFor(a.live_key, [refused.headers.get('request-id')!]);
    expect(logs.find((x) => x.id === refused.headers.get('request-id'))).toMatchObject({
      status: 403,
      api_key_id: narrow.key.id,
      error: { type: 'permission_error', code: 'missing_scope' },
    });
  });

  it('records dashboard-session requests without a key id; public payer routes are not recorded', async () => {
    const a = await newAccount();
    const r = await client(a.session_token).get('/v1/account');
    const payer = await call('GET', '/v1/payment_sessions/plk_doesnotexist');
    expect(payer.status).toBe(404);
    const logs = await logsFor(a.session_token, [r.headers.get('request-id')!]);
    expect(logs.find((x) => x.id === r.headers.get('request-id'))).toMatchObject({
      caller_type: 'dashboard_session',
      api_key_id: null,
      livemode: true,
    });
    await new Promise((res) => setTimeout(res, 600));
    expect(await db().query('SELECT 1 FROM request_logs WHERE id = $1', [payer.headers.get('request-id')])).toHaveLength(0);
  });
});

describe('GET /request_logs', () => {
  it('filters by key, method, status code or class, path and time; summary; pagination', async () => {
    const a = await newAccount();
    const other = await transaction((m) =>
      insertApiKey(m, { accountId: a.account_id, livemode: true, scopes: ['developers.read', 'account.read'] }),
    );
    const api = client(a.live_key);
    const r1 = await api.get('/v1/account');
    const r2 = await api.get('/v1/clients/cli_missing');
    const r3 = await client(other.secret).get('/v1/account');
    const ids = [r1, r2, r3].map((r) => r.headers.get('request-id')!);
    await logsFor(a.live_key, ids);
    const only = async (q: string) =>
      (await api.get(`/v1/request_logs?limit=100&${q}`)).body.data.map((x: any) => x.id).filter((id: string) => ids.includes(id));
    expect(await only(`api_key=${other.key.id}`)).toEqual([ids[2]]);
    expect(await only('status=404')).toEqual([ids[1]]);
    expect(await only('status=4xx')).toEqual([ids[1]]);
    expect((await only('status=2xx')).sort()).toEqual([ids[0], ids[2]].sort());
    expect((await only('path=/v1/account')).sort()).toEqual([ids[0], ids[2]].sort());
    expect(await only('method=post')).toEqual([]);
    expect(await only(`until=${encodeURIComponent(new Date(Date.now() - 3600_000).toISOString())}`)).toEqual([]);
    expect((await only(`since=${encodeURIComponent(new Date(Date.now() - 3600_000).toISOString())}`)).length).toBe(3);
    const s = await api.get(`/v1/request_logs?expand=summary&api_key=${other.key.id}&limit=1`);
    expect(s.body.summary).toEqual({ total: 1, by_status_class: { '2xx': 1, '3xx': 0, '4xx': 0, '5xx': 0 } });
    const p1 = await api.get('/v1/request_logs?limit=1');
    expect(p1.body.data).toHaveLength(1);
    expect(p1.body.has_more).toBe(true);
    const p2 = await api.get(`/v1/request_logs?limit=1&cursor=${p1.body.next_cursor}`);
    expect(p2.body.data[0].id).not.toBe(p1.body.data[0].id);
    expect(Date.parse(p2.body.data[0].created_at)).toBeLessThanOrEqual(Date.parse(p1.body.data[0].created_at));
    const noSummary = await api.get('/v1/request_logs?limit=1');
    expect(noSummary.body.summary).toBeUndefined();
  });

  it('refuses bad filters, a foreign cursor and keys without developers.read', async () => {
    const a = await newAccount();
    const api = client(a.live_key);
    expectError(await api.get('/v1/request_logs?status=7xx'), 400, 'invalid_request', 'parameter_invalid', 'status');
    expectError(await api.get('/v1/request_logs?method=FETCH'), 400, 'invalid_request', 'parameter_invalid', 'method');
    expectError(await api.get('/v1/request_logs?since=yesterday'), 400, 'invalid_request', 'parameter_invalid', 'since');
    expectError(await api.get('/v1/request_logs?cursor=nope'), 400, 'invalid_request', 'cursor_invalid', 'cursor');
    const narrow = await transaction((m) => insertApiKey(m, { accountId: a.account_id, livemode: true, scopes: ['events.read'] }));
    expectError(await client(narrow.secret).get('/v1/request_logs'), 403, 'permission_error', 'missing_scope');
  });

  it('test mode: a test key reads only test-mode requests; live callers read both and filter by livemode', async () => {
    const a = await newAccount();
    const live = await client(a.live_key).get('/v1/account');
    const test = await client(a.test_key).get('/v1/account');
    const [lid, tid] = [live.headers.get('request-id')!, test.headers.get('request-id')!];
    const seenByTest = await logsFor(a.test_key, [tid]);
    expect(seenByTest.some((x) => x.id === lid)).toBe(false);
    expect(seenByTest.every((x) => x.livemode === false)).toBe(true);
    expectError(await client(a.test_key).get('/v1/request_logs?livemode=true'), 400, 'invalid_request', 'livemode_boundary', 'livemode');
    await logsFor(a.live_key, [lid, tid]);
    const liveOnly = (await client(a.session_token).get('/v1/request_logs?limit=100&livemode=true')).body.data;
    expect(liveOnly.some((x: any) => x.id === tid)).toBe(false);
    expect(liveOnly.some((x: any) => x.id === lid)).toBe(true);
  });

  it('keeps 30 days: housekeeping purges older rows', async () => {
    const { purgeExpired } = await import('../../activities/housekeeping/purge');
    const a = await newAccount();
    await db().query(
      `INSERT INTO request_logs(id, account_id, livemode, method, path, status, latency_ms, created_at)
      VALUES ('req_old_hk_test_row', $1, true, 'GET', '/v1/account', 200, 3, now() - interval '31 days'),
             ('req_new_hk_test_row', $1, true, 'GET', '/v1/account', 200, 3, now() - interval '29 days')`,
      [a.account_id],
    );
    const r = await purgeExpired();
    expect(r.requestLogs).toBeGreaterThanOrEqual(1);
    const left = (await db().query(`SELECT id FROM request_logs WHERE id LIKE 'req_%_hk_test_row'`)).map((x: { id: string }) => x.id);
    expect(left).toEqual(['req_new_hk_test_row']);
  });
});

describe('GET /api_keys/{id}/usage', () => {
  it("counts a key's requests by status class with latency and daily buckets", async () => {
    const a = await newAccount();
    const k = await transaction((m) =>
      insertApiKey(m, { accountId: a.account_id, livemode: true, scopes: ['account.read', 'developers.read'] }),
    );
    const api = client(k.secret);
    const rs = [await api.get('/v1/account'), await api.get('/v1/account'), await api.get('/v1/clients')];
    expect(rs.map((r) => r.status)).toEqual([200, 200, 403]);
    const ids = rs.map((r) => r.headers.get('request-id')!);
    const logs = (await logsFor(a.live_key, ids)).filter((l) => ids.includes(l.id));
    const u = await client(a.live_key).get(`/v1/api_keys/${k.key.id}/usage`);
    expect(u.status).toBe(200);
    expect(u.body).toMatchObject({
      object: 'api_key_usage',
      api_key_id: k.key.id,
      livemode: true,
      total_requests: 3,
      by_status_class: { '2xx': 2, '3xx': 0, '4xx': 1, '5xx': 0 },
      error_rate: 0.3333,
    });
    expect(u.body.latency_ms.p95).toBeGreaterThanOrEqual(u.body.latency_ms.p50);
    // Daily buckets are UTC days of the logged requests (three requests may straddle midnight UTC).
    const days = [...new Set(logs.map((l) => String(l.created_at).slice(0, 10)))].sort();
    const bucket = (d: string) => ({
      date: d,
      requests: logs.filter((l) => l.created_at.startsWith(d)).length,
      errors: logs.filter((l) => l.created_at.startsWith(d) && l.status >= 400).length,
    });
    expect([...u.body.daily].sort((x: { date: string }, y: { date: string }) => x.date.localeCompare(y.date))).toEqual(days.map(bucket));
    expect(Date.parse(u.body.last_request_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(Date.parse(u.body.period.end) - Date.parse(u.body.period.start)).toBe(30 * 86_400_000);
    const day = await client(a.session_token).get(`/v1/api_keys/${k.key.id}/usage?days=1`);
    expect(day.body.total_requests).toBe(3);
    const idle = await client(a.live_key).get(`/v1/api_keys/${await keyId(a.test_key)}/usage`);
    expect(idle.body).toMatchObject({ total_requests: 0, latency_ms: null, last_request_at: null, daily: [], error_rate: 0 });
  });

  it('refuses an unknown or foreign key (404), a live key to a test caller (404) and a bad `days` (400)', async () => {
    const a = await newAccount();
    const b = await newAccount();
    const api = client(a.live_key);
    expectError(await api.get('/v1/api_keys/key_nope/usage'), 404, 'not_found', 'not_found', 'id');
    expectError(await api.get(`/v1/api_keys/${await keyId(b.live_key)}/usage`), 404, 'not_found', 'not_found', 'id');
    expectError(await client(a.test_key).get(`/v1/api_keys/${await keyId(a.live_key)}/usage`), 404, 'not_found', 'not_found', 'id');
    expect((await client(a.test_key).get(`/v1/api_keys/${await keyId(a.test_key)}/usage`)).status).toBe(200);
    for (const d of ['0', '31', 'x'])
      expectError(
        await api.get(`/v1/api_keys/${await keyId(a.live_key)}/usage?days=${d}`),
        400,
        'invalid_request',
        'parameter_invalid',
        'days',
      );
  });
});
