/**
 * Clients and products over HTTP against the running product (spec 2.3, 4.1): create, read,
 * update rules (null clears, empty-string email 400, description trimmed to null, unit_price
 * Money or null), idempotent archive with archived objects still readable, newest-first lists
 * with limit/cursor, cross-account 404, test-key 503, scopes.
 */
import { client, expectError, newAccount } from '../helpers/api';
import type { DevCredentials } from '../../activities/accounts/commands';

let a: DevCredentials;
let b: DevCredentials;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  a = await newAccount();
  b = await newAccount();
  api = client(a.live_key);
});

describe('clients', () => {
  test('create returns the full client with ObjectBase fields', async () => {
    const res = await api.post('/v1/clients', {
      display_name: '  Ada Lovelace ',
      email: 'ada@example.com',
      company: 'Analytical',
      country: 'United Kingdom',
      role: 'CTO',
      notes: 'VIP',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: 'client',
      livemode: true,
      display_name: 'Ada Lovelace',
      email: 'ada@example.com',
      company: 'Analytical',
      country: 'United Kingdom',
      role: 'CTO',
      notes: 'VIP',
      archived_at: null,
    });
    expect(res.body.id).toMatch(/^cli_[A-Za-z0-9]+$/);
    expect(typeof res.body.created_at).toBe('string');
    expect(typeof res.body.updated_at).toBe('string');
    const got = await api.get(`/v1/clients/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  test('create validation: display_name required, bad email 400, unknown key 400', async () => {
    expectError(await api.post('/v1/clients', { email: 'x@example.com' }), 400, 'invalid_request', 'parameter_missing', 'display_name');
    expectError(await api.post('/v1/clients', { display_name: 'X', email: 'not-an-email' }), 400, 'invalid_request', undefined, 'email');
    expectError(await api.post('/v1/clients', { display_name: 'X', email: '' }), 400, 'invalid_request', undefined, 'email');
    expectError(await api.post('/v1/clients', { display_name: 'X', colour: 'red' }), 400, 'invalid_request', 'parameter_unknown', 'colour');
  });

  test('update: null clears email/company/country/notes; empty-string email is 400; omitted keys kept', async () => {
    const c = (
      await api.post('/v1/clients', {
        display_name: 'Grace',
        email: 'grace@example.com',
        company: 'Navy',
        country: 'US',
        notes: 'n',
        role: 'Admiral',
      })
    ).body;
    const up = await api.patch(`/v1/clients/${c.id}`, { email: null, company: null, country: null, notes: null });
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ display_name: 'Grace', email: null, company: null, country: null, notes: null, role: 'Admiral' });
    expectError(await api.patch(`/v1/clients/${c.id}`, { email: '' }), 400, 'invalid_request', undefined, 'email');
    const renamed = await api.patch(`/v1/clients/${c.id}`, { display_name: 'Grace Hopper', email: 'gh@example.com' });
    expect(renamed.body).toMatchObject({ display_name: 'Grace Hopper', email: 'gh@example.com', company: null });
    expectError(await api.patch(`/v1/clients/${c.id}`, { display_name: null }), 400, 'invalid_request', undefined, 'display_name');
  });

  test('archive is idempotent; an archived client stays readable and listed', async () => {
    const c = (await api.post('/v1/clients', { display_name: 'To archive' })).body;
    const first = await api.post(`/v1/clients/${c.id}/archive`);
    expect(first.status).toBe(200);
    expect(typeof first.body.archived_at).toBe('string');
    const second = await api.post(`/v1/clients/${c.id}/archive`);
    expect(second.status).toBe(200);
    expect(second.body.archived_at).toBe(first.body.archived_at);
    const got = await api.get(`/v1/clients/${c.id}`);
    expect(got.status).toBe(200);
    expect(got.body.archived_at).toBe(first.body.archived_at);
    const archivedOnly = await api.get('/v1/clients?archived=true');
    expect(archivedOnly.body.data.map((x: { id: string }) => x.id)).toContain(c.id);
    const activeOnly = await api.get('/v1/clients?archived=false');
    expect(activeOnly.body.data.map((x: { id: string }) => x.id)).not.toContain(c.id);
    expectError(await api.patch(`/v1/clients/${c.id}`, { display_name: 'nope' }), 409, 'conflict', 'client_archived');
  });

  test('list is newest first with limit and cursor; limit outside 1..100 is never rejected', async () => {
    const acct = await newAccount();
    const k = client(acct.live_key);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await k.post('/v1/clients', { display_name: `C${i}` })).body.id);
    const all = await k.get('/v1/clients');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    expect(all.body.data.map((x: { id: string }) => x.id)).toEqual([...ids].reverse());
    const p1 = await k.get('/v1/clients?limit=2');
    expect(p1.body.data).toHaveLength(2);
    expect(p1.body.has_more).toBe(true);
    const p2 = await k.get(`/v1/clients?limit=2&cursor=${encodeURIComponent(p1.body.next_cursor)}`);
    expect(p2.body.data.map((x: { id: string }) => x.id)).toEqual([ids[0]]);
    expect(p2.body.has_more).toBe(false);
    expect(p2.body.next_cursor).toBeNull();
    for (const l of ['0', '-1', '1.5', 'abc', '500']) {
      const r = await k.get(`/v1/clients?limit=${l}`);
      expect(r.status).toBe(200);
      expect(r.body.data).toHaveLength(3);
    }
    expectError(await k.get('/v1/clients?cursor=garbage'), 400, 'invalid_request', 'cursor_invalid', 'cursor');
    const q = await k.get('/v1/clients?q=c1');
    expect(q.body.data.map((x: { id: string }) => x.id)).toEqual([ids[1]]);
  });

  test('cross-account ids are 404; test key is 503; missing Idempotency-Key is 400', async () => {
    const c = (await api.post('/v1/clients', { display_name: 'Mine' })).body;
    const other = client(b.live_key);
    expectError(await other.get(`/v1/clients/${c.id}`), 404, 'not_found', 'not_found');
    expectError(await other.patch(`/v1/clients/${c.id}`, { display_name: 'x' }), 404, 'not_found');
    expectError(await other.post(`/v1/clients/${c.id}/archive`), 404, 'not_found');
    expect((await other.get('/v1/clients')).body.data.map((x: { id: string }) => x.id)).not.toContain(c.id);
    const test = client(a.test_key);
    expectError(await test.get('/v1/clients'), 503, 'temporarily_unavailable');
    expectError(await test.post('/v1/clients', { display_name: 'x' }), 503, 'temporarily_unavailable');
    expectError(await api.post('/v1/clients', { display_name: 'x' }, { idem: null }), 400, 'invalid_request', 'idempotency_key_invalid');
  });

  test('dashboard session can manage clients too', async () => {
    const s = client(a.session_token);
    const res = await s.post('/v1/clients', { display_name: 'Via session' });
    expect(res.status).toBe(201);
    expect((await s.get(`/v1/clients/${res.body.id}`)).status).toBe(200);
  });
});

describe('products', () => {
  test('create with a unit price; currency defaults from unit_price', async () => {
    const res = await api.post('/v1/products', {
      name: 'Design hour',
      description: ' Hourly design ',
      unit_price: { amount: '15000', currency: 'USD', decimals: 2 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: 'product',
      livemode: true,
      name: 'Design hour',
      description: 'Hourly design',
      currency: 'USD',
      unit_price: { amount: '15000', currency: 'USD', decimals: 2 },
      archived_at: null,
    });
    expect(res.body.id).toMatch(/^prd_/);
  });

  test('create without a fixed price needs a currency; money rules are enforced', async () => {
    const free = await api.post('/v1/products', { name: 'Consulting', currency: 'EUR' });
    expect(free.status).toBe(201);
    expect(free.body).toMatchObject({ unit_price: null, currency: 'EUR', description: null });
    expectError(await api.post('/v1/products', { name: 'No currency' }), 400, 'invalid_request', 'parameter_missing', 'currency');
    expectError(await api.post('/v1/products', { name: 'X', currency: 'XYZ' }), 400, 'invalid_request', 'currency_invalid', 'currency');
    expectError(
      await api.post('/v1/products', { name: 'X', unit_price: { amount: '10', currency: 'USD', decimals: 6 } }),
      400,
      'invalid_request',
      'amount_invalid',
      'unit_price',
    );
    expectError(
      await api.post('/v1/products', { name: 'X', unit_price: { amount: 10, currency: 'USD', decimals: 2 } }),
      400,
      'invalid_request',
      undefined,
      'unit_price.amount',
    );
    expectError(
      await api.post('/v1/products', { name: 'X', currency: 'EUR', unit_price: { amount: '10', currency: 'USD', decimals: 2 } }),
      400,
      'invalid_request',
      'currency_mismatch',
      'unit_price',
    );
    expectError(await api.post('/v1/products', { name: '', currency: 'USD' }), 400, 'invalid_request', undefined, 'name');
  });

  test('update: null clears description, empty string trimmed to null, unit_price Money or null', async () => {
    const p = (
      await api.post('/v1/products', {
        name: 'Widget',
        description: 'A widget',
        unit_price: { amount: '500', currency: 'USD', decimals: 2 },
      })
    ).body;
    const cleared = await api.patch(`/v1/products/${p.id}`, { description: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.description).toBeNull();
    await api.patch(`/v1/products/${p.id}`, { description: 'back' });
    const blank = await api.patch(`/v1/products/${p.id}`, { description: '   ' });
    expect(blank.body.description).toBeNull();
    const noPrice = await api.patch(`/v1/products/${p.id}`, { unit_price: null });
    expect(noPrice.body.unit_price).toBeNull();
    expect(noPrice.body.currency).toBe('USD');
    const priced = await api.patch(`/v1/products/${p.id}`, {
      unit_price: { amount: '700', currency: 'USD', decimals: 2 },
      name: 'Widget 2',
    });
    expect(priced.body).toMatchObject({ name: 'Widget 2', unit_price: { amount: '700', currency: 'USD', decimals: 2 } });
    expectError(await api.patch(`/v1/products/${p.id}`, { currency: 'EUR' }), 400, 'invalid_request', 'currency_mismatch', 'currency');
    const eur = await api.patch(`/v1/products/${p.id}`, { currency: 'EUR', unit_price: { amount: '650', currency: 'EUR', decimals: 2 } });
    expect(eur.body).toMatchObject({ currency: 'EUR', unit_price: { amount: '650', currency: 'EUR', decimals: 2 } });
  });

  test('archive is idempotent and archived products stay readable; list newest first; cross-account 404', async () => {
    const acct = await newAccount();
    const k = client(acct.live_key);
    const p1 = (await k.post('/v1/products', { name: 'P1', currency: 'USD' })).body;
    const p2 = (await k.post('/v1/products', { name: 'P2', currency: 'USD' })).body;
    const arch = await k.post(`/v1/products/${p1.id}/archive`);
    expect(arch.status).toBe(200);
    const again = await k.post(`/v1/products/${p1.id}/archive`);
    expect(again.body.archived_at).toBe(arch.body.archived_at);
    expect((await k.get(`/v1/products/${p1.id}`)).body.archived_at).toBe(arch.body.archived_at);
    const list = await k.get('/v1/products');
    expect(list.body.data.map((x: { id: string }) => x.id)).toEqual([p2.id, p1.id]);
    const one = await k.get('/v1/products?limit=1');
    expect(one.body).toMatchObject({ has_more: true });
    expect(one.body.data).toHaveLength(1);
    expectError(await k.patch(`/v1/products/${p1.id}`, { name: 'x' }), 409, 'conflict', 'product_archived');
    expectError(await client(b.live_key).get(`/v1/products/${p1.id}`), 404, 'not_found', 'not_found');
    expectError(await client(acct.test_key).get('/v1/products'), 503, 'temporarily_unavailable');
  });
});
