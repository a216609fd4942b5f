/**
 * Authorization matrix (spec 5, spec 1 rule 5), generated from the operation registry so every
 * operation, including those added later, is covered: for each operation and each caller class,
 * the running product answers exactly what the operation's definition and the spec prescribe.
 *
 * Caller classes: live key with the operation's scope, live key with every other scope, test key
 * (every scope), dashboard sessions of a viewer, developer, admin and the owner, another account's
 * live key and owner session, a public payer token presented as a credential, no credential.
 *
 * Expected answers of an authenticated operation (first matching rule):
 * - no credential: 401 authentication_error `missing_credentials`; a payer token: 401 `invalid_api_key`;
 * - test-mode caller on a `livemode_boundary` operation: 400 invalid_request `livemode_boundary`;
 * - caller class not admitted: 403 permission_error `role_denied` (spec 5 rule 4);
 * - key without the scope: 403 `missing_scope` (rule 3); session role not admitted: 403 `scope_denied`;
 * - test key on a test-mode `unavailable` operation: 503 temporarily_unavailable `test_mode_not_supported`;
 * - another account's caller on a real object's id: 404 not_found (cross-account ids are always 404;
 *   a body validation 400 that precedes the lookup must equal the answer for an unknown id);
 * - otherwise a valid call: 2xx (body matching the operation's response schema) or a documented
 *   4xx validation/state/404 error, never 401, 403 or 5xx.
 * Payer (public token) operations: a valid call for every caller class with the real token (a
 * credential neither grants nor refuses anything), and 404 not_found for an unknown token.
 * Every error answer must be the part 7 envelope.
 */
import { insertApiKey, type DevCredentials } from '../../activities/accounts/commands';
import { errorStatuses } from '../../api/openapi';
import { allowedCallers, allowedRoles, isPublicOperation, REGISTRY, type OperationDef } from '../../api/operation';
import { errorEnvelopeSchema } from '../../api/middleware/errors';
import { ALL_SCOPES, SCOPE_ALIASES } from '../../domain/scopes';
import { transaction } from '../../lib/db';
import { documentOfThisBuild } from '../../api/openapi-cli';
import { API, call, connectDb, idem, newAccount, type Res, memberSession } from '../helpers/api';
import { createAccountObjects, realIdsFor, templateParams, type AccountObjects } from '../helpers/contract';
import { Receiver } from '../helpers/receiver';

documentOfThisBuild(); // fills REGISTRY with every operation of this build (no server needed)
const DEFS: OperationDef[] = [...REGISTRY];

type Role = 'viewer' | 'developer' | 'admin' | 'owner';
type CallerClass =
  | 'key_with_scope' | 'key_without_scope' | 'test_key' | 'viewer' | 'developer' | 'admin' | 'owner'
  | 'other_account_key' | 'other_account_owner' | 'public_token' | 'no_credential';
const CLASSES: CallerClass[] = [
  'key_with_scope', 'key_without_scope', 'test_key', 'viewer', 'developer', 'admin', 'owner',
  'other_account_key', 'other_account_owner', 'public_token', 'no_credential',
];

type Expectation = { kind: 'valid' } | { kind: 'error'; status: number; type: string; code: string };
const valid: Expectation = { kind: 'valid' };
const refused = (status: number, type: string, code: string): Extract<Expectation, { kind: 'error' }> => ({ kind: 'error', status, type, code });

let acct: DevCredentials;
let other: DevCredentials;
let objects: AccountObjects;
const sessions: Partial<Record<Role, string>> = {};
const keyCache = new Map<string, string>();
const receiver = new Receiver();

async function keyWith(scopes: string[]): Promise<string> {
  const id = scopes.join(',');
  if (!keyCache.has(id)) {
    const { secret } = await transaction((m) => insertApiKey(m, { accountId: acct.account_id, livemode: true, scopes, name: 'authz matrix' }));
    keyCache.set(id, secret);
  }
  return keyCache.get(id)!;
}

/** The concrete path of `def` with real ids of the matrix account where known. */
function pathOf(def: OperationDef, opts: { unknownToken?: boolean; unknownIds?: boolean } = {}): { path: string; realIds: boolean } {
  const real = opts.unknownIds ? {} : realIdsFor(def.path, objects, def.method);
  let realIds = false;
  let p = def.path;
  for (const name of templateParams(def.path)) {
    let v = real[name]?.[0];
    if (opts.unknownToken && name === 'token') v = `plk_${'0'.repeat(32)}`;
    if (v && !(opts.unknownToken && name === 'token')) realIds = true;
    p = p.replace(`:${name}`, encodeURIComponent(v ?? `nonexistent_${name}_${'0'.repeat(16)}`));
  }
  return { path: `/v1${p}`, realIds };
}

/** Operations whose path names public on-chain data, not an object of an account: any account may read it. */
const PUBLIC_CHAIN_DATA = new Set(['transactions.get']);

/** What the spec and the definition prescribe for `cls` calling authenticated `def`. */
function expectationFor(def: OperationDef, cls: CallerClass, realIds: boolean): Expectation {
  if (cls === 'no_credential') return refused(401, 'authentication_error', 'missing_credentials');
  if (cls === 'public_token') return refused(401, 'authentication_error', 'invalid_api_key');
  const callers = allowedCallers(def);
  const isKey = cls === 'key_with_scope' || cls === 'key_without_scope' || cls === 'test_key' || cls === 'other_account_key';
  if (cls === 'test_key' && def.testMode === 'livemode_boundary') return refused(400, 'invalid_request', 'livemode_boundary');
  // Spec 1 rule 5: an operation unavailable in test mode answers 503 to a test-mode caller, before the caller class.
  if (cls === 'test_key' && def.testMode === 'unavailable') return refused(503, 'temporarily_unavailable', 'test_mode_not_supported');
  if (!callers.includes(isKey ? 'business_key' : 'dashboard_session')) return refused(403, 'permission_error', 'role_denied');
  if (cls === 'key_without_scope') return refused(403, 'permission_error', 'missing_scope');
  const role: Role | null = cls === 'other_account_owner' ? 'owner' : (['viewer', 'developer', 'admin', 'owner'] as string[]).includes(cls) ? cls as Role : null;
  if (role && !allowedRoles(def).includes(role)) return refused(403, 'permission_error', 'scope_denied');
  if ((cls === 'other_account_key' || cls === 'other_account_owner') && realIds && !PUBLIC_CHAIN_DATA.has(def.id)) return refused(404, 'not_found', 'not_found');
  return valid;
}

