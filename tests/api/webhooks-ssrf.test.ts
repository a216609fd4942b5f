/**
 * Webhook destinations (spec 4.10 `url`): the URL rule on create and update (`checkEndpointUrl`,
 * with the development switch off unless stated), the send-time guard of the delivery agent
 * (lib/safe-http.ts: every new connection resolves again and refuses non-public answers, so DNS
 * rebinding cannot reach inside), against a real local https receiver, and the same refusals
 * through the running product's API.
 */
import type dns from 'node:dns';
import { checkEndpointUrl, parseEndpointUrl } from '../../activities/webhooks/url';
import { postWebhook } from '../../activities/webhooks/http';
import { DomainError } from '../../domain/errors';
import { addressRange, createGuardedAgent, guardedLookup, type Resolver } from '../../lib/safe-http';
import { client, expectError, newAccount } from '../helpers/api';
import { Receiver, testTls } from '../helpers/receiver';

const OFF = { allowLoopback: false, platformHosts: ['api.platform.example.net', 'pay.platform.example.net'] };
const ON = { ...OFF, allowLoopback: true };

/** A resolver answering from `table` (name -> addresses, or an error code); counts its calls. */
function fakeResolver(table: Record<string, string[] | string | (() => string[])>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const r = ((hostname: string, _o: dns.LookupAllOptions, cb: (e: NodeJS.ErrnoException | null, a: dns.LookupAddress[]) => void) => {
    calls.push(hostname);
    let v = table[hostname];
    if (typeof v === 'function') v = v();
    setImmediate(() => {
      if (v === undefined || typeof v === 'string') {
        cb(Object.assign(new Error(`getaddrinfo ${v ?? 'ENOTFOUND'} ${hostname}`), { code: v ?? 'ENOTFOUND' }), []);
        return;
      }
      cb(
        null,
        v.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      );
    });
  }) as Resolver & { calls: string[] };
  r.calls = calls;
  return r;
}

async function refused(p: Promise<unknown> | (() => unknown), code: string): Promise<void> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    const d = e as DomainError;
    expect([d.status, d.type, d.param, d.code]).toEqual([400, 'invalid_request', 'url', code]);
    return;
  }
  throw new Error(`expected a refusal with ${code}`);
}

const receiver = new Receiver({ tls: testTls() });
beforeAll(async () => {
  await receiver.start();
});
afterAll(async () => {
  await receiver.stop();
});

