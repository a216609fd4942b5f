/**
 * Every example of both documents passes its own schema (issue 23 part 4), checked with a JSON
 * Schema 2020-12 validator (ajv, formats from ajv-formats), not with joi: what a reader of
 * `/v1/openapi.json` or `/sim/openapi.json` would check. Schema `examples`, and the `example` of a
 * request body or parameter against its schema. Also: the simulator's positive amounts say what
 * the server enforces (no inverted pattern), and `"0"` answers a clear message.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { documentOfThisBuild } from '../../api/openapi-cli';
import { buildSimOpenApi } from '../../api/sim-openapi';
import { bankCreditBody, bridgeTransferBody, chainTransferBody } from '../../api/schemas/simulator';

type Json = Record<string, any>;

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv);

/** `schema` with every local `$ref` to a component replaced by the component (the documents have no cycles). */
function inline(schema: unknown, doc: Json, depth = 0): unknown {
  if (depth > 50) throw new Error('reference cycle');
  if (Array.isArray(schema)) return schema.map((s) => inline(s, doc, depth + 1));
  if (!schema || typeof schema !== 'object') return schema;
  const { $ref, ...rest } = schema as Json;
  if (typeof $ref === 'string' && $ref.startsWith('#/')) {
    const target = $ref
      .slice(2)
      .split('/')
      .reduce((o: Json, k) => o?.[k], doc);
    return inline({ ...target, ...rest }, doc, depth + 1);
  }
  return Object.fromEntries(Object.entries(schema as Json).map(([k, v]) => [k, inline(v, doc, depth + 1)]));
}

/** Every (where, schema, example) of `doc`: schema `examples`, and `example` next to a `schema` (media types, parameters). */
function examplesOf(doc: Json): Array<{ where: string; schema: unknown; example: unknown }> {
  const out: Array<{ where: string; schema: unknown; example: unknown }> = [];
  const walk = (x: unknown, at: string): void => {
    if (!x || typeof x !== 'object') return;
    const o = x as Json;
    if (Array.isArray(o.examples) && ('type' in o || 'anyOf' in o || 'const' in o || 'enum' in o)) {
      const { examples, ...schema } = o;
      for (const e of examples) out.push({ where: `${at}/examples`, schema, example: e });
    }
    if ('example' in o && o.schema && typeof o.schema === 'object')
      out.push({ where: `${at}/example`, schema: o.schema, example: o.example });
    for (const [k, v] of Object.entries(o)) walk(v, `${at}/${k}`);
  };
  walk(doc.paths, '#/paths');
  walk(doc.webhooks, '#/webhooks');
  return out;
}

const documents: Array<[string, Json]> = [
  ['/v1/openapi.json', documentOfThisBuild() as Json],
  ['/sim/openapi.json', buildSimOpenApi() as Json],
];

describe.each(documents)('%s', (_name, doc) => {
  test('every example validates against its own schema (JSON Schema 2020-12)', () => {
    const found = examplesOf(doc);
    expect(found.length).toBeGreaterThan(0);
    const failures = found.flatMap(({ where, schema, example }) => {
      const validate = ajv.compile(inline(schema, doc) as object);
      return validate(example) ? [] : [`${where}: ${JSON.stringify(example)}: ${ajv.errorsText(validate.errors)}`];
    });
    expect(failures).toEqual([]);
  });

  test('every documented request body with an example accepts it', () => {
    const bodies = Object.entries<Json>(doc.paths).flatMap(([p, item]) =>
      Object.entries<Json>(item)
        .filter(([, op]) => op?.requestBody?.content?.['application/json']?.example !== undefined)
        .map(([m, op]) => ({ where: `${m} ${p}`, media: op.requestBody.content['application/json'] })),
    );
    for (const { where, media } of bodies) {
      const validate = ajv.compile(inline(media.schema, doc) as object);
      expect([where, validate(media.example) ? null : ajv.errorsText(validate.errors)]).toEqual([where, null]);
    }
  });
});

describe("the simulator's positive amounts", () => {
  const sim = buildSimOpenApi() as Json;
  const bodySchema = (path: string): Json => sim.paths[path].post.requestBody.content['application/json'].schema;
  const cases: Array<[string, string, Json]> = [
    ['/sim/chain/transfers', 'amount', bodySchema('/sim/chain/transfers')],
    ['/sim/bank/credits', 'amount', bodySchema('/sim/bank/credits')],
    ['/sim/bridge/transfers/{id}', 'delivered_amount', bodySchema('/sim/bridge/transfers/{id}')],
  ];

  test.each(cases)('%s `%s`: the documented pattern accepts what the server accepts and refuses zeros', (_path, field, body) => {
    const validate = ajv.compile(body.properties[field]);
    for (const ok of ['1', '10', '000100', '99500000']) expect([ok, validate(ok)]).toEqual([ok, true]);
    for (const bad of ['0', '000', '', '-1', '1.5', 'abc']) expect([bad, validate(bad)]).toEqual([bad, false]);
  });

  test('`"0"` is refused with "must be greater than 0", naming the field', () => {
    const base = { chain: 'base', to_address: `0x${'1'.repeat(40)}`, asset: 'USDC' };
    expect(chainTransferBody.validate({ ...base, amount: '0' }).error?.message).toBe('"amount" must be greater than 0');
    expect(bankCreditBody.validate({ rail: 'sepa', currency: 'EUR', amount: '00', reference: '', to_account: 'x' }).error?.message).toBe(
      '"amount" must be greater than 0',
    );
    expect(bridgeTransferBody.validate({ state: 'delivered', delivered_amount: '0' }).error?.message).toBe(
      '"delivered_amount" must be greater than 0',
    );
    expect(chainTransferBody.validate({ ...base, amount: '12x' }).error?.message).toMatch(/required pattern/);
  });
});
