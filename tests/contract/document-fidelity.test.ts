/**
 * Document fidelity over HTTP (issue 11): what the document now says, the server does.
 * - `expand` empty or unknown is ignored, `limit` is never refused (spec 4, 8);
 * - `GET /accounts` refuses a garbage cursor like every list (400 `cursor_invalid`);
 * - string lengths count code points (150 emoji within a 200 limit);
 * - `GET /account?expand=readiness,setup_guide` answers its declared schema;
 * - a nested Money field names its full path (`unit_price.currency`);
 * - new clients and products have `updated_at` equal to `created_at`;
 * - an unbounded `source_chain` is refused before any message could echo it.
 */
import { client, expectError, newAccount } from '../helpers/api';
import { accountExpandedResponse } from '../../views/account';
import type { DevCredentials } from '../../activities/accounts/commands';

let a: DevCredentials;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  a = await newAccount();
  api = client(a.live_key);
});

test('expand empty or unknown is ignored; limit is never refused', async () => {
  for (const q of ['expand=', 'expand=nope', 'expand=&expand=summary', 'limit=abc', 'limit=-1', 'limit=1.5', 'limit=100000', 'limit=']) {
    const res = await api.get(`/v1/clients?${q}`);
    expect([q, res.status]).toEqual([q, 200]);
  }
  expect((await api.get('/v1/account?expand=')).status).toBe(200);
  expect((await api.get('/v1/payment_links?expand=')).status).toBe(200);
});

test('GET /accounts: garbage cursor is 400 cursor_invalid; limit lenient', async () => {
  expectError(await api.get('/v1/accounts?cursor=garbage'), 400, 'invalid_request', 'cursor_invalid', 'cursor');
  const res = await api.get('/v1/accounts?limit=abc');
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
  expect(res.body.data.map((x: { id: string }) => x.id)).toContain(a.account_id);
});

test('lengths are code points: 150 emoji pass a 200 limit, 201 do not', async () => {
  const ok = await api.post('/v1/clients', { display_name: '\u{1F600}'.repeat(150), company: '\u{1F600}'.repeat(200) });
  expect(ok.status).toBe(201);
  expectError(await api.post('/v1/clients', { display_name: '\u{1F600}'.repeat(201) }), 400, 'invalid_request', undefined, 'display_name');
});

test('GET /account?expand=readiness,setup_guide answers its declared schema', async () => {
  const res = await api.get('/v1/account?expand=readiness,setup_guide');
  expect(res.status).toBe(200);
  expect(accountExpandedResponse.validate(res.body).error).toBeUndefined();
  expect(Object.keys(res.body)).toEqual(expect.arrayContaining(['readiness', 'setup_guide']));
});

test('unit_price.currency errors name the full path', async () => {
  expectError(await api.post('/v1/products', { name: 'X', unit_price: { amount: '10', currency: 'XYZ', decimals: 2 } }), 400, 'invalid_request', 'currency_invalid', 'unit_price.currency');
});

test('new clients and products: updated_at equals created_at', async () => {
  const c = (await api.post('/v1/clients', { display_name: 'Clock' })).body;
  expect(c.updated_at).toBe(c.created_at);
  const p = (await api.post('/v1/products', { name: 'Clock', currency: 'USD' })).body;
  expect(p.updated_at).toBe(p.created_at);
});

test('an unbounded source_chain is refused, never echoed', async () => {
  const long = 'z'.repeat(200_000);
  const res = await api.post('/v1/payouts', { invoice_amount: { amount: '5000', currency: 'USD', decimals: 2 }, corridor_id: 'usd_ach', source_chain: long });
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(res.status).toBeLessThan(500);
  expect(JSON.stringify(res.body).length).toBeLessThan(2000);
});
