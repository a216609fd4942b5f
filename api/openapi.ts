/**
 * The OpenAPI 3.1 document of `/v1` (served at `GET /v1/openapi.json`), generated from the
 * operation registry (api/operation/registry.ts `REGISTRY`): the same joi schemas that validate requests
 * and the `response` schemas of the views are converted with `joi-to-json` (one source of truth).
 *
 * Per operation: path and query parameters, the request body, the success response(s), security
 * (business key in `x-api-key` or as a Bearer token, dashboard session as a Bearer token; none for
 * payer routes), the `Idempotency-Key` header on mutations (spec 8), the optional
 * `Service-Version` / `Service-Account` headers (spec 4 conventions), and the error statuses the
 * operation can produce, each answering the part 7 envelope (`ErrorEnvelope`).
 *
 * Top-level `webhooks`: one entry per catalogued event type with its exact envelope
 * (api/openapi-webhooks.ts, from views/event-schemas.ts).
 *
 * Pure: `buildOpenApi(defs)` depends only on its argument (no I/O); simulator routes are never in
 * the registry and so never in the document.
 */
import type Joi from 'joi';
import { errorEnvelopeJsonSchema } from './middleware/errors';
import { addOpenApiLinks } from './openapi-links';
import { TRIM_WHITESPACE } from './schemas/common';
import { withEventWebhooks } from './openapi-webhooks';
import { allowedCallers, allowedRoles, isPublicOperation, REGISTRY, type OperationDef } from './operation';
import { operationSummary } from './operation/summaries';
import { CONTRACT_VERSION, LATEST_VERSION, VERSION_PATTERN } from '../domain/versioning';

type JsonSchema = Record<string, unknown>;
type Doc = Record<string, any>;

/** Reason phrases of the statuses the document names. */
const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  400: 'Invalid request (`invalid_request`)',
  401: 'Not authenticated (`authentication_error`)',
  402: 'Allowance spent (`quota_exhausted`)',
  403: 'Wrong actor or scope (`permission_error`)',
  404: 'Not visible to the caller (`not_found`), including every cross-account id',
  409: 'State conflict, idempotency conflict or capability unavailable',
  413: 'Request body over 1 MiB (`invalid_request`, code `request_too_large`)',
  422: 'Semantically invalid request (`invalid_request`)',
  429: 'Rate limited (`rate_limit_error`); see `Retry-After`',
  500: 'Unexpected error (`api_error`)',
  502: 'Upstream failure (`provider_error`)',
  503: 'Switch off, test mode refused or dependency out (`temporarily_unavailable`); see `Retry-After` when set',
};

/** Request strings never contain NUL (U+0000): the server refuses it at any depth. */
const NO_NUL_PATTERN = '^[^\\u0000]*$';
/** No NUL, and something left once trimmed (a trimmed string that may not be empty). */
const NOT_BLANK_PATTERN = `^[^\\u0000]*[^\\u0000${TRIM_WHITESPACE}][^\\u0000]*$`;

/** joi's description of one schema node, as joi-to-json's parser walks it. */
interface JoiSpec {
  type?: string;
  allow?: unknown[];
  flags?: Record<string, unknown>;
  metas?: Array<Record<string, unknown>>;
}

type ParserInstance = { parse(spec: unknown, definitions?: Record<string, unknown>, level?: number): JsonSchema };
// joi-to-json's OpenAPI 3.1 parser class (its package has no `exports` map; no typings for lib/).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const OpenApi31Parser = require('joi-to-json/lib/parsers/open-api-3.1') as new (opts?: object) => ParserInstance;

/**
 * joi-to-json's OpenAPI 3.1 parser, plus what joi enforces that it does not write down (a string's
 * `.length(n)` becomes `minLength` = `maxLength` = n), and:
 * - `.meta({ openapi: {...} })` on a node replaces the generated schema of that node by the given
 *   one (for rules checked in code with their own error codes, e.g. a lenient `limit`, or a
 *   closed enum whose unknown value answers a specific code);
 * - `.allow(null)` on `Joi.alternatives()` (written by joi-to-json as an unsatisfiable sibling
 *   `type: 'null'`) becomes a `null` alternative;
 * - requests only: a joi string refuses `""` unless `.allow('')`,
 *   `.empty(...)` or a `.valid(...)` set says otherwise, so it gets `minLength: 1`.
 *   Response schemas are left as converted (they describe, they never refuse).
 */
