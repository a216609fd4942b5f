/**
 * Hostile request input (issue 11; docs/decisions/0027-hostile-input.md), generated from
 * the operation registry: for EVERY operation that takes a body (each non-GET operation, the payer
 * routes included) one request per class, never a 500, always the error envelope:
 * - a `__proto__` key at the top level and nested -> 400 `parameter_unknown` naming its path;
 * - a body over 1 MiB -> 413 `request_too_large`; 10,000 levels of nesting -> 400 `body_too_deep`;
 * - invalid UTF-8 -> 400 `body_encoding_invalid`; a NUL 25 levels deep -> 400 naming its path;
 * - a string where the body schema wants a boolean or number -> 400 (naming it once the rest of
 *   the body is valid; exact cases below).
 * Then the free-form `dashboard_preferences` bounds, malformed bodies and methods (405 + Allow).
 * Every refusal here happens before the handler, so the path ids need not exist.
 */
import { isPublicOperation, REGISTRY } from '../../api/operation';
import { documentOfThisBuild } from '../../api/openapi-cli';
import { toJsonSchema } from '../../api/openapi';
import { call, client, connectDb, expectError, newAccount, type Res } from '../helpers/api';
import { rawRequest } from '../helpers/raw-http';

documentOfThisBuild();
const BODY_OPS = REGISTRY.filter((d) => d.method !== 'get');
/** `Object.prototype`'s own property names in a Node process nothing has polluted (the API process must keep them). */
const PRISTINE_OBJECT_PROTOTYPE = Object.getOwnPropertyNames(Object.prototype).sort();

let acct: Awaited<ReturnType<typeof newAccount>>;

beforeAll(async () => {
  await connectDb();
  acct = await newAccount();
});

type Def = (typeof REGISTRY)[number];
const credHeaders = (def: Def): Record<string, string> => {
  if (isPublicOperation(def)) return {};
  return (def.callers ?? ['business_key']).includes('business_key')
    ? { 'x-api-key': acct.live_key }
    : { authorization: `Bearer ${acct.session_token}` };
};
const credOf = (def: Def) =>
  isPublicOperation(def)
    ? {}
    : (def.callers ?? ['business_key']).includes('business_key')
      ? { key: acct.live_key }
      : { bearer: acct.session_token };
const pathOf = (p: string) => `/v1${p.replace(/:([A-Za-z0-9_]+)/g, 'nonexistent_$1')}`;
let n = 0;
const send = (def: Def, body: Buffer | string) =>
  rawRequest(
    def.method.toUpperCase(),
    pathOf(def.path),
    {
      ...credHeaders(def),
      'content-type': 'application/json',
      'idempotency-key': `idem_hostile_${Date.now()}_${n++}`,
    },
    Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'),
  );

/** The first body key of `def` (documented), or `x` for operations without a body schema. */
const firstKey = (def: Def) => Object.keys((def.body && (toJsonSchema(def.body).properties as object)) ?? {})[0] ?? 'x';
const nested = (depth: number, leaf: string) => `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;
const ops = BODY_OPS.map((d) => [`${d.method.toUpperCase()} ${d.path}`, d] as const);

describe.each(ops)('%s', (_name, def) => {
  test('__proto__ at the top level and nested: 400 parameter_unknown naming its path', async () => {
    expectError(await send(def, '{"__proto__":{"polluted":true}}'), 400, 'invalid_request', 'parameter_unknown', '__proto__');
    const key = firstKey(def);
    expectError(
      await send(def, `{"${key}":{"b":[{"__proto__":{"polluted":true}}]}}`),
      400,
      'invalid_request',
      'parameter_unknown',
      `${key}.b.0.__proto__`,
    );
    // The server's prototypes, not this process's (GET /sim/process inspects the API process).
    const probe = await call('GET', '/sim/process', undefined, { key: null, idem: null });
    expect(probe.status).toBe(200);
    expect(probe.body.object_prototype).not.toContain('polluted');
    expect(probe.body.object_prototype).toEqual(PRISTINE_OBJECT_PROTOTYPE);
  });

  test('a body over 1 MiB: 413 request_too_large', async () => {
    expectError(await send(def, `{"${firstKey(def)}":"${'x'.repeat(1024 * 1024)}"}`), 413, 'invalid_request', 'request_too_large');
  });

  test('10,000 levels of nesting: 400 body_too_deep', async () => {
    // `param` names the top-level field, not the 31-level path (issue 24).
    expectError(await send(def, `{"${firstKey(def)}":${nested(10_000, '1')}}`), 400, 'invalid_request', 'body_too_deep', firstKey(def));
  });

  test('invalid UTF-8: 400 body_encoding_invalid', async () => {
    const bytes = Buffer.concat([Buffer.from(`{"${firstKey(def)}":"a`), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')]);
    expectError(await send(def, bytes), 400, 'invalid_request', 'body_encoding_invalid');
  });

  test('a NUL 25 levels deep: 400 parameter_invalid naming its path', async () => {
    const key = firstKey(def);
    expectError(
      await send(def, `{"${key}":${nested(24, '"x\\u0000y"')}}`),
      400,
      'invalid_request',
      'parameter_invalid',
      [key, ...Array(24).fill('a')].join('.'),
    );
  });
});

