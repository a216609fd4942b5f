/**
 * Authorization matrix: the running product against a table written from the spec.
 *
 * The expectation side is tests/helpers/authz-spec.ts (`AUTHZ_SPEC`): for every operation of the
 * spec (operations.tsv, under our operation ids) and the few we serve beyond it, its callers, the
 * session roles, the scope a key needs and its test-mode reach, written from spec parts 1, 4 and 5
 * (and, where the spec is silent, from the decision record of docs/decisions/ it names). It imports nothing
 * from api/ or domain/, so an operation definition with a wrong role, scope, caller class or
 * test-mode reach disagrees with it. The registry (api/operation.ts) is used only to find what is
 * served, to send requests and to read response schemas.
 *
 * 1. The table against the registry: every served operation is in the table and every entry is
 *    served (each missing one named), with the method and path of the spec row; the table holds
 *    exactly the rows of operations.tsv (a committed copy, checked against ../shared/spec when present);
 *    a dashboard-session-only operation declares the table's scope (no key can show it on the wire).
 * 2. The product against the table, per operation and caller class: live key with the table's
 *    scope, live key with every other scope of spec 5, test key (every scope), dashboard sessions
 *    of a viewer, developer, admin and the owner, another account's live key and owner session, a
 *    public payer token presented as a credential, no credential. Expected (first matching rule):
 *    - no credential: 401 authentication_error `missing_credentials`; a payer token: 401 `invalid_api_key`;
 *    - test key: `livemode_boundary` 400 invalid_request; `test_mode_not_supported` 503 (spec 1 rule 5:
 *      test mode before the caller class);
 *    - caller class not in `callers`: 403 permission_error `role_denied` (spec 5 rule 4);
 *    - key without the scope: 403 `missing_scope` (rule 3); session role not in `roles`: 403 `scope_denied`;
 *    - another account's caller, or the test key, on a real object's id of the live account: 404
 *      not_found (nothing of another account or mode is visible; a body validation 400 that precedes
 *      the lookup must equal the answer for an id that does not exist);
 *    - otherwise a valid call: a documented 2xx whose body matches the operation's response schema,
 *      or a 4xx whose code is in the operation's short list of refusals the matrix's fixtures cannot
 *      avoid (`FIXTURE_REFUSALS`: an empty body, an object already moved by an earlier caller class).
 *      Any other 4xx, every 401, 403 and 5xx fails.
 *    Token routes (payer and payroll recipient sessions): the real token is a valid call whatever
 *    credential comes with it, an unknown token 404 not_found. The credential-free eligibility read
 *    is a valid call for every caller class.
 * Every error answer must be the part 7 envelope.
 *
 * Role names (viewer, developer, admin, owner) and the codes `missing_scope`, `role_denied` for the
 * wrong caller class and `scope_denied` for the wrong role are decisions
 * (docs/decisions/0002-authentication-and-authorization.md); see
 * docs/decisions/0069-authorization-matrix-from-the-spec.md.
 */
import fs from 'node:fs';
import path from 'node:path';
import { insertApiKey, type DevCredentials } from '../../activities/accounts/commands';
import { REGISTRY, type OperationDef } from '../../api/operation';
import { errorEnvelopeSchema } from '../../api/middleware/errors';
import { transaction } from '../../lib/db';
import { documentOfThisBuild } from '../../api/openapi-cli';
import { API, call, connectDb, idem, newAccount, type Res, memberSession } from '../helpers/api';
import {
  AUTHZ_SPEC,
  isPublicRoute,
  isSessionOnly,
  SPEC_SCOPE_ALIASES,
  SPEC_SCOPES,
  type SpecOperation,
  type SpecRole,
} from '../helpers/authz-spec';
import { createAccountObjects, openApiTemplate, realIdsFor, templateParams, type AccountObjects } from '../helpers/contract';
import { Receiver } from '../helpers/receiver';