class ContractParser extends OpenApi31Parser {
  constructor(private readonly request: boolean) {
    super({});
  }

  override parse(spec: JoiSpec, definitions: Record<string, unknown> = {}, level = 0): JsonSchema {
    // The last override wins (a shared schema documented again for one operation, e.g. `moneyPositiveIn`).
    const override = [...(spec.metas ?? [])].reverse().find((m) => m.openapi !== undefined)?.openapi as JsonSchema | undefined;
    if (override)
      return spec.allow?.includes(null) && !acceptsNull(override)
        ? { anyOf: [structuredClone(override), { type: 'null' }] }
        : structuredClone(override);
    const nullableAlternatives = spec.type === 'alternatives' && spec.allow?.includes(null) === true; // read first: the base parser consumes `allow`
    const out = super.parse(spec, definitions, level);
    // joi-to-json writes `.allow(null)` on alternatives as a sibling `type: 'null'` next to the
    // `anyOf` (which no value satisfies with a non-null alternative): state it as one more alternative.
    if (nullableAlternatives) {
      const { type: _t, ...rest } = out as Record<string, unknown>;
      const key = rest.oneOf ? 'oneOf' : 'anyOf';
      const alts = rest[key] as JsonSchema[] | undefined;
      if (alts) return withAlso({ ...rest, [key]: alts.some(acceptsNull) ? alts : [...alts, { type: 'null' }] } as JsonSchema, spec);
    }
    return withAlso(out, spec);
  }

  // Called by the base parser for every node; `schema.type` is still the bare joi type here.
  _setStringFieldProperties(schema: JsonSchema, spec: JoiSpec): void {
    (OpenApi31Parser.prototype as unknown as { _setStringFieldProperties(s: JsonSchema, d: JoiSpec): void })._setStringFieldProperties.call(
      this,
      schema,
      spec,
    );
    if (schema.type !== 'string') return;
    const exact = (spec as { rules?: Array<{ name: string; args?: { limit?: number } }> }).rules?.find((r) => r.name === 'length')?.args
      ?.limit;
    if (typeof exact === 'number') Object.assign(schema, { minLength: exact, maxLength: exact });
    if (!this.request) return;
    const emptyAccepted = (spec.allow ?? []).includes('') || spec.flags?.empty !== undefined || spec.flags?.only === true;
    if (!emptyAccepted) schema.minLength = Math.max(Number(schema.minLength ?? 0), 1);
    // The server refuses NUL in every request string (api/middleware/input.ts); say so where no
    // pattern or closed set already rules it out.
    // A trimmed string that may not be empty may not be blank either (joi trims, then `min(1)`
    // refuses): say so in the same pattern.
    const trimmed = (spec as { rules?: Array<{ name: string }> }).rules?.some((r) => r.name === 'trim') === true;
    if (schema.pattern === undefined && schema.enum === undefined && spec.flags?.only !== true)
      schema.pattern = trimmed && !emptyAccepted ? NOT_BLANK_PATTERN : NO_NUL_PATTERN;
  }
}

/**
 * `.meta({ openapiAlso: {...} })` (api/schemas/common.ts `documentedAlso`): keywords added to the
 * converted node, for a rule over two fields the server checks in code (`oneOf` of required sets,
 * `dependentRequired`, `not`), leaving the fields as converted.
 */
function withAlso(out: JsonSchema, spec: JoiSpec): JsonSchema {
  const also = spec.metas?.find((m) => m.openapiAlso !== undefined)?.openapiAlso as JsonSchema | undefined;
  if (!also) return out;
  const clash = Object.keys(also).filter((k) => k in out);
  if (clash.length) throw new Error(`openapiAlso would replace ${clash.join(', ')} of the converted schema: put the rule under allOf`);
  return Object.assign(out, structuredClone(also));
}

