/**
 * OpenAPI `links` between the operations of the generated document (api/openapi.ts), derived by
 * rule from the operations themselves (their path templates and success response schemas), so a
 * client or a stateful tester (schemathesis) can chain real ids: create -> get/update/cancel/delete,
 * payout -> beneficiary -> funding instructions, payment link -> payer session -> payment,
 * webhook endpoint -> its deliveries.
 *
 * Rules, for a source operation S whose success response is an object of kind K (`object` const)
 * and a target operation T:
 * - `id` path parameter of T under K's home collection (the collection whose `GET <c>/{id}` answers
 *   K): `$response.body#/id`; a list of K (`data[]`) feeds the first item's id to T's reads only.
 * - a path parameter `<k>_id` naming K (`payment_id` for `payment`): `$response.body#/id`.
 * - a foreign key `<k>_id` in S's response (`endpoint_id`, `payout_id`, `current_payment_id`):
 *   the `id` of T under the home collection of the kind it names.
 * - a query parameter `<k>_id` of a list T naming K (`GET /webhook_deliveries?endpoint_id=`).
 * - payer-session parameters (`TOKEN_RULES`): `{code}` from `short_code`, `{token}` from the
 *   payer `url` (schemathesis's `#regex:` extractor; see
 *   docs/decisions/0026-contract-as-a-client-sees-it.md).
 * - any other path parameter of T shared with S (same template up to it): `$request.path.<p>`.
 *   A link binds at least one value from the response, except from an object without an `id`
 *   (the payer session, a reminder schedule), which links to the operations sharing its path.
 * Pure: `addOpenApiLinks(doc)` mutates and returns `doc` only.
 */
type Doc = Record<string, any>;
type Schema = Record<string, any>;

interface Op {
  id: string;
  method: string;
  path: string;
  op: Doc;
  /** Success statuses with a JSON schema, e.g. `['201']`. */
  success: string[];
  schema: Schema | undefined;
  kind: string | undefined;
  listKind: string | undefined;
}

/** Path parameters of the payer session that come from a payment link's (or session's) fields. */
const TOKEN_RULES: { kinds: string[]; param: string; expr: string }[] = [
  { kinds: ['payment_link', 'payment_session'], param: 'code', expr: '$response.body#/short_code' },
  { kinds: ['payment_link'], param: 'token', expr: '$response.body#/url#regex:/pay/([A-Za-z0-9_-]+)$' },
];

const params = (path: string): string[] => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
const kindOf = (s: Schema | undefined): string | undefined => s?.properties?.object?.const;
const prefixUpTo = (path: string, p: string): string | undefined => {
  const i = path.indexOf(`{${p}}`);
  return i < 0 ? undefined : path.slice(0, i + p.length + 2);
};

/** True when the stem of `<stem>_id` names the object kind `kind` (`endpoint` -> `webhook_endpoint`). */
function names(stem: string, kind: string): boolean {
  return stem === kind || kind.endsWith(`_${stem}`) || stem.endsWith(`_${kind}`);
}

function collect(doc: Doc): Op[] {
  const out: Op[] = [];
  for (const [path, methods] of Object.entries<Doc>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<Doc>(methods)) {
      const success = Object.keys(op.responses ?? {}).filter((s) => /^2/.test(s) && op.responses[s].content?.['application/json']);
      const schema: Schema | undefined = success.length ? op.responses[success[0]].content['application/json'].schema : undefined;
      const items = schema?.properties?.data?.items as Schema | undefined;
      out.push({ id: op.operationId, method, path, op, success, schema, kind: kindOf(schema), listKind: kindOf(items) });
    }
  }
  return out;
}

/** Kind -> its home collection path (`payout` -> `/payouts`), from `GET <c>/{id}` answering the kind. */
function homes(ops: Op[]): Map<string, string> {
  const m = new Map<string, string>();
  for (const o of ops) {
    const hit = /^(.*)\/\{id\}$/.exec(o.path);
    if (o.method === 'get' && hit && o.kind) m.set(o.kind, hit[1]);
  }
  return m;
}