documentOfThisBuild(); // fills REGISTRY with every operation this build serves, public routers included (no server needed)
const DEFS = new Map<string, OperationDef>(REGISTRY.map((d) => [d.id, d]));
/** Table entries the build serves (the others fail the first tests, by name). */
const SERVED = AUTHZ_SPEC.filter((e) => DEFS.has(e.id));

type CallerClass =
  | 'key_with_scope'
  | 'key_without_scope'
  | 'test_key'
  | SpecRole
  | 'other_account_key'
  | 'other_account_owner'
  | 'public_token'
  | 'no_credential';
const CLASSES: CallerClass[] = [
  'key_with_scope',
  'key_without_scope',
  'test_key',
  'viewer',
  'developer',
  'admin',
  'owner',
  'other_account_key',
  'other_account_owner',
  'public_token',
  'no_credential',
];
const KEY_CLASSES = new Set<CallerClass>(['key_with_scope', 'key_without_scope', 'test_key', 'other_account_key']);

type Refusal = { status: number; type: string; code: string };
type Expectation = { kind: 'valid' } | ({ kind: 'error' } & Refusal);
const valid: Expectation = { kind: 'valid' };
const refused = (status: number, type: string, code: string): Extract<Expectation, { kind: 'error' }> => ({
  kind: 'error',
  status,
  type,
  code,
});

/**
 * The 4xx answers a caller admitted by the table may get because of the matrix's fixtures, per
 * operation: `'<status> <code>'`, or `'<status> <code> <param>'` when the code alone says too
 * little. The matrix sends an empty body (a create misses its required fields) and calls each
 * operation once per admitted caller class in turn, so an object one class moved (cancelled,
 * approved, submitted) is in another state for the next. Keep each list to what the fixture
 * cannot avoid; anything else is a failure.
 */
const FIXTURE_REFUSALS: Record<string, readonly string[]> = {
  // The empty body: body validation runs after authorization (api/operation.ts mount), so naming the
  // missing field proves the caller was admitted.
  'accounts.create': ['400 parameter_missing display_name'],
  'address_book.create': ['400 parameter_missing kind'],
  'address_book.set_beneficiary': ['400 parameter_missing account_owner_type'],
  'api_keys.create': ['400 parameter_missing scopes'],
  'clients.create': ['400 parameter_missing display_name'],
  'credit_checkouts.create': ['400 parameter_missing pack'],
  'customers.create': ['400 parameter_missing customer_type'],
  'customers.verification_links.create': ['400 parameter_missing kind'],
  'orders.create': ['400 parameter_missing offer_id'],
  'payment_links.activate': ['400 attestation_required attestation_accepted'],
  'payment_links.create': ['400 parameter_missing amount'],
  'payment_links.reminder_schedule.update': ['400 parameter_missing offsets_days'],
  'payment_sessions.pay_with_wallet': ['400 parameter_missing from_address'],
  'payment_sessions.payments.create': ['400 parameter_missing rail'],
  'payment_sessions.receipt_email': ['400 parameter_missing email'],
  'payouts.beneficiary.set': ['400 parameter_missing account_owner_type'],
  'payouts.create': ['400 parameter_missing invoice_amount'],
  'payroll_recipient_sessions.destination': ['400 parameter_missing type'],
  'payroll_recipients.adopt_pending_destination': ['400 parameter_missing expected_submitted_at'],
  'payroll_runs.create': ['400 parameter_missing title'],
  'payroll_templates.create': ['400 parameter_invalid rows'],
  'products.create': ['400 parameter_missing name'],
  'quotes.create': ['400 parameter_missing side'],
  'screenings.create': ['400 parameter_missing address'],
  'subscriptions.create': ['400 parameter_missing client_id'],
  'traces.create': ['400 parameter_missing chain'],
  'wallet.conversions.create': ['400 parameter_missing from_asset'],
  'wallet.conversions.source_tx': ['400 parameter_missing tx_hash'],
  'wallet.deposit_intents.create': ['400 parameter_missing source_chain'],
  'wallet.deposit_quotes.create': ['400 parameter_missing source_chain'],
  'wallet.external_accounts.create': ['400 parameter_missing account_owner_type'],
  'wallet.offramp_intents.create': ['400 parameter_missing external_account_id'],
  'wallet.offramp_quotes.create': ['400 parameter_missing destination_currency'],
  'wallet.send_intents.create': ['400 parameter_missing destination_chain'],
  'wallet.send_intents.source_tx': ['400 parameter_missing tx_hash'],
  'wallet.virtual_accounts.create': ['400 parameter_missing currency'],
  'wallet.wallets.create': ['400 parameter_missing address'],
  'webhook_endpoints.create': ['400 parameter_missing url'],
  // The state of the fixture object (tests/helpers/contract.ts): an active link, a run not yet funded.
  'payment_links.get_receipt': ['409 payment_link_not_paid'],
  'payment_links.refund': ['409 payment_link_not_refundable'],
  'payment_links.send_invoice': ['409 payer_email_required'],
  'payroll_runs.execute': ['409 payroll_run_underfunded'],
  // The object an earlier admitted caller class already moved, rolled or deleted.
  'address_book.delete': ['404 not_found'],
  'api_keys.roll': ['409 api_key_revoked'],
  'payment_links.cancel': ['409 payment_link_not_cancellable'],
  'payouts.replace': ['409 payout_already_replaced'],
  'subscriptions.pause': ['409 subscription_not_pausable'],
  'subscriptions.resume': ['409 subscription_not_paused'],
  'wallet.offramp_intents.cancel': ['409 offramp_intent_state_changed'],
  'wallet.virtual_accounts.deactivate': ['409 virtual_account_state_changed'],
  'wallet.virtual_accounts.reactivate': ['409 virtual_account_state_changed'],
  'webhook_endpoints.delete': ['404 not_found'],
};