describe('URL rule on create and update (checkEndpointUrl)', () => {
  const noDns = fakeResolver({});

  it('refuses IP literals of every non-public class, accepts public unicast', async () => {
    const literals: Array<[string, string]> = [
      ['0.0.0.0', 'unspecified'],
      ['10.1.2.3', 'private'],
      ['172.16.5.4', 'private'],
      ['192.168.1.1', 'private'],
      ['100.64.0.1', 'carrierGradeNat'],
      ['127.0.0.1', 'loopback'],
      ['127.9.9.9', 'loopback'],
      ['169.254.169.254', 'linkLocal'],
      ['192.0.0.8', 'reserved'],
      ['192.0.2.10', 'reserved'],
      ['198.18.0.1', 'reserved'],
      ['198.51.100.7', 'reserved'],
      ['203.0.113.9', 'reserved'],
      ['224.0.0.1', 'multicast'],
      ['240.0.0.1', 'reserved'],
      ['255.255.255.255', 'broadcast'],
      ['[::]', 'unspecified'],
      ['[::1]', 'loopback'],
      ['[fe80::1]', 'linkLocal'],
      ['[fc00::1]', 'uniqueLocal'],
      ['[fd12:3456::1]', 'uniqueLocal'],
      ['[ff02::1]', 'multicast'],
      ['[2001:db8::1]', 'reserved'],
      ['[64:ff9b::a00:1]', 'rfc6052'],
      ['[100::1]', 'discard'],
      ['[2002:a00:1::1]', '6to4'],
      ['[2001::1]', 'teredo'],
      ['[::ffff:127.0.0.1]', 'loopback'],
      ['[::ffff:10.0.0.1]', 'private'],
    ];
    for (const [host, range] of literals) {
      expect([host, addressRange(host)]).toEqual([host, range]);
      await refused(checkEndpointUrl(`https://${host}/hook`, { ...OFF, resolver: noDns }), 'url_destination_forbidden');
      await refused(checkEndpointUrl(`https://${host}:8443/hook`, { ...OFF, resolver: noDns }), 'url_destination_forbidden');
    }
    // Other spellings of 127.0.0.1 and 10.0.0.1 that URL parsing normalises.
    for (const u of ['https://2130706433/in', 'https://0x7f000001/in', 'https://127.1/in', 'https://0177.0.0.1/in', 'https://10.1/in']) {
      await refused(checkEndpointUrl(u, { ...OFF, resolver: noDns }), 'url_destination_forbidden');
    }
    expect((await checkEndpointUrl('https://8.8.8.8/hook', { ...OFF, resolver: noDns })).hostname).toBe('8.8.8.8');
    expect((await checkEndpointUrl('https://[2606:4700::1111]/hook', { ...OFF, resolver: noDns })).hostname).toBe('[2606:4700::1111]');
    expect(noDns.calls).toEqual([]); // literals are never resolved
  });

  it("requires https, refuses credentials, fragments, internal names and the platform's own hosts", async () => {
    await refused(checkEndpointUrl('http://hooks.example.com/in', { ...OFF, resolver: noDns }), 'url_not_https');
    await refused(checkEndpointUrl('ftp://hooks.example.com/in', { ...OFF, resolver: noDns }), 'url_not_https');
    await refused(checkEndpointUrl('http://127.0.0.1:8080/in', { ...OFF, resolver: noDns }), 'url_not_https');
    await refused(checkEndpointUrl('http://localhost:8080/in', { ...OFF, resolver: noDns }), 'url_not_https');
    await refused(checkEndpointUrl('https://user:pw@hooks.example.com/in', { ...OFF, resolver: noDns }), 'url_invalid');
    await refused(checkEndpointUrl('https://hooks.example.com/in#frag', { ...OFF, resolver: noDns }), 'url_invalid');
    await refused(checkEndpointUrl('not a url', { ...OFF, resolver: noDns }), 'url_invalid');
    await refused(checkEndpointUrl(42, { ...OFF, resolver: noDns }), 'url_invalid');
    await refused(checkEndpointUrl(`https://hooks.example.com/${'a'.repeat(2050)}`, { ...OFF, resolver: noDns }), 'url_invalid');
    for (const host of [
      'localhost',
      'localhost.',
      'app.localhost',
      'intranet',
      'printer.local',
      'db.internal',
      'nas.home.arpa',
      '1.0.0.10.in-addr.arpa',
    ]) {
      await refused(checkEndpointUrl(`https://${host}/in`, { ...OFF, resolver: noDns }), 'url_destination_forbidden');
    }
    for (const host of [
      'api.platform.example.net',
      'API.Platform.Example.Net.',
      'eu.api.platform.example.net',
      'pay.platform.example.net',
    ]) {
      await refused(checkEndpointUrl(`https://${host}/in`, { ...OFF, resolver: noDns }), 'url_destination_forbidden');
    }
    expect((await checkEndpointUrl('https://platform.example.net/in', { ...OFF, resolver: noDns })).hostname).toBe('platform.example.net');
  });

  it('resolves host names: any non-public answer is refused; an unresolvable name is accepted', async () => {
    const dnsTable = fakeResolver({
      'to-private.example.com': ['10.0.0.5'],
      'to-metadata.example.com': ['169.254.169.254'],
      'to-loopback.example.com': ['127.0.0.1'],
      'to-v6-loopback.example.com': ['::1'],
      'mixed.example.com': ['93.184.216.34', '192.168.0.10'],
      'public.example.com': ['93.184.216.34', '2606:2800:220:1::1'],
      'slow.example.com': 'EAI_AGAIN',
    });
    const o = { ...OFF, resolver: dnsTable };
    for (const host of [
      'to-private.example.com',
      'to-metadata.example.com',
      'to-loopback.example.com',
      'to-v6-loopback.example.com',
      'mixed.example.com',
    ]) {
      await refused(checkEndpointUrl(`https://${host}/in`, o), 'url_destination_forbidden');
    }
    expect((await checkEndpointUrl('https://public.example.com/in', o)).hostname).toBe('public.example.com');
    expect((await checkEndpointUrl('https://not-yet-live.example.com/in', o)).hostname).toBe('not-yet-live.example.com');
    expect((await checkEndpointUrl('https://slow.example.com/in', o)).hostname).toBe('slow.example.com');
    const hanging: Resolver = () => undefined; // never answers: the 3 s budget (here 50 ms) accepts
    expect((await checkEndpointUrl('https://hangs.example.com/in', { ...OFF, resolver: hanging, resolveTimeoutMs: 50 })).hostname).toBe(
      'hangs.example.com',
    );
    // Under the development switch a name resolving to loopback is fine over https, never a private one.
    expect((await checkEndpointUrl('https://to-loopback.example.com/in', { ...ON, resolver: dnsTable })).hostname).toBe(
      'to-loopback.example.com',
    );
    await refused(checkEndpointUrl('https://to-private.example.com/in', { ...ON, resolver: dnsTable }), 'url_destination_forbidden');
  });

  it('admits http(s) to loopback only under the development switch', async () => {
    expect((await checkEndpointUrl('http://127.0.0.1:8080/in', ON)).port).toBe('8080');
    expect((await checkEndpointUrl('https://127.0.0.1:8443/in', ON)).port).toBe('8443');
    expect((await checkEndpointUrl('http://localhost:9/in', ON)).hostname).toBe('localhost');
    expect((await checkEndpointUrl('http://[::1]:9/in', ON)).port).toBe('9');
    await refused(checkEndpointUrl('http://hooks.example.com/in', { ...ON, resolver: noDns }), 'url_not_https');
    await refused(checkEndpointUrl('http://10.0.0.1/in', ON), 'url_not_https');
    await refused(checkEndpointUrl('https://10.0.0.1/in', ON), 'url_destination_forbidden');
    await refused(checkEndpointUrl('https://169.254.169.254/in', ON), 'url_destination_forbidden');
    // The synchronous part (re-checked before every send) says the same.
    await refused(() => parseEndpointUrl('https://127.0.0.1/in', OFF), 'url_destination_forbidden');
    expect(parseEndpointUrl('https://127.0.0.1/in', ON).hostname).toBe('127.0.0.1');
  });
});

