/**
 * The document's request examples work as they stand (issue 24): a developer who copies the
 * example of a create operation from `/v1/openapi.json` gets a 2xx, not a 400. Each documented
 * whole-body example (`examples` of the request body schema, written with joi `.example()`) of the
 * operations below is sent with a live key; the only change is the one the fuzz hooks make too:
 * an id the example names (`cli_...`, `adr_...`) is replaced by a real object of this account of
 * the same kind. tests/unit/document-examples.test.ts checks that each example fits its schema.
 */
import crypto from 'node:crypto';
import { call, client, connectDb, newAccount } from '../helpers/api';

type Json = Record<string, any>;

/** The create operations whose examples a developer copies (issue 24's list). */
const OPERATIONS = ['/payment_links', '/payouts', '/products', '/payroll_runs', '/payroll_templates', '/subscriptions', '/traces'];

let doc: Json;
let key: ReturnType<typeof client>;
/** A real id of this account per id prefix, for the ids an example names. */
const realIds: Record<string, string> = {};

/** `example` with every string that is an id of a kind in `realIds` replaced by the real one. */
function withRealIds(example: unknown): unknown {
  if (Array.isArray(example)) return example.map(withRealIds);
  if (example && typeof example === 'object') return Object.fromEntries(Object.entries(example).map(([k, v]) => [k, withRealIds(v)]));
  if (typeof example === 'string') {
    const prefix = /^([a-z]+)_[A-Za-z0-9]+$/.exec(example)?.[1];
    if (prefix && realIds[prefix]) return realIds[prefix];
  }
  return example;
}

beforeAll(async () => {
  await connectDb();
  const acct = await newAccount();
  key = client(acct.live_key);
  const session = client(acct.session_token);
  const docRes = await call('GET', '/v1/openapi.json');
  expect(docRes.status).toBe(200);
  doc = docRes.body;
  const cli = await key.post('/v1/clients', { display_name: 'Example Client Co', email: 'billing@client.example' });
  expect(cli.status).toBe(201);
  realIds.cli = cli.body.id;
  // A subscription settles on the service chain (the test network's `tempo`): a crypto entry there.
  const adr = await session.post('/v1/address_book', {
    kind: 'crypto',
    chain: 'tempo',
    address: `0x${crypto.randomBytes(20).toString('hex')}`,
    label: 'Example wallet',
  });
  expect(adr.status).toBe(201);
  realIds.adr = adr.body.id;
});

describe.each(OPERATIONS)('POST %s', (path) => {
  test('every documented request example is accepted as it stands (2xx)', async () => {
    const schema = doc.paths[path]?.post?.requestBody?.content?.['application/json']?.schema;
    const examples: unknown[] = schema?.examples ?? [];
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) {
      const res = await key.post(`/v1${path}`, withRealIds(example));
      expect([path, res.status < 300 ? 'accepted' : `${res.status} ${JSON.stringify(res.body)}`]).toEqual([path, 'accepted']);
      expect(res.status).toBeGreaterThanOrEqual(200);
    }
  });
});
