/**
 * Credentials as a hostile client presents them (spec 5, 8, 9; issue 11), on operations generated
 * from the registry:
 * - exactly one credential: `x-api-key` and `Authorization` together are `400 invalid_request`
 *   `ambiguous_credentials` whatever the bearer is (same account's session, another account's,
 *   garbage); a session token in `x-api-key` is `401 invalid_api_key`; a key as a Bearer token alone
 *   still works (spec 5: agents send keys that way); the event stream follows the same rule;
 * - (failed authentication limited per source address: tests/contract/auth-flood.test.ts);
 * - `Service-Version` is a calendar date `YYYY-MM-DD`: `0000-00-00`, `2026-02-30` and an empty
 *   value are `400 version_invalid` on every operation; a date older than the oldest served is
 *   echoed as that oldest; the document states the same rule; `default_version` of `POST /api_keys`
 *   follows it (param `default_version`).
 */
import type { DevCredentials } from '../../activities/accounts/commands';
import { isPublicOperation, REGISTRY, type OperationDef } from '../../api/operation';
import { documentOfThisBuild } from '../../api/openapi-cli';
import { isVersionDate, LATEST_VERSION, SERVED_VERSIONS, VERSION_PATTERN } from '../../domain/versioning';
import { call, client, expectError, expectOk, newAccount } from '../helpers/api';
import { templateParams } from '../helpers/contract';

const DOC = documentOfThisBuild() as unknown as { components: { parameters: Record<string, { schema: Record<string, unknown> }> } };
const AUTHENTICATED: OperationDef[] = [...REGISTRY].filter((d) => !isPublicOperation(d));

/** A concrete path of `def` with placeholder ids (authentication runs before any id is looked up). */
function pathOf(def: OperationDef): string {
  let p = def.path;
  for (const name of templateParams(def.path)) p = p.replace(`:${name}`, `nonexistent_${name}_0000000000000000`);
  return `/v1${p}`;
}

let acct: DevCredentials;
let other: DevCredentials;
beforeAll(async () => {
  acct = await newAccount();
  other = await newAccount();
});

describe('a request authenticates as exactly one credential', () => {
  it('both headers: 400 ambiguous_credentials on every authenticated operation, whatever the bearer', async () => {
    expect(AUTHENTICATED.length).toBeGreaterThan(50);
    for (const def of AUTHENTICATED) {
      const path = pathOf(def);
      for (const bearer of [acct.session_token, other.session_token, 'dsess_not_a_real_session_token', acct.live_key, 'garbage']) {
        const r = await call(def.method.toUpperCase(), path, undefined, { key: acct.live_key, bearer });
        try {
          expectError(r, 400, 'invalid_request', 'ambiguous_credentials');
        } catch (e) {
          throw new Error(`${def.id} with bearer ${bearer.slice(0, 8)}: ${(e as Error).message}`);
        }
      }
    }
  });

  it('a session token in x-api-key: 401 invalid_api_key (sample of operations)', async () => {
    for (const def of AUTHENTICATED.filter((_, i) => i % 4 === 0)) {
      const r = await call(def.method.toUpperCase(), pathOf(def), undefined, { key: acct.session_token });
      try {
        expectError(r, 401, 'authentication_error', 'invalid_api_key');
      } catch (e) {
        throw new Error(`${def.id}: ${(e as Error).message}`);
      }
    }
  });

  it('one credential works through either header it belongs in: key in x-api-key or as Bearer, session as Bearer', async () => {
    for (const o of [{ key: acct.live_key }, { bearer: acct.live_key }, { bearer: acct.session_token }]) {
      expect(expectOk(await call('GET', '/v1/account', undefined, o)).id).toBe(acct.account_id);
    }
    // An empty header is not a credential: the other one alone decides.
    expect(expectOk(await call('GET', '/v1/account', undefined, { bearer: acct.live_key, headers: { 'x-api-key': '' } })).id).toBe(
      acct.account_id,
    );
  });

  it('the event stream follows the same rule', async () => {
    expectError(
      await call('GET', '/v1/events/stream', undefined, { key: acct.live_key, bearer: other.session_token }),
      400,
      'invalid_request',
      'ambiguous_credentials',
    );
    expectError(
      await call('GET', '/v1/events/stream', undefined, { key: acct.session_token }),
      401,
      'authentication_error',
      'invalid_api_key',
    );
  });
});

