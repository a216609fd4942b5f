/**
 * Document fidelity over HTTP (issue 11): what the document now says, the server does.
 * - `expand` empty or unknown is ignored, `limit` is never refused (spec 4, 8);
 * - `GET /accounts` refuses a garbage cursor like every list (400 `cursor_invalid`);
 * - string lengths count code points (150 emoji within a 200 limit);
 * - `GET /account?expand=readiness,setup_guide` answers its declared schema;
 * - a nested Money field names its full path (`unit_price.currency`);
 * - new clients and products have `updated_at` equal to `created_at`;
 * - an unbounded `source_chain` is refused before any message could echo it.
 *
 * Nullability and closed objects of every request body (issue 38): the document admits `null`
 * exactly where the server accepts it, and closes an object (`additionalProperties: false`)
 * exactly where the server refuses an unknown key, at every depth. Checked twice: against joi in
 * process (every property and object of every body, each probe alone, so no other field hides it)
 * and over HTTP (each probe sent to the server; a probe whose answer names another field is
 * inconclusive, the in-process walk covers it), plus the three cases schemathesis reported.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type Joi from 'joi';
import crypto from 'node:crypto';
import { documentOfThisBuild } from '../../api/openapi-cli';
import { openApiPath } from '../../api/openapi';
import { REGISTRY, type OperationDef } from '../../api/operation';
import { call, client, expectError, expectOk, newAccount } from '../helpers/api';
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
  expectError(
    await api.post('/v1/products', { name: 'X', unit_price: { amount: '10', currency: 'XYZ', decimals: 2 } }),
    400,
    'invalid_request',
    'currency_invalid',
    'unit_price.currency',
  );
});

test('new clients and products: updated_at equals created_at', async () => {
  const c = (await api.post('/v1/clients', { display_name: 'Clock' })).body;
  expect(c.updated_at).toBe(c.created_at);
  const p = (await api.post('/v1/products', { name: 'Clock', currency: 'USD' })).body;
  expect(p.updated_at).toBe(p.created_at);
});

test('an unbounded source_chain is refused, never echoed', async () => {
  const long = 'z'.repeat(200_000);
  const res = await api.post('/v1/payouts', {
    invoice_amount: { amount: '5000', currency: 'USD', decimals: 2 },
    corridor_id: 'usd_ach',
    source_chain: long,
  });
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(res.status).toBeLessThan(500);
  expect(JSON.stringify(res.body).length).toBeLessThan(2000);
});

// ---------------------------------------------------------------------------------------------
// Nullability and closed objects of every request body (issue 38)

type Json = Record<string, any>;
type Seg = string | number;

const ajv = new Ajv2020({ strict: false, validateFormats: false });
/** Whole bodies as the document admits them: formats asserted (the server checks e-mails and instants). */
const bodies = new Ajv2020({ strict: false, validateFormats: true });
addFormats(bodies);
/** The key no body declares, sent to probe whether an object is closed. */
const PROBE_KEY = 'zz_fidelity_probe';

/** The types a schema node names (`type` as a list), or [] when it names none. */
const typesOf = (s: Json): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);
const isObjectNode = (s: Json) => typesOf(s).includes('object') || s.properties !== undefined;

/** One place of a body the document describes: an object (closed or open) or a property (nullable or not). */
interface Place {
  path: Seg[];
  kind: 'object' | 'property';
  schema: Json;
  closed?: boolean;
  nullable?: boolean;
}

/**
 * Every object and property of the request body schema `body` as the document states it: the
 * converted shape (`properties`, array `items`, and the branches of a node's own `oneOf`/`anyOf`,
 * e.g. a Money per scale), not the rules over several fields added beside it (`documentedAlso`
 * branches of the body, which name no shape). A property's nullability is its own schema's answer to `null`.
 */
function placesOf(body: Json): Place[] {
  const out: Place[] = [];
  const walk = (s: Json, path: Seg[], depth: number): void => {
    if (!s || typeof s !== 'object' || depth > 12) return;
    if (isObjectNode(s)) {
      out.push({ path, kind: 'object', schema: s, closed: s.additionalProperties === false });
      for (const [k, p] of Object.entries((s.properties ?? {}) as Record<string, Json | boolean>)) {
        if (typeof p === 'boolean') continue; // `false`: the field must be absent here
        out.push({ path: [...path, k], kind: 'property', schema: p, nullable: ajv.validate(p, null) });
        walk(p, [...path, k], depth + 1);
      }
    }
    if (s.items && typeof s.items === 'object') walk(s.items, [...path, 0], depth + 1);
    // Shape alternatives of a node without properties of its own (a Money per scale, a nullable
    // object as `anyOf [object, null]`); an anyOf/oneOf beside properties is a rule over the
    // fields (`documentedAlso`, e.g. a payroll row's recipient forms), not a shape.
    if (!s.properties) for (const b of [...(s.oneOf ?? []), ...(s.anyOf ?? [])] as Json[]) walk(b, path, depth + 1);
  };
  walk(body, [], 0);
  // One entry per place (branches of one node repeat its path): closed only when every branch is,
  // nullable when any branch admits null.
  const merged = new Map<string, Place>();
  for (const p of out) {
    const key = `${p.kind} ${JSON.stringify(p.path)}`;
    const seen = merged.get(key);
    if (!seen) merged.set(key, { ...p });
    else if (p.kind === 'object') seen.closed = seen.closed && p.closed;
    else seen.nullable = seen.nullable || p.nullable;
  }
  return [...merged.values()];
}