/** Query strings an operation needs to be a valid call (the matrix sends no body; these GETs need their required parameters). */
const FIXTURE_QUERY: Record<string, string> = {
  'capabilities.get': 'product=payouts',
  'eligibility.get': 'country=US&customer_type=business',
};

/** Operations whose path names public on-chain data, not an object of an account: any account may read it. */
const PUBLIC_CHAIN_DATA = new Set(['transactions.get']);

let acct: DevCredentials;
let other: DevCredentials;
let objects: AccountObjects;
const sessions: Partial<Record<SpecRole, string>> = {};
const keyCache = new Map<string, string>();
const receiver = new Receiver();

async function keyWith(scopes: string[]): Promise<string> {
  const id = scopes.join(',');
  if (!keyCache.has(id)) {
    const { secret } = await transaction((m) =>
      insertApiKey(m, { accountId: acct.account_id, livemode: true, scopes, name: 'authz matrix' }),
    );
    keyCache.set(id, secret);
  }
  return keyCache.get(id)!;
}

/** The concrete path of `def` with real ids of the matrix account where known, and its fixture query. */
function pathOf(def: OperationDef, opts: { unknownToken?: boolean; unknownIds?: boolean } = {}): { path: string; realIds: boolean } {
  const real = opts.unknownIds ? {} : realIdsFor(def.path, objects, def.method);
  let realIds = false;
  let p = def.path;
  for (const name of templateParams(def.path)) {
    let v = real[name]?.[0];
    if (opts.unknownToken && name === 'token')
      v = `${def.path.startsWith('/payroll_recipient_sessions') ? 'prk' : 'plk'}_${'0'.repeat(32)}`;
    if (v && !(opts.unknownToken && name === 'token')) realIds = true;
    p = p.replace(`:${name}`, encodeURIComponent(v ?? `nonexistent_${name}_${'0'.repeat(16)}`));
  }
  const q = FIXTURE_QUERY[def.id];
  return { path: `/v1${p}${q ? `?${q}` : ''}`, realIds };
}

