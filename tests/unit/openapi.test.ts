/**
 * The OpenAPI generator (api/openapi.ts): a pure function of the operation registry. Checks the
 * document of this build (every operation, its parameters, bodies, responses, security and the
 * part 7 error envelope) and the joi -> JSON Schema conversion of the constructs the schemas use.
 */
import Joi from 'joi';
import { buildOpenApi, errorStatuses, openApiPath, toJsonSchema } from '../../api/openapi';
import { isPublicOperation, REGISTRY, type OperationDef } from '../../api/operation';
import { documentOfThisBuild } from '../../api/openapi-cli';

const doc = documentOfThisBuild() as Record<string, any>;
const op = (method: string, path: string) => doc.paths[path]?.[method];
const refs = (o: any): string[] => (o.parameters ?? []).map((p: any) => p.$ref).filter(Boolean);

describe('document of this build', () => {
  test('is OpenAPI 3.1 with both security schemes and the error envelope component', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes).toEqual({
      ApiKeyAuth: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-api-key' }),
      BearerAuth: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
    const env = doc.components.schemas.ErrorEnvelope;
    expect(env.required).toEqual(['error']);
    expect(env.properties.error.required).toEqual(['type', 'code', 'message', 'doc_url', 'request_id']);
    expect(env.properties.error.properties.type.enum).toEqual(
      expect.arrayContaining(['invalid_request', 'not_found', 'temporarily_unavailable', 'api_error']),
    );
  });

  test('contains every registered operation once, including the payer routes, and no simulator route', () => {
    const ids = Object.values(doc.paths).flatMap((p: any) => Object.values(p).map((o: any) => o.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual([...new Set(REGISTRY.map((d) => d.id))].sort());
    expect(ids).toEqual(
      expect.arrayContaining([
        'payment_links.create',
        'payment_sessions.get',
        'payment_sessions.payments.create',
        'webhook_endpoints.delete',
        'eligibility.get',
        'payroll_recipient_sessions.get',
        'payroll_recipient_sessions.destination',
      ]),
    );
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/sim'))).toBe(false);
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/v1' })]);
  });

  test('every operation declares an exact response schema', () => {
    const missing = REGISTRY.filter((d) => !d.response).map((d) => d.id);
    expect(missing).toEqual([]);
    const link = op('get', '/payment_links/{id}').responses['200'].content['application/json'].schema;
    expect(link.additionalProperties).toBe(false);
    expect(link.required).toEqual(expect.arrayContaining(['id', 'object', 'livemode', 'amount', 'url']));
    // Issue 11: `partial_payment` may be absent (spec 2.3), so it is not required.
    expect(link.required).not.toContain('partial_payment');
    expect(link.properties.object).toEqual({ const: 'payment_link' });
    expect(link.properties.url.type).toEqual(['string', 'null']);
    expect(link.properties.amount.properties.amount.pattern).toBe('^-?[0-9]+$');
    const list = op('get', '/payment_links').responses['200'].content['application/json'].schema;
    expect(list.required).toEqual(['object', 'data', 'has_more', 'next_cursor']);
    expect(list.properties.next_cursor.type).toEqual(['string', 'null']);
  });

  test('mutations require Idempotency-Key; reads and payer routes do not', () => {
    for (const d of REGISTRY) {
      const o = op(d.method, openApiPath(d.path));
      const mutation = !isPublicOperation(d) && (d.idempotent ?? d.method !== 'get');
      expect([d.id, refs(o).includes('#/components/parameters/IdempotencyKey')]).toEqual([d.id, mutation]);
    }
    expect(doc.components.parameters.IdempotencyKey).toMatchObject({
      in: 'header',
      required: true,
      schema: { pattern: '^[A-Za-z0-9_-]{16,128}$' },
    });
  });

  test('security: keys and sessions by default, sessions only where declared, none on payer routes', () => {
    expect(op('get', '/payment_links').security).toEqual([{ ApiKeyAuth: [] }, { BearerAuth: [] }]);
    expect(op('post', '/api_keys').security).toEqual([{ BearerAuth: [] }]);
    expect(op('get', '/payment_sessions/{token}').security).toEqual([]);
    expect(op('get', '/payment_links')['x-scope']).toBe('payment_links.read');
  });

  test('path and query parameters come from the route and its joi query schema', () => {
    const get = op('get', '/payment_links/{id}');
    expect(get.parameters[0]).toMatchObject({ name: 'id', in: 'path', required: true, schema: { type: 'string' } });
    const list = op('get', '/payment_links').parameters;
    expect(list.find((p: any) => p.name === 'status_group')).toMatchObject({
      in: 'query',
      required: false,
      schema: { enum: ['open', 'needs_attention', 'paid', 'ended'] },
    });
    // Issue 11: `limit` is never refused (spec 8): any string or integer, no bounds.
    expect(list.find((p: any) => p.name === 'limit').schema).toMatchObject({ type: ['string', 'integer'] });
    expect(
      op('get', '/payment_sessions/{token}/payments/{payment_id}')
        .parameters.slice(0, 2)
        .map((p: any) => p.name),
    ).toEqual(['token', 'payment_id']);
  });

  test('request bodies: required when the schema requires a key; unknown keys not allowed', () => {
    const create = op('post', '/payment_links').requestBody;
    expect(create.required).toBe(true);
    expect(create.content['application/json'].schema).toMatchObject({ required: ['amount'], additionalProperties: false });
    // MoneyPositive: one alternative per scale of the currency registry, each with the positive amount pattern.
    const money = create.content['application/json'].schema.properties.amount;
    expect(money.oneOf.length).toBeGreaterThan(1);
    for (const alt of money.oneOf) expect(new RegExp(alt.properties.amount.pattern).test('0')).toBe(false);
    expect(money.oneOf.find((alt: any) => alt.properties.currency.enum.includes('USD')).properties.decimals.enum).toEqual([2]);
    expect(op('patch', '/clients/{id}').requestBody.required).toBe(false);
    expect(op('post', '/payment_links/{id}/cancel').requestBody).toBeUndefined();
  });

  test('error statuses reference the envelope; 422 and read-side 409 where the operation declares them', () => {
    const create = op('post', '/payment_links').responses;
    expect(Object.keys(create).sort()).toEqual(['201', '400', '401', '403', '404', '409', '413', '422', '429', '500', '503']);
    expect(create['422']).toEqual({ $ref: '#/components/responses/Error422' });
    expect(doc.components.responses.Error422.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' });
    expect(doc.components.responses.Error503.headers['Retry-After']).toBeDefined();
    expect(Object.keys(op('get', '/payment_links/{id}/receipt').responses)).toContain('409');
    expect(Object.keys(op('get', '/payment_links/{id}').responses)).not.toContain('409');
    expect(Object.keys(op('get', '/payment_sessions/{token}').responses).sort()).toEqual(['200', '400', '404', '429', '500']);
    expect(Object.keys(op('post', '/payment_sessions/{token}/payments').responses)).toEqual(expect.arrayContaining(['200', '201', '409']));
  });
});

describe('what client generators make of it (issue 24; npm run client:generate:openapi-generator compiles one)', () => {
  const ALL_TYPES = ['array', 'boolean', 'number', 'object', 'string', 'null'];

  test('no request property is "any type" (a union of every JSON type): generators cannot type it', () => {
    const found: string[] = [];
    const walk = (s: any, at: string): void => {
      if (!s || typeof s !== 'object') return;
      if (Array.isArray(s)) return s.forEach((x, i) => walk(x, `${at}[${i}]`));
      if (Array.isArray(s.type) && ALL_TYPES.every((t) => s.type.includes(t))) found.push(at);
      for (const [k, v] of Object.entries(s)) walk(v, `${at}.${k}`);
    };
    for (const [p, ops] of Object.entries<any>(doc.paths)) {
      for (const [m, o] of Object.entries<any>(ops)) if (o.requestBody) walk(o.requestBody, `${m} ${p}`);
    }
    expect(found).toEqual([]);
  });

  test('webhooks have a tag of their own (one API class per tag) and titled envelopes (their model names)', () => {
    const pathTags = new Set(Object.values<any>(doc.paths).flatMap((ops) => Object.values<any>(ops).flatMap((o) => o.tags)));
    const hooks = Object.values<any>(doc.webhooks).map((item) => item.post);
    const hookTags = new Set(hooks.flatMap((o) => o.tags));
    expect([...hookTags]).toEqual(['webhooks']);
    expect(pathTags.has('webhooks')).toBe(false);
    expect(doc.tags.map((t: any) => t.name)).toEqual(expect.arrayContaining([...pathTags, ...hookTags]));
    const titles = hooks.map((o) => o.requestBody.content['application/json'].schema.title);
    expect(new Set(titles).size).toBe(hooks.length);
    expect(doc.webhooks['payment_link.created'].post.requestBody.content['application/json'].schema.title).toBe('PaymentLinkCreatedEvent');
    for (const t of titles) expect(doc.components.schemas[t]).toBeUndefined();
  });
});

describe('buildOpenApi is a pure function of its definitions', () => {
  const def: OperationDef = {
    id: 'widgets.create',
    method: 'post',
    path: '/widgets/:id/parts',
    scope: 'widgets.write',
    testMode: 'full',
    flag: 'widgets',
    body: Joi.object({ n: Joi.number().integer().min(1).required() }),
    successStatus: 201,
    response: Joi.object({ id: Joi.string().required() }),
    errors: [422],
    handler: async () => ({}),
  };

  test('builds only what it is given, deterministically', () => {
    const a = buildOpenApi([def]);
    expect(Object.keys(a.paths)).toEqual(['/widgets/{id}/parts']);
    expect(a.paths['/widgets/{id}/parts'].post.operationId).toBe('widgets.create');
    expect(JSON.stringify(buildOpenApi([def]))).toBe(JSON.stringify(a));
    expect(errorStatuses(def)).toEqual([400, 401, 403, 404, 409, 413, 422, 429, 500, 503]);
  });

  test('a later definition with the same id replaces the earlier one', () => {
    const b = buildOpenApi([def, { ...def, summary: 'second' }]);
    expect(b.paths['/widgets/{id}/parts'].post.summary).toBe('second');
  });
});

describe('joi -> JSON Schema conversion (joi-to-json, open-api-3.1)', () => {
  test('valid() is an enum (const for one value), allow(null) adds the null type', () => {
    expect(toJsonSchema(Joi.string().valid('a', 'b'))).toEqual({ type: 'string', enum: ['a', 'b'] });
    expect(toJsonSchema(Joi.string().valid('list'))).toEqual({ const: 'list' });
    expect(toJsonSchema(Joi.string().valid('a').allow(null))).toMatchObject({ type: ['string', 'null'], enum: ['a', null] });
    expect(toJsonSchema(Joi.object({ x: Joi.number() }).allow(null)).type).toEqual(['object', 'null']);
  });

  test('patterns, alternatives, required and unknown keys', () => {
    expect(toJsonSchema(Joi.string().pattern(/^pl_[A-Za-z0-9]+$/))).toEqual({ type: 'string', pattern: '^pl_[A-Za-z0-9]+$' });
    expect(toJsonSchema(Joi.alternatives(Joi.string(), Joi.array().items(Joi.string())))).toEqual({
      anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
    });
    const o = toJsonSchema(Joi.object({ a: Joi.string().required(), b: Joi.boolean() }));
    expect(o).toMatchObject({ required: ['a'], additionalProperties: false });
    expect(toJsonSchema(Joi.object().unknown(true)).additionalProperties).toBe(true);
  });
});

test('`.allow(null)` on alternatives is stated as a null alternative (found by the fuzzer on the recipient session)', () => {
  const s = toJsonSchema(
    Joi.alternatives()
      .try(Joi.object({ a: Joi.string() }), Joi.object({ b: Joi.number() }))
      .allow(null),
  ) as { anyOf?: unknown[]; oneOf?: unknown[] };
  const alts = s.anyOf ?? s.oneOf ?? [];
  expect(alts).toContainEqual({ type: 'null' });
  expect(alts).toHaveLength(3);
  expect((s as { type?: unknown }).type).toBeUndefined(); // no sibling `type: null` that no non-null value could satisfy
  const strict = toJsonSchema(Joi.alternatives().try(Joi.string(), Joi.number())) as { anyOf?: unknown[]; oneOf?: unknown[] };
  expect(strict.anyOf ?? strict.oneOf).not.toContainEqual({ type: 'null' });
});