/** True when the JSON schema `s` states that null is accepted (a `null` type, enum value or alternative). */
function acceptsNull(s: JsonSchema): boolean {
  const t = (s as { type?: unknown }).type;
  if (t === 'null' || (Array.isArray(t) && t.includes('null'))) return true;
  if (Array.isArray((s as { enum?: unknown[] }).enum) && (s as { enum: unknown[] }).enum.includes(null)) return true;
  const alts = [...((s as { anyOf?: JsonSchema[] }).anyOf ?? []), ...((s as { oneOf?: JsonSchema[] }).oneOf ?? [])];
  return alts.some(acceptsNull);
}

const RESPONSE_PARSER = new ContractParser(false);
const REQUEST_PARSER = new ContractParser(true);

/**
 * Converts a joi schema to an OpenAPI 3.1 (JSON Schema 2020-12) schema. `side: 'request'` adds
 * what joi enforces on input beyond joi-to-json's conversion (`minLength: 1` on strings that refuse
 * `""`); both sides honour `.meta({ openapi })` overrides (see `ContractParser`).
 */
export function toJsonSchema(schema: Joi.Schema, side: 'request' | 'response' = 'response'): JsonSchema {
  return withKeyBounds((side === 'request' ? REQUEST_PARSER : RESPONSE_PARSER).parse(schema.describe() as JoiSpec));
}

/** joi-to-json drops an object's key bounds: a `.meta({ 'x-maxProperties': n })` becomes `maxProperties: n`. */
function withKeyBounds(s: JsonSchema): JsonSchema {
  const walk = (x: unknown): void => {
    if (x === null || typeof x !== 'object') return;
    const o = x as Record<string, unknown>;
    if (typeof o['x-maxProperties'] === 'number') {
      o.maxProperties = o['x-maxProperties'];
      delete o['x-maxProperties'];
    }
    for (const v of Object.values(o)) walk(v);
  };
  walk(s);
  return s;
}

/** Koa path `/a/:id/b` -> OpenAPI `/a/{id}/b`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function pathParams(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);
}

const ALL_TYPES = ['array', 'boolean', 'number', 'object', 'string', 'null'];

/** Query values arrive as strings: a joi `any()` (every JSON type) is documented as a string. */
function queryParamSchema(s: JsonSchema): JsonSchema {
  const t = s.type;
  if (Array.isArray(t) && ALL_TYPES.every((x) => t.includes(x))) {
    const { type: _type, ...rest } = s;
    return { ...rest, type: 'string' };
  }
  return s;
}

function isMutation(def: OperationDef): boolean {
  return !isPublicOperation(def) && (def.idempotent ?? def.method !== 'get');
}

/**
 * Error statuses `def` can answer: every operation 400 (Service-Version, validation), 429 and 500;
 * public-token routes 404 (unknown token); authenticated ones 401, 403, 404 (Service-Account,
 * ids) and 503 (test-mode switch, gates); 409 on mutations (idempotency) and flagged operations;
 * 413 on operations with a body (over 1 MiB); plus the operation's own `errors`.
 */
export function errorStatuses(def: OperationDef): number[] {
  const s = new Set<number>([400, 429, 500, 404]);
  if (!isPublicOperation(def)) {
    for (const x of [401, 403, 503]) s.add(x);
    if (isMutation(def) || def.flag) s.add(409);
  }
  if (def.method !== 'get') s.add(413);
  for (const x of def.errors ?? []) s.add(x);
  return [...s].sort((a, b) => a - b);
}

function tagOf(def: OperationDef): string {
  return def.path.split('/').filter(Boolean)[0] ?? 'root';
}