/** What the table prescribes for `cls` calling authenticated operation `spec` (first matching rule of the header). */
function expectationFor(spec: SpecOperation, cls: CallerClass, realIds: boolean): Expectation {
  if (cls === 'no_credential') return refused(401, 'authentication_error', 'missing_credentials');
  if (cls === 'public_token') return refused(401, 'authentication_error', 'invalid_api_key');
  if (cls === 'test_key' && spec.testMode === 'livemode_boundary') return refused(400, 'invalid_request', 'livemode_boundary');
  if (cls === 'test_key' && spec.testMode === 'test_mode_not_supported')
    return refused(503, 'temporarily_unavailable', 'test_mode_not_supported');
  const isKey = KEY_CLASSES.has(cls);
  if (!spec.callers.includes(isKey ? 'business_key' : 'dashboard_session')) return refused(403, 'permission_error', 'role_denied');
  if (cls === 'key_without_scope') return refused(403, 'permission_error', 'missing_scope');
  const role: SpecRole | null = cls === 'other_account_owner' ? 'owner' : isKey ? null : (cls as SpecRole);
  if (role && !spec.roles.includes(role)) return refused(403, 'permission_error', 'scope_denied');
  const elsewhere = cls === 'other_account_key' || cls === 'other_account_owner' || cls === 'test_key';
  if (elsewhere && realIds && !PUBLIC_CHAIN_DATA.has(spec.id)) return refused(404, 'not_found', 'not_found');
  return valid;
}

async function credentialOf(spec: SpecOperation, cls: CallerClass): Promise<{ key?: string; bearer?: string }> {
  if (spec.id === 'account_sessions.revoke_all') {
    // It revokes every session of the caller's login: use logins of their own, never the shared ones.
    if (cls === 'viewer' || cls === 'developer' || cls === 'admin') return { bearer: await memberSession(acct.account_id, cls) };
    if (cls === 'owner' || cls === 'other_account_owner') return { bearer: (await newAccount()).session_token };
  }
  const scope = spec.scope ?? '';
  switch (cls) {
    case 'key_with_scope':
      return { key: spec.scope ? await keyWith([scope]) : acct.live_key };
    case 'key_without_scope':
      return {
        key: spec.scope
          ? await keyWith(
              [...SPEC_SCOPES, ...Object.values(SPEC_SCOPE_ALIASES)].filter((s) => s !== scope && s !== SPEC_SCOPE_ALIASES[scope]),
            )
          : acct.live_key,
      };
    case 'test_key':
      return { key: acct.test_key };
    case 'viewer':
    case 'developer':
    case 'admin':
      return { bearer: sessions[cls] };
    case 'owner':
      return { bearer: acct.session_token };
    case 'other_account_key':
      return { key: other.live_key };
    case 'other_account_owner':
      return { bearer: other.session_token };
    case 'public_token':
      return { bearer: objects.byParam.token[0] };
    case 'no_credential':
      return {};
  }
}

async function send(def: OperationDef, path: string, cred: { key?: string; bearer?: string }): Promise<Res> {
  // Another suite may turn a resource switch off for a few seconds while this one runs (switches
  // are global): wait for it to come back rather than read its 503 as this caller's answer.
  for (let i = 0; ; i++) {
    const r = await sendOnce(def, path, cred);
    if (!(def.switch && r.status === 503 && r.body?.error?.code === 'switch_off' && i < 80)) return r;
    await new Promise((res) => setTimeout(res, 250));
  }
}

async function sendOnce(def: OperationDef, path: string, cred: { key?: string; bearer?: string }): Promise<Res> {
  if (def.id === 'events.stream') return openStream(path, cred);
  const method = def.method.toUpperCase();
  const mutation = method !== 'GET';
  const spec = AUTHZ_SPEC.find((e) => e.id === def.id);
  return call(method, path, mutation ? {} : undefined, { ...cred, idem: mutation && !(spec && isPublicRoute(spec)) ? idem() : null });
}

/**
 * Opens the SSE stream and hangs up as soon as the headers arrive (an open stream never ends on its
 * own): a 200 answers with its content type as the body, a refusal with its JSON envelope.
 */