async function credentialOf(def: OperationDef, cls: CallerClass): Promise<{ key?: string; bearer?: string }> {
  if (def.id === 'account_sessions.revoke_all') {
    // It revokes every session of the caller's login: use logins of their own, never the shared ones.
    if (cls === 'viewer' || cls === 'developer' || cls === 'admin') return { bearer: await memberSession(acct.account_id, cls) };
    if (cls === 'owner' || cls === 'other_account_owner') return { bearer: (await newAccount()).session_token };
  }
  const aliasOf = (s: string) => (s.startsWith('screenings.') ? s.replace('screenings.', 'screening.') : s);
  if (isPublicOperation(def) && (cls === 'key_with_scope' || cls === 'key_without_scope')) return { key: acct.live_key };
  switch (cls) {
    case 'key_with_scope': return { key: await keyWith([def.scope]) };
    case 'key_without_scope': return { key: await keyWith([...ALL_SCOPES, ...SCOPE_ALIASES].filter((s) => s !== def.scope && s !== aliasOf(def.scope))) };
    case 'test_key': return { key: acct.test_key };
    case 'viewer': case 'developer': case 'admin': return { bearer: sessions[cls] };
    case 'owner': return { bearer: acct.session_token };
    case 'other_account_key': return { key: other.live_key };
    case 'other_account_owner': return { bearer: other.session_token };
    case 'public_token': return { bearer: objects.byParam.token[0] };
    case 'no_credential': return {};
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
  return call(method, path, mutation ? {} : undefined, { ...cred, idem: mutation && !isPublicOperation(def) ? idem() : null });
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

/** A valid call: 2xx matching the response schema, or a documented 4xx that is not 401/403. */
function checkValid(def: OperationDef, r: Res): void {
  const documented = new Set([def.successStatus ?? 200, ...(def.otherSuccessStatuses ?? []), ...errorStatuses(def)]);
  if (r.status >= 500 || r.status === 401 || r.status === 403 || !documented.has(r.status)) {
    throw new Error(`${def.id}: expected a valid call (2xx or a documented 4xx other than 401/403), got ${describeRes(r)}`);
  }
  if (r.status < 300) {
    if (!def.response) throw new Error(`${def.id} declares no response schema`);
    const { error } = def.response.validate(r.body, { convert: false });
    if (error) throw new Error(`${def.id}: ${r.status} body does not match the response schema (${error.message}): ${describeRes(r)}`);
  } else checkEnvelope(r);
}

function checkRefused(e: Extract<Expectation, { kind: 'error' }>, r: Res): void {
  const got = (r.body as { error?: { type?: string; code?: string } })?.error;
  if (r.status !== e.status || got?.type !== e.type || got?.code !== e.code) {
    throw new Error(`expected ${e.status} ${e.type}/${e.code}, got ${describeRes(r)}`);
  }
  checkEnvelope(r);
}

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

test('the registry has operations to check, each with a response schema', () => {
  expect(DEFS.length).toBeGreaterThan(40);
  expect(DEFS.filter((d) => !d.response).map((d) => d.id)).toEqual([]);
});

const authenticated = DEFS.filter((d) => !isPublicOperation(d));
const publicOps = DEFS.filter((d) => isPublicOperation(d));

describe.each(authenticated.map((d) => [`${d.id} (${d.method.toUpperCase()} ${d.path})`, d] as const))('%s', (_name, def) => {
  test.each(CLASSES)('%s', async (cls) => {
    const { path, realIds } = pathOf(def);
    const expectation = expectationFor(def, cls, realIds);
    const cred = await credentialOf(def, cls);
    const r = await send(def, path, cred);
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

describe.each(publicOps.map((d) => [`${d.id} (${d.method.toUpperCase()} ${d.path})`, d] as const))('%s', (_name, def) => {
  test.each(CLASSES)('%s: the real token is a valid call whatever credential comes with it', async (cls) => {
    const { path } = pathOf(def);
    const cred = cls === 'public_token' || cls === 'no_credential' ? {} : await credentialOf(def, cls);
    checkValid(def, await send(def, path, cred));
  });

  test.each(CLASSES)('%s: an unknown token is 404 not_found whatever credential comes with it', async (cls) => {
    if (!templateParams(def.path).includes('token')) {
      // Short-code lookup: an unknown code is 404 for everyone as well.
      const r = await send(def, `/v1${def.path.replace(':code', 'ZZZZZZZ')}`, cls === 'no_credential' ? {} : await credentialOf(def, cls === 'public_token' ? 'no_credential' : cls));
      checkRefused(refused(404, 'not_found', 'not_found'), r);
      return;
    }
    const { path } = pathOf(def, { unknownToken: true });
    const r = await send(def, path, cls === 'no_credential' || cls === 'public_token' ? {} : await credentialOf(def, cls));
    // Body validation precedes the token lookup on payer writes: an empty body may be 400 first.
    if (r.status === 400) checkEnvelope(r);
    else checkRefused(refused(404, 'not_found', 'not_found'), r);
  });
});