/** Dotted paths of boolean/number fields of a body schema (top level and one level down), with a string of that value. */
function strictFields(def: Def): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const typed = (s: Record<string, unknown>) => ([] as unknown[]).concat(s.type ?? []);
  const visit = (props: Record<string, Record<string, unknown>>, at: string, level: number) => {
    for (const [k, s] of Object.entries(props ?? {})) {
      const t = typed(s);
      if (t.includes('string')) continue; // free (joi any): a string is a valid value
      if (t.includes('boolean')) out.push([`${at}${k}`, 'false']);
      else if (t.includes('integer') || t.includes('number')) out.push([`${at}${k}`, '2']);
      else if (level === 0 && t.includes('object') && s.properties)
        visit(s.properties as Record<string, Record<string, unknown>>, `${at}${k}.`, 1);
    }
  };
  if (def.body) visit(toJsonSchema(def.body).properties as Record<string, Record<string, unknown>>, '', 0);
  return out;
}

const withStrict = BODY_OPS.flatMap((d) => strictFields(d).map(([p, v]) => [`${d.method.toUpperCase()} ${d.path}`, p, v, d] as const));

describe('a string where the body wants a boolean or number is 400', () => {
  test.each(withStrict)('%s: %s', async (_name, path, value, def) => {
    const [head, tail] = path.split('.');
    const r = await call(def.method.toUpperCase(), pathOf(def.path), { [head]: tail ? { [tail]: value } : value }, credOf(def));
    expect(r.status).toBe(400);
    const e = r.body.error;
    expect(e.type).toBe('invalid_request');
    // Refused for this field, or for a required field the minimal body lacks (never accepted).
    if (e.code !== 'parameter_missing') expect(e.param).toBe(path);
  });

  test('the issue\'s cases, in otherwise valid bodies: `decimals: "2"`, `enabled: "false"`, `attestation_accepted: "true"`', async () => {
    const k = client(acct.live_key);
    expectError(
      await k.post('/v1/products', { name: 'p', unit_price: { amount: '100', currency: 'USD', decimals: '2' } }),
      400,
      'invalid_request',
      'parameter_invalid',
      'unit_price.decimals',
    );
    const hook = await k.post('/v1/webhook_endpoints', { url: 'https://example.com/hook' });
    if (hook.status === 201) {
      expectError(
        await k.patch(`/v1/webhook_endpoints/${hook.body.id}`, { enabled: 'false' }),
        400,
        'invalid_request',
        'parameter_invalid',
        'enabled',
      );
      expect((await k.patch(`/v1/webhook_endpoints/${hook.body.id}`, { enabled: false })).status).toBe(200);
    }
    expectError(
      await client(acct.session_token).patch('/v1/account', { notification_preferences: { marketing: 'true' } }),
      400,
      'invalid_request',
      'parameter_invalid',
      'notification_preferences.marketing',
    );
  });

  test('query strings still convert: `limit=2`, `archived=false`', async () => {
    const r = await client(acct.live_key).get('/v1/clients?limit=2&archived=false');
    expect(r.status).toBe(200);
  });
});