async function openStream(path: string, cred: { key?: string; bearer?: string }): Promise<Res> {
  const headers: Record<string, string> = {};
  if (cred.key) headers['x-api-key'] = cred.key;
  if (cred.bearer) headers.authorization = `Bearer ${cred.bearer}`;
  const ac = new AbortController();
  const r = await fetch(`${API()}${path}`, { headers, signal: ac.signal });
  if (r.status === 200) {
    ac.abort();
    return { status: 200, body: r.headers.get('content-type') ?? '', headers: r.headers };
  }
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null, headers: r.headers };
}

function describeRes(r: Res): string {
  return `${r.status} ${JSON.stringify(r.body).slice(0, 400)}`;
}

function checkEnvelope(r: Res): void {
  const { error } = errorEnvelopeSchema.validate(r.body, { convert: false });
  if (error) throw new Error(`error answer is not the part 7 envelope (${error.message}): ${describeRes(r)}`);
}

/** True when refusal `r` is one of `id`'s fixture refusals (`'<status> <code>'` or `'<status> <code> <param>'`). */
function isFixtureRefusal(id: string, r: Res): boolean {
  const e = (r.body as { error?: { code?: string; param?: string } })?.error;
  return (FIXTURE_REFUSALS[id] ?? []).some((allowed) => {
    const [status, code, param] = allowed.split(' ');
    return Number(status) === r.status && code === e?.code && (param === undefined || param === e?.param);
  });
}

/** A valid call: a documented 2xx matching the response schema, or one of the operation's fixture refusals. */
function checkValid(def: OperationDef, r: Res): void {
  if (r.status >= 200 && r.status < 300) {
    const documented = new Set([def.successStatus ?? 200, ...(def.otherSuccessStatuses ?? [])]);
    if (!documented.has(r.status)) throw new Error(`${def.id}: undocumented success status ${describeRes(r)}`);
    if (!def.response) throw new Error(`${def.id} declares no response schema`);
    const { error } = def.response.validate(r.body, { convert: false });
    if (error) throw new Error(`${def.id}: ${r.status} body does not match the response schema (${error.message}): ${describeRes(r)}`);
    return;
  }
  if (r.status >= 400 && r.status < 500 && isFixtureRefusal(def.id, r)) {
    checkEnvelope(r);
    return;
  }
  throw new Error(
    `${def.id}: expected a valid call (a 2xx, or one of ${JSON.stringify(FIXTURE_REFUSALS[def.id] ?? [])}), got ${describeRes(r)}`,
  );
}

function checkRefused(e: Refusal, r: Res): void {
  const got = (r.body as { error?: { type?: string; code?: string } })?.error;
  if (r.status !== e.status || got?.type !== e.type || got?.code !== e.code) {
    throw new Error(`expected ${e.status} ${e.type}/${e.code}, got ${describeRes(r)}`);
  }
  checkEnvelope(r);
}

