/**
 * Regression tests for the 500s found while fuzzing the contract (see
 * docs/decisions/0018-contract-checks.md): inputs PostgreSQL cannot store or compare must be the caller's error.
 * - NUL characters anywhere (every operation of the registry: each query parameter, a body
 *   field, a path segment) -> 400 `parameter_invalid` naming the parameter, or 404 in a path;
 * - amounts beyond the stored bigint range -> 400 `amount_invalid`;
 * - list cursors naming impossible timestamps or sequence numbers -> 400 `cursor_invalid`;
 * - `GET /events?since=` before year 1 -> 400 `parameter_invalid`.
 */
import { isPublicOperation, REGISTRY } from '../../api/operation';
import { encodeCursor } from '../../domain/pagination';
import { documentOfThisBuild } from '../../api/openapi-cli';
import { call, client, connectDb, expectError, newAccount } from '../helpers/api';
import { toJsonSchema } from '../../api/openapi';

documentOfThisBuild();
const DEFS = [...REGISTRY];

let acct: Awaited<ReturnType<typeof newAccount>>;

beforeAll(async () => {
  await connectDb();
  acct = await newAccount();
});

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const credOf = (def: (typeof DEFS)[number]) =>
  isPublicOperation(def)
    ? {}
    : (def.callers ?? ['business_key']).includes('business_key')
      ? { key: acct.live_key }
      : { bearer: acct.session_token };
const pathOf = (p: string) => `/v1${p.replace(/:([A-Za-z0-9_]+)/g, 'nonexistent_$1')}`;

describe('NUL characters never reach the database', () => {
  // `limit` is never rejected (spec 8) and unrecognised `expand` values are ignored (spec 4); neither
  // is stored, so a NUL there is just an unrecognised value (issue 11). Every other parameter: 400.
  const NEVER_REFUSED = ['limit', 'expand'];
  const withQuery = DEFS.filter((d) => d.query).flatMap((d) =>
    Object.keys((toJsonSchema(d.query!).properties as object) ?? {}).map((k) => [d.id, k, d] as const),
  );
  test.each(withQuery.filter(([, key]) => !NEVER_REFUSED.includes(key)))('%s: query parameter %s', async (_id, key, def) => {
    expectError(
      await call('GET', `${pathOf(def.path)}?${key}=a%00b`, undefined, credOf(def)),
      400,
      'invalid_request',
      'parameter_invalid',
      key,
    );
  });
  test.each(withQuery.filter(([, key]) => NEVER_REFUSED.includes(key)))(
    '%s: query parameter %s is never refused for a NUL',
    async (_id, key, def) => {
      const r = await call('GET', `${pathOf(def.path)}?${key}=a%00b`, undefined, credOf(def));
      expect(r.status).toBeLessThan(500);
      expect([r.status, (r.body as { error?: { param?: string } })?.error?.param]).not.toEqual([400, key]);
    },
  );

  const withBody = DEFS.filter((d) => d.body).map((d) => [d.id, d] as const);
  test.each(withBody)('%s: body field', async (_id, def) => {
    const key = Object.keys((toJsonSchema(def.body!).properties as object) ?? {})[0];
    const r = await call(def.method.toUpperCase(), pathOf(def.path), { [key]: 'x\u0000y' }, credOf(def));
    expectError(r, 400, 'invalid_request', 'parameter_invalid', key);
  });

  test.each(DEFS.filter((d) => d.path.includes(':')).map((d) => [d.id, d] as const))('%s: path segment', async (_id, def) => {
    const path = `/v1${def.path.replace(/:([A-Za-z0-9_]+)/g, 'x%00y')}`;
    expectError(
      await call(def.method.toUpperCase(), path, def.method === 'get' ? undefined : {}, credOf(def)),
      404,
      'not_found',
      'not_found',
    );
  });

  test('a NUL in a nested body key is named by its dotted path', async () => {
    const r = await client(acct.live_key).post('/v1/payment_links', {
      amount: { amount: '100', currency: 'USD', decimals: 2 },
      items: [{ name: 'a\u0000' }],
    });
    expectError(r, 400, 'invalid_request', 'parameter_invalid', 'items.0.name');
  });
});