function operation(def: OperationDef): Doc {
  const params: Doc[] = pathParams(def.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: def.pathParams?.[name] ?? { type: 'string', minLength: 1, maxLength: 255 },
  }));
  if (def.query) {
    const q = toJsonSchema(def.query, 'request');
    const required = new Set((q.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries((q.properties as Record<string, JsonSchema>) ?? {})) {
      params.push({ name, in: 'query', required: required.has(name), schema: queryParamSchema(schema) });
    }
  }
  const publicOp = isPublicOperation(def);
  if (isMutation(def)) params.push({ $ref: '#/components/parameters/IdempotencyKey' });
  params.push({ $ref: '#/components/parameters/ServiceVersion' });
  const callers = allowedCallers(def);
  if (callers.includes('dashboard_session')) params.push({ $ref: '#/components/parameters/ServiceAccount' });

  const responses: Doc = {};
  const success = [def.successStatus ?? 200, ...(def.otherSuccessStatuses ?? [])];
  for (const status of success) {
    responses[String(status)] = {
      description: STATUS_TEXT[status] ?? 'Success',
      headers: {
        'Service-Version': { $ref: '#/components/headers/ServiceVersion' },
        'Request-Id': { $ref: '#/components/headers/RequestId' },
      },
      content: {
        [def.responseContentType ?? 'application/json']: { schema: def.response ? toJsonSchema(def.response) : { type: 'object' } },
      },
    };
  }
  for (const status of errorStatuses(def)) responses[String(status)] = { $ref: `#/components/responses/Error${status}` };

  // The one-line summary in the spec's words (api/operation/summaries.ts); the route's own longer
  // text, when it has one, is the description.
  const summary = operationSummary(def.id) ?? def.summary ?? def.id;
  const op: Doc = {
    operationId: def.id,
    summary,
    ...(def.summary && def.summary.replace(/\.$/, '') !== summary ? { description: def.summary } : {}),
    tags: [tagOf(def)],
    security: publicOp ? [] : callers.includes('business_key') ? [{ ApiKeyAuth: [] }, { BearerAuth: [] }] : [{ BearerAuth: [] }],
    parameters: params,
    responses,
  };
  if (!publicOp) {
    op['x-scope'] = def.scope;
    op['x-callers'] = callers;
    op['x-test-mode'] = def.testMode;
    if (callers.includes('dashboard_session')) op['x-roles'] = allowedRoles(def);
  }
  if (def.body) {
    const body = wholeExamplesOnly(toJsonSchema(def.body, 'request'));
    // Required when a field is, or when every alternative of the body's anyOf/oneOf needs one (an empty body is refused).
    const branches = (body.anyOf ?? body.oneOf) as Array<{ required?: string[] }> | undefined;
    const everyBranchNeedsAField = Array.isArray(branches) && branches.length > 0 && branches.every((b) => (b.required ?? []).length > 0);
    op.requestBody = {
      required: ((body.required as string[] | undefined) ?? []).length > 0 || everyBranchNeedsAField,
      content: { 'application/json': { schema: body } },
    };
  }
  return op;
}

/**
 * A request body documented with whole examples (joi `.example()` on the body object) keeps only
 * those: the examples of its fields (a shared Money's USD and USDC) are dropped, so a tool that
 * assembles a body from field examples (schemathesis's examples phase draws every field without
 * one) sends the documented bodies, which the server accepts as they stand, and not a
 * mix of field examples and drawn values.
 */
function wholeExamplesOnly(body: JsonSchema): JsonSchema {
  if (!Array.isArray(body.examples)) return body;
  // `names`: the keys of `x` are field names (under `properties`), never keywords.
  const strip = (x: unknown, names = false): unknown => {
    if (Array.isArray(x)) return x.map((v) => strip(v));
    if (x === null || typeof x !== 'object') return x;
    return Object.fromEntries(
      Object.entries(x as JsonSchema)
        .filter(([k]) => names || (k !== 'examples' && k !== 'example'))
        .map(([k, v]) => [k, strip(v, !names && k === 'properties')]),
    );
  };
  const { examples, ...rest } = body;
  return { ...(strip(rest) as JsonSchema), examples };
}

function errorResponse(status: number): Doc {
  const r: Doc = {
    description: STATUS_TEXT[status] ?? 'Error',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
  };
  if (status === 429 || status === 503) r.headers = { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } };
  return r;
}

