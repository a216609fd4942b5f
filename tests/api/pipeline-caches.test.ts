/**
 * The caches of the request pipeline (issue 27 item 4, decision 0079). Authentication
 * (api/middleware/auth.ts): a revoked key or session stops working at once on the instance that
 * revoked it, and within a bounded time (the NOTIFY sent at the revoking commit; bound asserted:
 * 1 s) on every other instance. Switches and cohort flags (lib/switches.ts): a flip written by
 * anyone reaches the API within the same bound (it waited out a 2 s cache before). The
 * running product is one instance; this test process is a second one: its own pool, its own
 * LISTEN connection and its own cache, revoking through its own connection.
 */
import crypto from 'node:crypto';
import { Client } from 'pg';
import { insertApiKey } from '../../activities/accounts/commands';
import { authenticateKey, authenticateSession, cachedCredentials, clearAuthCache, wireAuthCache } from '../../api/middleware/auth';
import { transaction } from '../../lib/db';
import { startNotifyListener, stopNotifyListener } from '../../lib/notify';
import { sha256Hex } from '../../lib/secrets';
import { call, client, connectDb, expectError, memberSession, newAccount } from '../helpers/api';

/** The bound within which another instance refuses a revoked credential. */
const OTHER_INSTANCE_BOUND_MS = 1000;

let acct: Awaited<ReturnType<typeof newAccount>>;
/** A connection of neither instance's cache (a third process writing the revocation). */
let other: Client;

beforeAll(async () => {
  await connectDb();
  acct = await newAccount();
  await startNotifyListener(process.env.DATABASE_URL!);
  await wireAuthCache();
  other = new Client({ connectionString: process.env.DATABASE_URL });
  await other.connect();
});

afterAll(async () => {
  await other.end();
  await stopNotifyListener();
});

async function newKey(): Promise<{ secret: string }> {
  return transaction((m) => insertApiKey(m, { accountId: acct.account_id, livemode: true, scopes: ['account.read'] }));
}

/** Milliseconds until `refused()` resolves true, polling every 5 ms, at most `bound` ms (then -1). */
async function msUntil(refused: () => Promise<boolean>, bound: number): Promise<number> {
  const t0 = Date.now();
  while (Date.now() - t0 <= bound) {
    if (await refused()) return Date.now() - t0;
    await new Promise((r) => setTimeout(r, 5));
  }
  return -1;
}

describe('revoking a key', () => {
  test('through the API: the very next request on the same instance is 401', async () => {
    const s = client(acct.session_token);
    const created = await s.post('/v1/api_keys', { scopes: ['account.read'] });
    expect(created.status).toBe(201);
    const k = client(created.body.secret);
    for (let i = 0; i < 3; i++) expect((await k.get('/v1/account')).status).toBe(200); // cached now
    expect((await s.post(`/v1/api_keys/${created.body.id}/revoke`)).status).toBe(200);
    expectError(await k.get('/v1/account'), 401, 'authentication_error', 'api_key_revoked');
  });

  test("from another connection: this process's cache and the running API refuse it within the bound", async () => {
    const { secret } = await newKey();
    await authenticateKey(secret, '127.0.0.1');
    await authenticateKey(secret, '127.0.0.1'); // served from this process's cache
    expect((await call('GET', '/v1/account', undefined, { key: secret })).status).toBe(200);
    await other.query(`UPDATE api_keys SET status = 'revoked', revoked_at = now() WHERE secret_hash = $1`, [sha256Hex(secret)]);
    const here = await msUntil(
      () =>
        authenticateKey(secret, '127.0.0.1').then(
          () => false,
          (e) => e.code === 'api_key_revoked',
        ),
      OTHER_INSTANCE_BOUND_MS,
    );
    const api = await msUntil(
      async () => (await call('GET', '/v1/account', undefined, { key: secret })).status === 401,
      OTHER_INSTANCE_BOUND_MS,
    );
    expect(here).toBeGreaterThanOrEqual(0);
    expect(api).toBeGreaterThanOrEqual(0);
  });

  test('a lookup that started before the revocation does not put the old row back', async () => {
    const { secret } = await newKey();
    clearAuthCache();
    const inFlight = authenticateKey(secret, '127.0.0.1'); // reads the active row
    clearAuthCache(); // the revocation's notification lands while it is in flight
    await inFlight;
    expect(cachedCredentials()).toBe(0);
    await authenticateKey(secret, '127.0.0.1');
    expect(cachedCredentials()).toBe(1);
  });
});