/** A body holding `value` at `path` (arrays for numeric segments), everything else absent. */
function bodyWith(path: Seg[], value: unknown, base: Json = {}): Json {
  const root: Json = structuredClone(base);
  let at: any = root;
  path.forEach((seg, i) => {
    const last = i === path.length - 1;
    if (last) {
      at[seg] = value;
      return;
    }
    const nextIsIndex = typeof path[i + 1] === 'number';
    if (at[seg] === null || typeof at[seg] !== 'object') at[seg] = nextIsIndex ? [] : {};
    at = at[seg];
  });
  return root;
}

const dotted = (path: Seg[]) => path.join('.');

/** The joi node (its description) at `path` of `schema`, or undefined past an alternative or an unknown key. */
function joiNodeAt(schema: Joi.Schema, path: Seg[]): Json | undefined {
  let d: Json | undefined = schema.describe() as Json;
  for (const seg of path) {
    if (!d) return undefined;
    if (d.type === 'object') d = d.keys?.[String(seg)];
    else if (d.type === 'array' && d.items?.length === 1) d = d.items[0];
    else return undefined;
  }
  return d;
}

/** True when a rule checked in code documents this joi node (`.meta({ openapi })`: the document states the code's rule). */
const checkedInCode = (node: Json | undefined) => (node?.metas ?? []).some((m: Json) => m.openapi !== undefined);

/** The request body operations of the registry, last definition of an id winning (as the document does). */
function bodyOperations(): Array<{ def: OperationDef; label: string; schema: Json; op: Json }> {
  const doc = documentOfThisBuild() as Json;
  const byId = new Map<string, OperationDef>();
  for (const d of REGISTRY) byId.set(d.id, d);
  return [...byId.values()]
    .filter((d) => d.body)
    .map((def) => {
      const template = openApiPath(def.path);
      const op = doc.paths[template][def.method];
      return { def, label: `${def.method.toUpperCase()} ${template}`, schema: op.requestBody.content['application/json'].schema, op };
    });
}

/** joi's verdict on `body` as the server asks it (api/operation/validate.ts), every error reported. */
function joiErrors(schema: Joi.Schema, body: Json): Array<{ path: string; type: string }> {
  const { error } = schema.validate(body, { abortEarly: false, convert: true, allowUnknown: false });
  return (error?.details ?? []).map((d) => ({ path: d.path.join('.'), type: d.type }));
}

test('every request body: null is documented exactly where joi accepts it, closed objects exactly where joi refuses an unknown key', () => {
  const ops = bodyOperations();
  expect(ops.length).toBeGreaterThan(40);
  const mismatches: string[] = [];
  let probes = 0;
  for (const { def, label, schema } of ops) {
    for (const place of placesOf(schema)) {
      if (checkedInCode(joiNodeAt(def.body!, place.path))) continue; // proved over HTTP below
      probes++;
      if (place.kind === 'object') {
        const refused = joiErrors(def.body!, bodyWith([...place.path, PROBE_KEY], 1)).some(
          (e) => e.type === 'object.unknown' && e.path === dotted([...place.path, PROBE_KEY]),
        );
        if (refused !== place.closed)
          mismatches.push(
            `${label} ${dotted(place.path) || '(body)'}: the document says ${place.closed ? 'closed' : 'open'}, joi ${refused ? 'refuses' : 'accepts'} an unknown key`,
          );
      } else {
        const refused = joiErrors(def.body!, bodyWith(place.path, null)).some((e) => e.path === dotted(place.path));
        if (refused === place.nullable)
          mismatches.push(
            `${label} ${dotted(place.path)}: the document says null is ${place.nullable ? 'accepted' : 'refused'}, joi ${refused ? 'refuses' : 'accepts'} it`,
          );
      }
    }
  }
  expect(probes).toBeGreaterThan(300);
  expect(mismatches).toEqual([]);
});