/**
 * Builds the OpenAPI 3.1 document of `defs` (default: the live registry). Later definitions of
 * the same id replace earlier ones; operations are ordered by path then method.
 */
export function buildOpenApi(defs: readonly OperationDef[] = REGISTRY): Doc {
  const byId = new Map<string, OperationDef>();
  for (const d of defs) byId.set(d.id, d);
  const ordered = [...byId.values()].sort(
    (a, b) => openApiPath(a.path).localeCompare(openApiPath(b.path)) || a.method.localeCompare(b.method),
  );
  const paths: Doc = {};
  const statuses = new Set<number>();
  for (const def of ordered) {
    const p = openApiPath(def.path);
    paths[p] = paths[p] ?? {};
    paths[p][def.method] = operation(def);
    for (const s of errorStatuses(def)) statuses.add(s);
  }
  const tags = [...new Set(ordered.map(tagOf))].sort().map((name) => ({ name, description: `Operations under \`/${name}\`.` }));
  const responses: Doc = {};
  for (const s of [...statuses].sort((a, b) => a - b)) responses[`Error${s}`] = errorResponse(s);
  return addOpenApiLinks(
    withEventWebhooks(
      {
        openapi: '3.1.0',
        // The version a client pins (spec 9 rule 1): the date sent as `Service-Version`; the contract
        // version string of that date is named in the description.
        info: {
          title: 'Payments Platform REST API',
          version: LATEST_VERSION,
          description: `Resource-shaped REST API for moving money. Pin behaviour to this version with \`Service-Version: ${LATEST_VERSION}\` (contract version \`${CONTRACT_VERSION}\`).`,
        },
        servers: [{ url: '/v1', description: 'This server (every path is relative to /v1).' }],
        tags,
        paths,
        components: {
          securitySchemes: {
            ApiKeyAuth: {
              type: 'apiKey',
              in: 'header',
              name: 'x-api-key',
              description: 'Business key `sk_live_...` or `sk_test_...` (spec 5).',
            },
            BearerAuth: {
              type: 'http',
              scheme: 'bearer',
              description: 'A business key sent as a Bearer token, or a dashboard session token (spec 5).',
            },
          },
          parameters: {
            IdempotencyKey: {
              name: 'Idempotency-Key',
              in: 'header',
              required: true,
              description:
                'Required on every mutation: 16 to 128 characters of `[A-Za-z0-9_-]`; a replay within 24 hours returns the stored response (spec 8).',
              schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{16,128}$' },
            },
            ServiceVersion: {
              name: 'Service-Version',
              in: 'header',
              required: false,
              description:
                'Pins behaviour to a dated version (spec 9): a calendar date `YYYY-MM-DD`; an empty value or any other is `400 version_invalid`; a date older than the oldest served is served as that oldest.',
              schema: { type: 'string', format: 'date', pattern: VERSION_PATTERN },
            },
            ServiceAccount: {
              name: 'Service-Account',
              in: 'header',
              required: false,
              description:
                'Dashboard sessions only: selects a membership by `acct_` id; any value that is not the id of an account the login is a member of answers 404, an empty one is absent. Ignored for keys (spec 4), so the server enforces no shape on it and the document states none.',
              schema: { type: 'string' },
            },
          },
          headers: {
            ServiceVersion: { description: 'The version served (spec 9 rule 2).', schema: { type: 'string' } },
            RequestId: { description: 'The request id (`req_...`), also in error envelopes.', schema: { type: 'string' } },
            RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'string', pattern: '^[0-9]+$' } },
          },
          schemas: { ErrorEnvelope: errorEnvelopeJsonSchema(toJsonSchema) },
          responses,
        },
      },
      (schema) => toJsonSchema(schema),
    ),
  );
}

let cached: Doc | null = null;

/** The document of the live registry, built once per process (the registry is fixed after start). */
export function openApiDocument(): Doc {
  cached = cached ?? buildOpenApi(REGISTRY);
  return cached;
}