describe('PATCH /account dashboard_preferences is bounded (depth 5, 100 entries, 16 KiB)', () => {
  const patch = (prefs: unknown) => client(acct.session_token).patch('/v1/account', { dashboard_preferences: prefs });
  const deep = (levels: number): unknown => (levels <= 1 ? { leaf: true } : { a: deep(levels - 1) });

  test('within the bounds it is stored as sent', async () => {
    const prefs = { theme: 'dark', columns: ['a', 'b'], nested: deep(4) };
    const r = await patch(prefs);
    expect(r.status).toBe(200);
    expect(r.body.dashboard_preferences).toEqual(prefs);
  });

  test.each([
    ['6 levels', deep(6)],
    ['101 keys', Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i]))],
    ['101 entries over two levels', { a: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i])) }],
    ['over 16 KiB', { blob: 'x'.repeat(16 * 1024) }],
  ])('%s: 400 naming the field', async (_what, prefs) => {
    expectError(await patch(prefs), 400, 'invalid_request', 'parameter_invalid', 'dashboard_preferences');
  });

  test('a 1 MiB blob is 413, a NUL inside is named, 10,000 levels are 400', async () => {
    expectError(await patch({ blob: 'x'.repeat(1024 * 1024) }), 413, 'invalid_request', 'request_too_large');
    expectError(await patch({ a: { b: { c: 'x\u0000' } } }), 400, 'invalid_request', 'parameter_invalid', 'dashboard_preferences.a.b.c');
    const r = await rawRequest(
      'PATCH',
      '/v1/account',
      { authorization: `Bearer ${acct.session_token}`, 'content-type': 'application/json', 'idempotency-key': `idem_deep_${Date.now()}` },
      Buffer.from(`{"dashboard_preferences":${nested(10_000, '1')}}`),
    );
    expectError(r, 400, 'invalid_request', 'body_too_deep', 'dashboard_preferences');
  });

  test('the document states the bounds', () => {
    const doc = documentOfThisBuild() as any;
    const s = doc.paths['/account'].patch.requestBody.content['application/json'].schema.properties.dashboard_preferences;
    expect(s).toMatchObject({ type: 'object', maxProperties: 100, 'x-max-depth': 5, 'x-max-entries': 100, 'x-max-bytes': 16384 });
  });
});

describe('malformed bodies and methods', () => {
  const post = (raw: Buffer | string, type = 'application/json') =>
    rawRequest(
      'POST',
      '/v1/clients',
      { 'x-api-key': acct.live_key, 'content-type': type, 'idempotency-key': `idem_m_${Date.now()}_${n++}` },
      Buffer.from(raw),
    );

  test.each([
    ['not JSON', '{"display_name":', 'body_invalid'],
    ['an array', '[1]', 'body_invalid'],
    ['a string', '"x"', 'body_invalid'],
    ['null', 'null', 'body_invalid'],
  ])('%s: 400 %s', async (_what, raw, code) => {
    expectError(await post(raw), 400, 'invalid_request', code);
  });

  test('another media type or charset: 400 content_type_invalid', async () => {
    expectError(await post('display_name=x', 'application/x-www-form-urlencoded'), 400, 'invalid_request', 'content_type_invalid');
    expectError(await post('{"display_name":"x"}', 'application/json; charset=latin1'), 400, 'invalid_request', 'content_type_invalid');
  });

  test('a constructor.prototype key: 400 parameter_unknown', async () => {
    expectError(
      await post('{"display_name":"x","metadata":{"constructor":{"prototype":{"p":1}}}}'),
      400,
      'invalid_request',
      'parameter_unknown',
      'metadata.constructor',
    );
  });

  test('TRACE on a served path: 405 method_not_allowed with Allow, before authentication', async () => {
    for (const headers of [{ 'x-api-key': acct.live_key }, {}] as Array<Record<string, string>>) {
      const r = await rawRequest('TRACE', '/v1/payment_links', headers);
      expectError(r, 405, 'invalid_request', 'method_not_allowed');
      expect(r.headers.get('allow')?.split(', ').sort()).toEqual(['GET', 'HEAD', 'POST']);
    }
    const put = await rawRequest('PUT', '/v1/clients', { 'x-api-key': acct.live_key });
    expectError(put, 405, 'invalid_request', 'method_not_allowed');
    expect(put.headers.get('allow')).toContain('POST');
  });

  test('TRACE on a public payer path: 405 with Allow; on no path: 404', async () => {
    const r: Res = await rawRequest('TRACE', '/v1/payment_sessions/nonexistent_token');
    expectError(r, 405, 'invalid_request', 'method_not_allowed');
    expect(r.headers.get('allow')).toContain('GET');
    expectError(await rawRequest('TRACE', '/v1/no_such_resource', { 'x-api-key': acct.live_key }), 404, 'not_found', 'not_found');
  });
});