/** Binding of each parameter of `t` from source `s`, or null when some required one is unbound. */
function bind(s: Op, t: Op, home: Map<string, string>): Record<string, string> | null {
  const props = (s.schema?.properties ?? {}) as Record<string, Schema>;
  const hasId = 'id' in props;
  const out: Record<string, string> = {};
  let fromResponse = 0;
  for (const p of params(t.path)) {
    const shared = prefixUpTo(t.path, p);
    let expr: string | undefined;
    if (s.kind && hasId && p === 'id' && home.get(s.kind) === t.path.slice(0, t.path.indexOf('/{id}'))) expr = '$response.body#/id';
    else if (s.kind && hasId && p.endsWith('_id') && names(p.slice(0, -3), s.kind)) expr = '$response.body#/id';
    else if (s.kind)
      expr = TOKEN_RULES.find((r) => r.param === p && r.kinds.includes(s.kind!) && (p !== 'code' || 'short_code' in props))?.expr;
    if (!expr && p === 'id') {
      const base = t.path.slice(0, t.path.indexOf('/{id}'));
      const fk = Object.keys(props).find(
        (k) => k !== 'id' && k.endsWith('_id') && [...home].some(([kind, c]) => c === base && names(k.slice(0, -3), kind)),
      );
      if (fk) expr = `$response.body#/${fk}`;
    }
    if (expr) fromResponse += 1;
    else if (shared && prefixUpTo(s.path, p) === shared) expr = `$request.path.${p}`;
    if (!expr) return null;
    out[`path.${p}`] = expr;
  }
  const queryIds = ((t.op.parameters ?? []) as Doc[]).filter(
    (x) => x.in === 'query' && typeof x.name === 'string' && x.name.endsWith('_id'),
  );
  if (t.method === 'get' && s.kind && hasId && !params(t.path).length) {
    const q = queryIds.find((x) => names(String(x.name).slice(0, -3), s.kind!));
    if (!q) return null;
    out[`query.${q.name}`] = '$response.body#/id';
    fromResponse += 1;
  }
  if (fromResponse === 0 && (hasId || !s.kind || !params(t.path).length)) return null;
  return out;
}

/** Links from a list of kind K: the first item's id to the reads of `<home of K>/{id}`. */
function listLinks(s: Op, ops: Op[], home: Map<string, string>): Doc {
  const c = s.listKind ? home.get(s.listKind) : undefined;
  const links: Doc = {};
  if (!c || s.path !== c) return links;
  for (const t of ops) {
    if (t.method === 'get' && t.path.startsWith(`${c}/{id}`) && params(t.path).length === 1) {
      links[t.id] = {
        operationId: t.id,
        parameters: { 'path.id': '$response.body#/data/0/id' },
        description: `The first listed object's \`id\` as \`${t.id}\`'s \`id\`.`,
      };
    }
  }
  return links;
}

/**
 * Adds `links` to every success response of `doc` (an OpenAPI 3.1 document built by
 * `buildOpenApi`) by the rules above; returns `doc`. Link names are the target operation ids.
 */
export function addOpenApiLinks(doc: Doc): Doc {
  const ops = collect(doc);
  const home = homes(ops);
  for (const s of ops) {
    if (!s.success.length) continue;
    const links: Doc = listLinks(s, ops, home);
    if (s.kind) {
      for (const t of ops) {
        if (t === s || t.id in links) continue;
        const parameters = bind(s, t, home);
        if (!parameters || !Object.keys(parameters).length) continue;
        links[t.id] = { operationId: t.id, parameters, description: `Chains this \`${s.kind}\` into \`${t.id}\`.` };
      }
    }
    if (!Object.keys(links).length) continue;
    for (const status of s.success) s.op.responses[status].links = links;
  }
  return doc;
}