describe('revoking a dashboard session', () => {
  test('from another connection: refused within the bound; through revoke_all: at once', async () => {
    const token = await memberSession(acct.account_id, 'developer');
    await authenticateSession(token, undefined);
    expect((await client(token).get('/v1/account')).status).toBe(200);
    await other.query('UPDATE dashboard_sessions SET revoked_at = now() WHERE token_hash = $1', [sha256Hex(token)]);
    const here = await msUntil(
      () =>
        authenticateSession(token, undefined).then(
          () => false,
          (e) => e.code === 'session_revoked',
        ),
      OTHER_INSTANCE_BOUND_MS,
    );
    const api = await msUntil(async () => (await client(token).get('/v1/account')).status === 401, OTHER_INSTANCE_BOUND_MS);
    expect(here).toBeGreaterThanOrEqual(0);
    expect(api).toBeGreaterThanOrEqual(0);

    const second = await memberSession(acct.account_id, 'viewer');
    const c = client(second);
    for (let i = 0; i < 3; i++) expect((await c.get('/v1/account')).status).toBe(200);
    expect((await c.post('/v1/account/sessions/revoke_all')).status).toBe(200);
    expectError(await c.get('/v1/account'), 401, 'authentication_error', 'session_revoked');
  });

  test('a membership removed elsewhere stops the session selecting that account', async () => {
    const token = await memberSession(acct.account_id, 'viewer');
    expect((await client(token).get('/v1/account')).status).toBe(200);
    const { rows } = await other.query<{ user_id: string }>('SELECT user_id FROM dashboard_sessions WHERE token_hash = $1', [
      sha256Hex(token),
    ]);
    await other.query('DELETE FROM memberships WHERE user_id = $1', [rows[0].user_id]);
    const api = await msUntil(async () => (await client(token).get('/v1/account')).status === 404, OTHER_INSTANCE_BOUND_MS);
    expect(api).toBeGreaterThanOrEqual(0);
  });
});

test('an unknown key is never cached: a key inserted after a miss works on its next request', async () => {
  const secret = `sk_live_${crypto.randomBytes(16).toString('hex')}`;
  expectError(await call('GET', '/v1/account', undefined, { key: secret }), 401, 'authentication_error', 'invalid_api_key');
  await other.query(
    `INSERT INTO api_keys(id, account_id, livemode, secret_hash, secret_last4, scopes) VALUES ($1,$2,true,$3,'abcd','{account.read}')`,
    [`key_${crypto.randomBytes(12).toString('hex')}`, acct.account_id, sha256Hex(secret)],
  );
  expect((await call('GET', '/v1/account', undefined, { key: secret })).status).toBe(200);
});

describe('switches and cohort flags', () => {
  test('a cohort flag closed from another connection answers 409 within the bound, and opens again', async () => {
    const c = client(acct.live_key);
    for (let i = 0; i < 3; i++) expect((await c.get('/v1/customers')).status).toBe(200); // cached open
    await other.query(
      `INSERT INTO account_flags(account_id, name, enabled, updated_at) VALUES ($1,'customers.enabled',false,now())
      ON CONFLICT (account_id, name) DO UPDATE SET enabled = false, updated_at = now()`,
      [acct.account_id],
    );
    const closed = await msUntil(async () => (await c.get('/v1/customers')).status === 409, OTHER_INSTANCE_BOUND_MS);
    expect(closed).toBeGreaterThanOrEqual(0);
    expectError(await c.get('/v1/customers'), 409, 'capability_unavailable');
    await other.query(`DELETE FROM account_flags WHERE account_id = $1 AND name = 'customers.enabled'`, [acct.account_id]);
    const open = await msUntil(async () => (await c.get('/v1/customers')).status === 200, OTHER_INSTANCE_BOUND_MS);
    expect(open).toBeGreaterThanOrEqual(0);
  });
});