/**
 * A value for the schema node `s` that the server's validation accepts as well as this small
 * sampler can tell: the node's example, const or first enum value, its first non-null branch, or a
 * value of its type (an id for an id pattern, a future instant for a date-time, required keys filled).
 */
function sample(s: Json, depth = 0): unknown {
  if (!s || typeof s !== 'object' || depth > 8) return undefined;
  if (Array.isArray(s.examples) && s.examples.length) return structuredClone(s.examples[0]);
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum.find((v: unknown) => v !== null && v !== '') ?? s.enum[0];
  const branch = [...(s.oneOf ?? []), ...(s.anyOf ?? [])].find((b: Json) => !typesOf(b).every((t) => t === 'null') && b.enum?.[0] !== null);
  const type = typesOf(s).find((t) => t !== 'null') ?? (s.properties ? 'object' : undefined);
  if (!type && branch) return sample(branch, depth + 1);
  switch (type) {
    case 'object': {
      const out: Json = {};
      for (const k of (s.required ?? []) as string[]) out[k] = sample(s.properties?.[k] ?? {}, depth + 1);
      return out;
    }
    case 'array':
      return s.minItems ? Array.from({ length: s.minItems }, () => sample(s.items ?? {}, depth + 1)) : [];
    case 'integer':
    case 'number':
      return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return true;
    case 'string': {
      const id = typeof s.pattern === 'string' ? /^\^([a-z]+_)\[A-Za-z0-9\]\+\$$/.exec(s.pattern) : null;
      if (id) return `${id[1]}fidelityProbe`;
      if (s.format === 'date-time') return new Date(Date.now() + 86_400_000).toISOString();
      if (s.format === 'email') return 'probe@example.com';
      if (s.format === 'uri') return 'https://example.com/probe';
      return 'probe'.slice(0, s.maxLength ?? 5).padEnd(s.minLength ?? 0, 'e');
    }
    default:
      return branch ? sample(branch, depth + 1) : undefined;
  }
}

/** A body the server's validation can take: the operation's whole-body example, else the required fields sampled. */
const baseBody = (schema: Json): Json =>
  Array.isArray(schema.examples) && schema.examples.length ? structuredClone(schema.examples[0]) : ((sample(schema) as Json) ?? {});

/**
 * Bodies to start probes from, each one the document admits: the base body, and the base with each
 * branch of the body's rules over fields filled in (one per bank rail, destination type, entry
 * kind...), so a probe can find a branch under which its value is admitted.
 */
function startingBodies(schema: Json, admits: (b: unknown) => boolean): Json[] {
  const base = baseBody(schema);
  const rules = [schema, ...((schema.allOf ?? []) as Json[])].flatMap((x) => [...(x.anyOf ?? []), ...(x.oneOf ?? [])] as Json[]);
  const merged = rules.map((b) => ({ ...base, ...((b.properties || b.required ? sample({ ...b, type: 'object' }) : {}) as Json) }));
  return [base, ...merged].filter((b) => admits(b));
}

/** `path` of `base` made to exist: containers sampled from the document along the way (a probe inside `amount` starts from a valid Money). */
function baseFor(schema: Json, base: Json, path: Seg[]): Json {
  const out = structuredClone(base);
  let at: any = out;
  let s: Json | undefined = schema;
  for (const seg of path) {
    const next: Json | undefined =
      typeof seg === 'number'
        ? s?.items
        : (s?.properties?.[seg] ?? [...(s?.oneOf ?? []), ...(s?.anyOf ?? [])].map((b: Json) => b.properties?.[seg]).find(Boolean));
    if (at[seg] === undefined || at[seg] === null || typeof at[seg] !== 'object')
      at[seg] =
        (next ? sample(typesOf(next).includes('array') || next.items ? { ...next, minItems: 1 } : next) : undefined) ??
        (typeof seg === 'number' ? {} : {});
    if (typeof at[seg] !== 'object' || at[seg] === null) return out;
    at = at[seg];
    s =
      next && !isObjectNode(next) && !next.items
        ? [...(next.oneOf ?? []), ...(next.anyOf ?? [])].find((b: Json) => isObjectNode(b) || b.items)
        : next;
  }
  return out;
}