describe('amounts beyond the stored range are 400 amount_invalid', () => {
  const huge = { amount: '9'.repeat(25), currency: 'USD', decimals: 2 };
  test('payment link amount', async () => {
    expectError(
      await client(acct.live_key).post('/v1/payment_links', { title: 't', amount: huge }),
      400,
      'invalid_request',
      'amount_invalid',
      'amount',
    );
  });
  test('payment link item unit amount', async () => {
    expectError(
      await client(acct.live_key).post('/v1/payment_links', {
        title: 't',
        amount: { amount: '100', currency: 'USD', decimals: 2 },
        items: [{ name: 'x', unit_amount: huge }],
      }),
      400,
      'invalid_request',
      'amount_invalid',
      'items.0.unit_amount',
    );
  });
  test('product unit price, on create and update', async () => {
    expectError(
      await client(acct.live_key).post('/v1/products', { name: 'p', unit_price: huge }),
      400,
      'invalid_request',
      'amount_invalid',
      'unit_price',
    );
    const p = await client(acct.live_key).post('/v1/products', { name: 'p', unit_price: { amount: '100', currency: 'USD', decimals: 2 } });
    expect(p.status).toBe(201);
    expectError(
      await client(acct.live_key).patch(`/v1/products/${p.body.id}`, { unit_price: huge }),
      400,
      'invalid_request',
      'amount_invalid',
      'unit_price',
    );
  });
  test('the largest storable amount is accepted', async () => {
    const r = await client(acct.live_key).post('/v1/products', {
      name: 'max',
      unit_price: { amount: '9223372036854775807', currency: 'USD', decimals: 2 },
    });
    expect(r.status).toBe(201);
    expect(r.body.unit_price.amount).toBe('9223372036854775807');
  });
});

describe('cursors and since values PostgreSQL cannot read are 400', () => {
  test.each([
    ['31 February', { t: '2026-02-31T00:00:00Z', id: 'a' }],
    ['year 0', { t: '0000-01-01T00:00:00Z', id: 'a' }],
    ['offset beyond 15:59', { t: '2026-01-01T00:00:00+99:99', id: 'a' }],
    ['29 February of a common year', { t: '2025-02-29T00:00:00Z', id: 'a' }],
  ])('list cursor with %s', async (_what, c) => {
    expectError(await client(acct.live_key).get(`/v1/clients?cursor=${b64(c)}`), 400, 'invalid_request', 'cursor_invalid', 'cursor');
  });

  test('a leap day is a valid cursor time', async () => {
    expect((await client(acct.live_key).get(`/v1/clients?cursor=${encodeCursor({ t: '2024-02-29T00:00:00Z', id: 'a' })}`)).status).toBe(
      200,
    );
  });

  test('per-object event cursor beyond the bigint range', async () => {
    const link = await client(acct.live_key).get('/v1/payment_links?limit=1');
    const l =
      link.body.data[0] ??
      (await client(acct.live_key).post('/v1/payment_links', { title: 't', amount: { amount: '100', currency: 'USD', decimals: 2 } })).body;
    const c = b64({ t: '2026-01-01T00:00:00Z', id: '9'.repeat(25) });
    expectError(
      await client(acct.live_key).get(`/v1/payment_links/${l.id}/events?cursor=${c}`),
      400,
      'invalid_request',
      'cursor_invalid',
      'cursor',
    );
  });

  test('events cursor beyond the bigint range, and since before year 1', async () => {
    expectError(
      await client(acct.live_key).get(`/v1/events?cursor=${b64({ s: '9999999999999999999' })}`),
      400,
      'invalid_request',
      'cursor_invalid',
      'cursor',
    );
    expectError(await client(acct.live_key).get('/v1/events?since=0000-01-01'), 400, 'invalid_request', 'parameter_invalid', 'since');
  });
});