/** `/a/{x}/b` and `/a/:y/b` alike: the path with its parameter names erased. */
/** Markdown as words: no emphasis or code marks, whitespace collapsed (a record wraps its lines). */
const plainText = (md: string) => md.replace(/[`*]/g, '').replace(/\s+/g, ' ');
/**
 * The entry a `decision` names after its record's title (`: Member roles`, `: "Agent owner only"`,
 * ` ("account changes: owner/admin")`): the first quoted text, else the words before any parenthesis.
 */
function decisionEntry(rest: string): string {
  const quoted = /"([^"]+)"/.exec(rest);
  return quoted
    ? quoted[1]
    : rest
        .replace(/^:\s*/, '')
        .replace(/\s*\(.*$/, '')
        .trim();
}

const shape = (p: string) => openApiTemplate(p).replace(/\{[^}]+\}/g, '{}');

describe('the spec table and the registry', () => {
  test('the table names each operation once', () => {
    const ids = AUTHZ_SPEC.map((e) => e.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    const routes = AUTHZ_SPEC.map((e) => `${e.method} ${e.path}`);
    expect(routes.filter((x, i) => routes.indexOf(x) !== i)).toEqual([]);
  });

  test('every served operation is in the table', () => {
    const missing = [...DEFS.values()]
      .filter((d) => !AUTHZ_SPEC.some((e) => e.id === d.id))
      .map((d) => `${d.id} (${d.method.toUpperCase()} ${d.path})`);
    if (missing.length) throw new Error(`served but missing from tests/helpers/authz-spec.ts: ${missing.join(', ')}`);
  });

  test('every operation of the table is served', () => {
    const missing = AUTHZ_SPEC.filter((e) => !DEFS.has(e.id)).map((e) => `${e.id} (${e.method} ${e.path})`);
    if (missing.length) throw new Error(`in the spec table but not served: ${missing.join(', ')}`);
  });

  test('each served operation has the method and path of its spec row', () => {
    const wrong = SERVED.filter((e) => {
      const d = DEFS.get(e.id)!;
      return d.method.toUpperCase() !== e.method || shape(d.path) !== shape(e.path);
    }).map((e) => `${e.id}: table ${e.method} ${e.path}, served ${DEFS.get(e.id)!.method.toUpperCase()} ${DEFS.get(e.id)!.path}`);
    expect(wrong).toEqual([]);
  });

  // The spec's operation list, committed (tests/fixtures/spec/operations.tsv) so the check runs on any
  // clone; where the shared spec is checked out beside this tree, the copy must be the spec's.
  const tsv = path.resolve(__dirname, '../fixtures/spec/operations.tsv');
  const shared = path.resolve(__dirname, '../../../shared/spec/operations.tsv');
  test("the committed operations.tsv is the shared spec's (when ../shared/spec is beside this tree)", () => {
    expect(fs.existsSync(tsv)).toBe(true);
    if (fs.existsSync(shared)) expect(fs.readFileSync(tsv, 'utf8')).toBe(fs.readFileSync(shared, 'utf8'));
  });
  test('the table holds exactly the rows of operations.tsv, plus the operations marked beyondSpec', () => {
    const rows = fs
      .readFileSync(tsv, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => {
        const [, m, p] = l.split('\t');
        return `${m} ${p}`;
      });
    const table = AUTHZ_SPEC.filter((e) => !e.beyondSpec).map((e) => `${e.method} ${e.path}`);
    expect({ notInTable: rows.filter((r) => !table.includes(r)), notInSpec: table.filter((t) => !rows.includes(t)) }).toEqual({
      notInTable: [],
      notInSpec: [],
    });
    expect(rows).toHaveLength(178);
  });

  test('a dashboard-session-only operation declares the scope of the table (no key can show it on the wire)', () => {
    const wrong = SERVED.filter((e) => isSessionOnly(e) && DEFS.get(e.id)!.scope !== e.scope).map(
      (e) => `${e.id}: table ${e.scope}, served ${DEFS.get(e.id)!.scope}`,
    );
    expect(wrong).toEqual([]);
  });

  test('every decision an entry rests on is a record of docs/decisions/ holding the entry it names', () => {
    const dir = path.resolve(__dirname, '../../docs/decisions');
    const records = fs
      .readdirSync(dir)
      .filter((f) => /^\d{4}-.+\.md$/.test(f))
      .map((file) => {
        const text = fs.readFileSync(path.join(dir, file), 'utf8');
        return { file, title: /^# \d{4}\. (.+)$/m.exec(text)?.[1].trim() ?? '', text: plainText(text) };
      });
    const unknown = AUTHZ_SPEC.filter((e) => e.decision).flatMap((e) => {
      const d = e.decision!;
      // The record whose title the decision starts with (the longest: "Wallet (issue 14): deposits" over "Wallet (issue 14)").
      const record = records
        .filter((r) => r.title && (d === r.title || d.startsWith(`${r.title}: `) || d.startsWith(`${r.title} (`)))
        .sort((a, b) => b.title.length - a.title.length)[0];
      if (!record) return [`${e.id}: no record of docs/decisions/ is titled as "${d}" begins`];
      const entry = decisionEntry(d.slice(record.title.length));
      return entry && !record.text.includes(plainText(entry)) ? [`${e.id}: ${record.file} does not hold "${entry}"`] : [];
    });
    expect(unknown).toEqual([]);
  });

  test('every served operation has a response schema', () => {
    expect(SERVED.filter((e) => !DEFS.get(e.id)!.response).map((e) => e.id)).toEqual([]);
  });
});

beforeAll(async () => {
  await connectDb();
  acct = await newAccount();
  other = await newAccount();
  await receiver.start();
  objects = await createAccountObjects(acct, receiver);
  sessions.viewer = await memberSession(acct.account_id, 'viewer');
  sessions.developer = await memberSession(acct.account_id, 'developer');
  sessions.admin = await memberSession(acct.account_id, 'admin');
});

afterAll(async () => {
  await receiver.stop();
});

const authenticated = SERVED.filter((e) => !isPublicRoute(e));
const tokenRoutes = SERVED.filter((e) => e.callers.includes('public_token'));
const credentialFree = SERVED.filter((e) => e.callers.includes('none'));
const title = (e: SpecOperation) => [`${e.id} (${e.method} ${e.path})`, e] as const;

describe.each(authenticated.map(title))('%s', (_name, spec) => {
  const def = DEFS.get(spec.id)!;
  test.each(CLASSES)('%s', async (cls) => {
    const { path: p, realIds } = pathOf(def);
    const expectation = expectationFor(spec, cls, realIds);
    const cred = await credentialOf(spec, cls);
    const r = await send(def, p, cred);
    if (expectation.kind === 'valid') checkValid(def, r);
    else if (expectation.status === 404 && r.status === 400) {
      // Body validation precedes the lookup: then the answer must not depend on the id at all
      // (the same 400 as for an id that does not exist), so nothing about the object leaks.
      const blind = await send(def, pathOf(def, { unknownIds: true }).path, cred);
      const a = r.body?.error;
      const b = blind.body?.error;
      if (blind.status !== 400 || a?.code !== b?.code || a?.param !== b?.param) {
        throw new Error(`cross-account: ${describeRes(r)} differs from the answer for an unknown id: ${describeRes(blind)}`);
      }
      checkEnvelope(r);
    } else checkRefused(expectation, r);
  });
});

describe.each(tokenRoutes.map(title))('%s', (_name, spec) => {
  const def = DEFS.get(spec.id)!;
  test.each(CLASSES)('%s: the real token is a valid call whatever credential comes with it', async (cls) => {
    const { path: p } = pathOf(def);
    const cred = cls === 'public_token' || cls === 'no_credential' ? {} : await credentialOf(spec, cls);
    checkValid(def, await send(def, p, cred));
  });

  test.each(CLASSES)('%s: an unknown token is 404 not_found whatever credential comes with it', async (cls) => {
    const cred = cls === 'no_credential' || cls === 'public_token' ? {} : await credentialOf(spec, cls);
    if (!templateParams(def.path).includes('token')) {
      // Short-code lookup: an unknown code is 404 for everyone as well.
      checkRefused(refused(404, 'not_found', 'not_found'), await send(def, `/v1${def.path.replace(/:[a-z_]+/, 'ZZZZZZZ')}`, cred));
      return;
    }
    const r = await send(def, pathOf(def, { unknownToken: true }).path, cred);
    // Body validation precedes the token lookup on token writes: the empty body's 400 may come first.
    if (r.status === 400 && isFixtureRefusal(def.id, r)) checkEnvelope(r);
    else checkRefused(refused(404, 'not_found', 'not_found'), r);
  });
});

describe.each(credentialFree.map(title))('%s', (_name, spec) => {
  const def = DEFS.get(spec.id)!;
  test.each(CLASSES)('%s: a valid call whatever credential comes with it', async (cls) => {
    const cred =
      cls === 'public_token' ? { bearer: objects.byParam.token[0] } : cls === 'no_credential' ? {} : await credentialOf(spec, cls);
    checkValid(def, await send(def, pathOf(def).path, cred));
  });
});