test('over HTTP: each documented null is accepted, each closed object refuses an unknown key and each open one takes it', async () => {
  const owner = await newAccount();
  const ops = bodyOperations().filter(({ def }) => def.id !== 'account_sessions.revoke_all');
  const mismatches: string[] = [];
  let conclusive = 0;
  let inconclusive = 0;
  for (const { label, schema, op } of ops) {
    const callers = (op['x-callers'] ?? []) as string[];
    const credential =
      callers.length === 0 ? {} : callers.includes('business_key') ? { key: owner.live_key } : { bearer: owner.session_token };
    const url = `/v1${label.split(' ')[1].replace(/\{[^}]+\}/g, 'zz_fidelity_missing')}`;
    const method = label.split(' ')[0];
    const admits = bodies.compile(schema);
    const starts = startingBodies(schema, admits);
    if (starts.length === 0) starts.push(baseBody(schema));
    // The probes of one operation go out together (each alone in its body; none depends on another).
    await Promise.all(
      placesOf(schema)
        .filter((place) => place.kind === 'object' || place.nullable)
        .map(async (place) => {
          const target = place.kind === 'object' ? [...place.path, PROBE_KEY] : place.path;
          const candidates = starts.map((start) =>
            bodyWith(target, place.kind === 'object' ? 1 : null, baseFor(schema, start, place.path)),
          );
          // A nullable field or an open object is a claim about bodies the document admits: a probe
          // body that breaks another of its rules (a required field, a rule over two fields) proves nothing.
          const body = place.kind === 'object' && place.closed ? candidates[0] : candidates.find((b) => admits(b));
          if (body === undefined) {
            inconclusive++;
            return;
          }
          const res = await call(method, url, body, credential);
          const err = (res.body as Json | null)?.error as Json | undefined;
          const param = typeof err?.param === 'string' ? err.param : null;
          const names = (p: Seg[]) => param !== null && (param === dotted(p) || param.startsWith(`${dotted(p)}.`));
          if (place.kind === 'object' && place.closed) {
            if (res.status === 400 && err?.code === 'parameter_unknown' && param === dotted(target)) conclusive++;
            else if (res.status === 400 && param !== null && !names(target)) inconclusive++;
            else
              mismatches.push(
                `${label} ${dotted(place.path) || '(body)'}: closed in the document, yet an unknown key answered ${res.status} ${JSON.stringify(err ?? res.body).slice(0, 200)}`,
              );
          } else if ((res.status === 400 || res.status === 422) && names(target)) {
            mismatches.push(
              `${label} ${dotted(target)}: ${place.kind === 'object' ? 'open' : 'nullable'} in the document, refused: ${res.status} ${err?.code} ${err?.message}`,
            );
          } else if ((res.status === 400 || res.status === 422) && param !== null) inconclusive++;
          else conclusive++;
        }),
    );
  }
  process.stderr.write(
    `[document-fidelity] HTTP probes: ${conclusive} conclusive, ${inconclusive} inconclusive (a body the document does not admit, or another field answered first; the in-process walk covers them)\n`,
  );
  expect(mismatches).toEqual([]);
  expect(conclusive).toBeGreaterThan(4 * inconclusive);
});

test('the cases schemathesis reported (issue 38): items null, description null, beneficiary keys', async () => {
  const owner = await newAccount();
  const key = client(owner.live_key);
  const link = expectOk(
    await key.post('/v1/payment_links', {
      amount: { amount: '1000', currency: 'USD', decimals: 2 },
      title: 'Fidelity',
      items: [{ name: 'Work', quantity: 1 }],
    }),
    201,
  );
  const patched = expectOk(await key.patch(`/v1/payment_links/${link.id}`, { items: null }));
  expect(patched.items).toEqual([]);
  const clientId = expectOk(await key.post('/v1/clients', { display_name: 'Fidelity Co' }), 201).id;
  const wallet = expectOk(
    await client(owner.session_token).post('/v1/address_book', {
      kind: 'crypto',
      chain: 'tempo',
      address: `0x${crypto.randomBytes(20).toString('hex')}`,
    }),
    201,
  ).id;
  const sub = expectOk(
    await key.post('/v1/subscriptions', {
      client_id: clientId,
      amount: { amount: '25000000', currency: 'USDC', decimals: 6 },
      interval: 'month',
      settlement_destination_id: wallet,
      description: null,
    }),
    201,
  );
  expect(sub.description).toBeNull();
  const payout = expectOk(
    await key.post('/v1/payouts', { invoice_amount: { amount: '100000', currency: 'USD', decimals: 2 }, corridor_id: 'usd_ach' }),
    201,
  );
  const details = {
    account_owner_type: 'business',
    account_holder_name: 'Fidelity LLC',
    account_number: '000123456789',
    routing_number: '021000021',
  };
  expectError(
    await key.post(`/v1/payouts/${payout.id}/beneficiary`, { ...details, swift_branch: 'x' }),
    400,
    'invalid_request',
    'parameter_unknown',
    'swift_branch',
  );
  expect(
    (await key.post(`/v1/payouts/${payout.id}/beneficiary`, { ...details, bank_name: null, tax_id: null, country: null })).status,
  ).toBe(200);
});