describe('Service-Version is a calendar date YYYY-MM-DD', () => {
  const sample = AUTHENTICATED.filter((_, i) => i % 5 === 0);

  it('0000-00-00, 2026-02-30, 2025-02-29, an empty or blank value and other shapes: 400 version_invalid on every sampled operation', async () => {
    for (const v of [
      '0000-00-00',
      '2026-02-30',
      '2025-02-29',
      '2026-13-01',
      '',
      ' ',
      '2026-9-4',
      '2026-09-04T00:00:00.000Z',
      'yesterday',
    ]) {
      for (const def of [...sample, ...[...REGISTRY].filter(isPublicOperation).slice(0, 2)]) {
        const r = await call(def.method.toUpperCase(), pathOf(def), undefined, { key: acct.live_key, headers: { 'Service-Version': v } });
        try {
          expectError(r, 400, 'invalid_request', 'version_invalid', 'Service-Version');
        } catch (e) {
          throw new Error(`${def.id} with ${JSON.stringify(v)}: ${(e as Error).message}`);
        }
      }
    }
  });

  it('real dates are served: the newest served on or before, older than the oldest echoed as the oldest', async () => {
    const api = client(acct.live_key);
    for (const [sent, served] of [
      [LATEST_VERSION, LATEST_VERSION],
      ['2024-02-29', SERVED_VERSIONS[0]],
      ['0001-01-01', SERVED_VERSIONS[0]],
      ['2999-12-31', LATEST_VERSION],
    ]) {
      const r = await api.get('/v1/account', { headers: { 'Service-Version': sent } });
      expect([sent, r.status, r.headers.get('service-version')]).toEqual([sent, 200, served]);
    }
    expect((await api.get('/v1/account')).headers.get('service-version')).toBe(LATEST_VERSION);
  });

  it('the document states the rule the server enforces: pattern + format date', () => {
    expect(DOC.components.parameters.ServiceVersion.schema).toEqual({ type: 'string', format: 'date', pattern: VERSION_PATTERN });
    const re = new RegExp(VERSION_PATTERN);
    for (const v of ['0000-00-00', '2026-99-99', '', '2026-9-4']) expect([v, re.test(v)]).toEqual([v, false]);
    // What the pattern admits but the calendar does not is what `format: date` excludes.
    for (const v of ['2026-02-30', '2025-02-29', '2026-04-31']) expect([v, re.test(v), isVersionDate(v)]).toEqual([v, true, false]);
    for (const v of ['2024-02-29', '2000-02-29', '2026-09-04']) expect([v, isVersionDate(v)]).toEqual([v, true]);
    expect(isVersionDate('1900-02-29')).toBe(false);
  });

  it('POST /api_keys default_version follows the same rule (param default_version); an old date is served as the oldest', async () => {
    const owner = client(acct.session_token);
    for (const v of ['2026-99-99', '2026-02-30', '0000-00-00', '', '2026-09-04T00:00:00Z']) {
      const r = await owner.post('/v1/api_keys', { scopes: ['account.read'], default_version: v });
      try {
        expectError(r, 400, 'invalid_request', undefined, 'default_version');
      } catch (e) {
        throw new Error(`default_version ${JSON.stringify(v)}: ${(e as Error).message}`);
      }
    }
    const created = expectOk(await owner.post('/v1/api_keys', { scopes: ['account.read'], default_version: '2020-01-01' }), 201);
    expect(created.default_version).toBe('2020-01-01');
    const r = await client(created.secret).get('/v1/account');
    expect([r.status, r.headers.get('service-version')]).toEqual([200, SERVED_VERSIONS[0]]);
  });
});