describe('send-time guard (guarded undici agent)', () => {
  const ca = testTls().cert;
  const payload = JSON.stringify({ hello: 'world' });
  const headers = { 'content-type': 'application/json' };

  it('resolves localhost through the system resolver (/etc/hosts) and refuses its loopback answer', async () => {
    const lookup = guardedLookup({ allowLoopback: false });
    const err = await new Promise<Error | null>((resolve) => lookup('localhost', { all: true }, (e) => resolve(e)));
    expect(err).toMatchObject({ code: 'ERR_DESTINATION_FORBIDDEN', range: 'loopback' });
    const ok = await new Promise<unknown>((resolve) =>
      guardedLookup({ allowLoopback: true })('localhost', { all: true }, (e, a) => resolve(e ?? a)),
    );
    expect(ok).toEqual(expect.arrayContaining([expect.objectContaining({ address: expect.stringMatching(/^(127\.|::1$)/) })]));
  });

  it('never connects to loopback with the development switch off (IP literal or name), and does with it on', async () => {
    const p = receiver.path('guard');
    const off = createGuardedAgent({ allowLoopback: false, extraCa: ca });
    const on = createGuardedAgent({ allowLoopback: true, extraCa: ca });
    try {
      for (const base of [
        `https://127.0.0.1:${receiver.port}`,
        `https://localhost:${receiver.port}`,
        `https://[::ffff:127.0.0.1]:${receiver.port}`,
      ]) {
        const r = await postWebhook(new URL(`${base}${p.path}`), headers, payload, off);
        expect(r).toMatchObject({ statusCode: null, error: expect.stringMatching(/^destination_forbidden: /), retryable: true });
      }
      expect(receiver.received(p.path)).toHaveLength(0);
      const r = await postWebhook(new URL(`https://localhost:${receiver.port}${p.path}`), headers, payload, on);
      expect(r).toMatchObject({ statusCode: 200, error: null, excerpt: '{"received":true}' });
      expect(receiver.received(p.path)).toHaveLength(1);
      expect(receiver.received(p.path)[0].body).toBe(payload);
    } finally {
      await off.close();
      await on.close();
    }
  });

  it('re-resolves at send time: a name that passed on create but now points inside is refused (DNS rebinding)', async () => {
    const host = 'rebind.webhooks.example.com';
    let answer = ['93.184.216.34'];
    const resolver = fakeResolver({ [host]: () => answer });
    const url = await checkEndpointUrl(`https://${host}:${receiver.port}/rebind`, { ...OFF, resolver });
    expect(resolver.calls).toEqual([host]);

    answer = ['127.0.0.1']; // the attacker's DNS flips after registration
    const p = receiver.path('rebind');
    const target = new URL(`https://${host}:${receiver.port}${p.path}`);
    expect(target.host).toBe(url.host);
    const guarded = createGuardedAgent({ allowLoopback: false, extraCa: ca, resolver });
    try {
      const first = await postWebhook(target, headers, payload, guarded);
      expect(first.error).toMatch(/^destination_forbidden: .*127\.0\.0\.1.*loopback/);
      const second = await postWebhook(target, headers, payload, guarded);
      expect(second.error).toMatch(/^destination_forbidden: /);
      expect(resolver.calls).toEqual([host, host, host]); // once on create, then before each send
      answer = ['93.184.216.34', '10.0.0.7']; // one private answer among public ones is enough to refuse
      expect((await postWebhook(target, headers, payload, guarded)).error).toMatch(/^destination_forbidden: .*10\.0\.0\.7/);
      expect(receiver.received(p.path)).toHaveLength(0);
    } finally {
      await guarded.close();
    }
    // Control: the same name and answer reach the receiver when loopback is allowed.
    answer = ['127.0.0.1'];
    const dev = createGuardedAgent({ allowLoopback: true, extraCa: ca, resolver });
    try {
      expect((await postWebhook(target, headers, payload, dev)).statusCode).toBe(200);
      expect(receiver.received(p.path)).toHaveLength(1);
    } finally {
      await dev.close();
    }
  });

  it('does not follow redirects and does not trust an unknown certificate', async () => {
    const landing = receiver.path('landing');
    const p = receiver.path('redirect', [{ status: 307, headers: { location: landing.url } }]);
    const dev = createGuardedAgent({ allowLoopback: true, extraCa: ca });
    const noCa = createGuardedAgent({ allowLoopback: true });
    try {
      const r = await postWebhook(new URL(p.url), headers, payload, dev);
      expect(r).toMatchObject({ statusCode: 307, error: `redirect_not_followed: ${landing.url}` });
      expect(receiver.received(landing.path)).toHaveLength(0);
      const untrusted = await postWebhook(new URL(receiver.path('untrusted').url), headers, payload, noCa);
      expect(untrusted).toMatchObject({ statusCode: null, error: expect.stringMatching(/^connection_error: .*(CERT|SIGNED)/) });
    } finally {
      await dev.close();
      await noCa.close();
    }
  });
});

