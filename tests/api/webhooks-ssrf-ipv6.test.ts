/**
 * Webhook destinations written as IPv6 forms that carry or stand for an internal address (issue 11):
 * IPv4-compatible (`::a.b.c.d`), IPv4-mapped private, NAT64 (RFC 6052 `64:ff9b::/96`, RFC 8215
 * `64:ff9b:1::/48`), SIIT (`::ffff:0:a.b.c.d`), 6to4, Teredo and deprecated site-local. One predicate
 * (lib/safe-http.ts `addressRange`) refuses them on create and update (activities/webhooks/url.ts)
 * with the development switch on and off, at connect time (the guarded agent, IP literal or a name
 * resolving to one), and through the running product's API.
 */
import type dns from 'node:dns';
import { checkEndpointUrl, parseEndpointUrl } from '../../activities/webhooks/url';
import { postWebhook } from '../../activities/webhooks/http';
import { DomainError } from '../../domain/errors';
import { addressRange, createGuardedAgent, guardedLookup, isAllowedAddress, type Resolver } from '../../lib/safe-http';
import { client, expectError, newAccount } from '../helpers/api';

const OFF = { allowLoopback: false, platformHosts: [] as string[] };
const ON = { ...OFF, allowLoopback: true };
const noDns: Resolver = (_h, _o, cb) => setImmediate(() => cb(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }), []));

/** [URL host as written, the class the predicate gives the normalised address]. */
const FORMS: Array<[string, string]> = [
  ['[::169.254.169.254]', 'ipv4Compatible'], // URL parsing normalises it to ::a9fe:a9fe
  ['[::a00:1]', 'ipv4Compatible'],
  ['[::127.0.0.1]', 'ipv4Compatible'], // not loopback: the switch does not admit it
  ['[::8.8.8.8]', 'ipv4Compatible'], // deprecated form, refused whatever it carries
  ['[64:ff9b::a9fe:a9fe]', 'rfc6052'],
  ['[64:ff9b::8.8.8.8]', 'rfc6052'],
  ['[64:ff9b:1::a9fe:a9fe]', 'rfc6052'],
  ['[::ffff:0:a9fe:a9fe]', 'rfc6145'],
  ['[::ffff:169.254.169.254]', 'linkLocal'],
  ['[::ffff:10.0.0.1]', 'private'],
  ['[::ffff:100.64.0.1]', 'carrierGradeNat'],
  ['[fec0::1]', 'deprecatedSiteLocal'],
  ['[feff::1]', 'deprecatedSiteLocal'],
  ['[2002:a9fe:a9fe::1]', '6to4'],
  ['[2002:808:808::1]', '6to4'],
  ['[2001:0:4136:e378:8000:63bf:3fff:fdd2]', 'teredo'],
];

async function refused(p: Promise<unknown> | (() => unknown)): Promise<void> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    const d = e as DomainError;
    expect([d.status, d.type, d.param, d.code]).toEqual([400, 'invalid_request', 'url', 'url_destination_forbidden']);
    return;
  }
  throw new Error('expected url_destination_forbidden');
}

describe('one predicate for every embedding form', () => {
  it('classifies each form as non-public; public IPv6 and IPv4-mapped public stay unicast', () => {
    for (const [host, range] of FORMS) {
      const normalised = new URL(`https://${host}/`).hostname;
      expect([host, addressRange(normalised)]).toEqual([host, range]);
      expect(isAllowedAddress(normalised, { allowLoopback: true })).toBe(false);
    }
    expect(addressRange('2606:4700::1111')).toBe('unicast');
    expect(addressRange('::ffff:8.8.8.8')).toBe('unicast');
    expect(addressRange('::1')).toBe('loopback');
    expect(addressRange('::')).toBe('unspecified');
  });

  it('refuses each form on create/update, https and http, with the development switch off and on', async () => {
    for (const [host] of FORMS) {
      for (const opts of [OFF, ON]) {
        await refused(checkEndpointUrl(`https://${host}/hook`, { ...opts, resolver: noDns }));
        await refused(checkEndpointUrl(`https://${host}:8443/hook`, { ...opts, resolver: noDns }));
        await refused(() => parseEndpointUrl(`https://${host}/hook`, opts));
      }
    }
  });

  it('refuses a name resolving to any of the forms on create', async () => {
    for (const [host] of FORMS) {
      const address = new URL(`https://${host}/`).hostname.slice(1, -1);
      const resolver: Resolver = (_h, _o, cb) => setImmediate(() => cb(null, [{ address, family: 6 }]));
      await refused(checkEndpointUrl('https://hooks.example.com/in', { ...ON, resolver }));
    }
  });
});

describe('connect-time guard (lib/safe-http.ts)', () => {
  const headers = { 'content-type': 'application/json' };

  it('never connects to an IP literal of these forms, switch on or off', async () => {
    for (const allowLoopback of [false, true]) {
      const agent = createGuardedAgent({ allowLoopback, connectTimeoutMs: 2000 });
      try {
        for (const [host] of FORMS) {
          const r = await postWebhook(new URL(`https://${host}:9/x`), headers, '{}', agent);
          expect([host, r.statusCode, r.error]).toEqual([host, null, expect.stringMatching(/^destination_forbidden: /)]);
        }
      } finally {
        await agent.close();
      }
    }
  });

  it('refuses a name whose resolution contains one of these forms (checked in the same lookup)', async () => {
    for (const [host] of FORMS) {
      const address = new URL(`https://${host}/`).hostname.slice(1, -1);
      const resolver: Resolver = (_h, _o, cb) =>
        setImmediate(() =>
          cb(null, [
            { address: '2606:4700::1111', family: 6 },
            { address, family: 6 },
          ]),
        );
      const err = await new Promise<Error | null>((resolve) =>
        guardedLookup({ allowLoopback: true }, resolver)('rebind.example.com', { all: true } as dns.LookupOptions, (e) => resolve(e)),
      );
      expect(err).toMatchObject({ code: 'ERR_DESTINATION_FORBIDDEN', address });
    }
  });
});

describe('through the API (test stack: development switch on)', () => {
  it('refuses every form on create and update with 400 url_destination_forbidden, param url', async () => {
    const a = await newAccount();
    const live = client(a.live_key);
    const ep = (await live.post('/v1/webhook_endpoints', { url: 'https://hooks.example.com/ok' })).body;
    expect(ep).toMatchObject({ object: 'webhook_endpoint' });
    for (const [host] of FORMS) {
      expectError(
        await live.post('/v1/webhook_endpoints', { url: `https://${host}/x` }),
        400,
        'invalid_request',
        'url_destination_forbidden',
        'url',
      );
      expectError(
        await live.patch(`/v1/webhook_endpoints/${ep.id}`, { url: `https://${host}/x` }),
        400,
        'invalid_request',
        'url_destination_forbidden',
        'url',
      );
    }
    expect((await live.get(`/v1/webhook_endpoints/${ep.id}`)).body.url).toBe('https://hooks.example.com/ok');
  });
});