describe('URL rule through the API', () => {
  it('refuses non-public destinations and platform hosts on create and update with 400 param url', async () => {
    const a = await newAccount();
    const live = client(a.live_key);
    for (const url of [
      'https://10.0.0.8/x',
      'https://169.254.169.254/latest',
      'https://[fd00::5]/x',
      'https://100.64.1.1/x',
      'https://198.18.0.9/x',
      'https://api.platform.example.net/hooks',
      'https://eu.api.platform.example.net/hooks',
      'https://db.internal/x',
    ]) {
      expectError(await live.post('/v1/webhook_endpoints', { url }), 400, 'invalid_request', 'url_destination_forbidden', 'url');
    }
    expectError(
      await live.post('/v1/webhook_endpoints', { url: 'http://hooks.example.com/x' }),
      400,
      'invalid_request',
      'url_not_https',
      'url',
    );
    // The test stack runs with the development switch on: loopback http is accepted, other private ranges are not.
    const ep = (await live.post('/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/dev' })).body;
    expect(ep).toMatchObject({ object: 'webhook_endpoint', url: 'http://127.0.0.1:9/dev' });
    expectError(
      await live.patch(`/v1/webhook_endpoints/${ep.id}`, { url: 'https://192.168.10.1/x' }),
      400,
      'invalid_request',
      'url_destination_forbidden',
      'url',
    );
    expectError(
      await live.patch(`/v1/webhook_endpoints/${ep.id}`, { url: 'http://10.0.0.1/x' }),
      400,
      'invalid_request',
      'url_not_https',
      'url',
    );
    expect((await live.patch(`/v1/webhook_endpoints/${ep.id}`, { url: 'https://hooks.example.com/moved' })).body.url).toBe(
      'https://hooks.example.com/moved',
    );
  });
});
