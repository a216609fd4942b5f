/**
 * SSRF-safe outbound HTTP for webhook deliveries (spec 4.10 `url`: "public https only; private,
 * link-local, loopback or reserved destinations ... rejected; re-resolved before each send").
 *
 * - Address classification is ipaddr.js's (`ipaddr.process(ip).range()`): only `unicast` is public.
 *   IPv4-mapped IPv6 is classified as the IPv4 it carries. Every other range (private, loopback,
 *   linkLocal, carrierGradeNat, reserved, benchmarking, multicast, broadcast, unspecified,
 *   uniqueLocal, deprecatedSiteLocal, 6to4, teredo, rfc6052 (NAT64), rfc6145, discard ...) and the
 *   IPv4-compatible `::/96` (`addressRange`) are refused. `allowLoopback` (the development
 *   switch WEBHOOKS_ALLOW_LOOPBACK) additionally admits the `loopback` range, nothing else.
 * - `guardedLookup` wraps a resolver (default `dns.lookup`): it resolves every address of the name
 *   and refuses the whole name when any of them is not allowed, so the socket can only connect to
 *   an address that was checked in the same resolution (no time-of-check/time-of-use gap).
 * - `createGuardedAgent` is an undici Agent whose connector refuses IP-literal hosts that are not
 *   allowed and resolves names through `guardedLookup`. Every new connection resolves again (DNS
 *   rebinding cannot reach inside); a kept-alive connection is reused only for the same origin,
 *   at most `maxRequestsPerConnection` times, and always points at an address already checked.
 * A refused destination fails the request with `ForbiddenDestinationError` (code
 * `ERR_DESTINATION_FORBIDDEN`).
 */
import dns from 'node:dns';
import net from 'node:net';
import tls from 'node:tls';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector } from 'undici';

/** Which destinations are allowed: public unicast always; loopback only with the development switch. */
export interface DestinationPolicy {
  allowLoopback: boolean;
}

/** A resolver with the signature of `dns.lookup(hostname, { all: true }, cb)`. */
export type Resolver = (
  hostname: string,
  options: dns.LookupAllOptions,
  cb: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

const systemResolver: Resolver = (hostname, options, cb) => dns.lookup(hostname, options, cb);

/** Raised (or passed to callbacks) when a destination address is not public. */
export class ForbiddenDestinationError extends Error {
  readonly code = 'ERR_DESTINATION_FORBIDDEN';
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(`destination ${host}${host === address ? '' : ` (${address})`} is not a public address (${range})`);
    this.name = 'ForbiddenDestinationError';
  }
}

/**
 * Forms ipaddr.js has no range for, refused as well: IPv4-compatible IPv6 (`::a.b.c.d`, `::/96`
 * minus `::` and `::1` which ipaddr.js names; deprecated by RFC 4291 2.5.5.1, and `[::169.254.169.254]`
 * would otherwise pass as `unicast`). Checked through ipaddr.js `match`.
 */
const EXTRA_RANGES: Array<[string, [ipaddr.IPv6, number]]> = [['ipv4Compatible', ipaddr.IPv6.parseCIDR('::/96')]];

/**
 * The destination class of an IP literal, the one predicate shared by the URL rule on create and
 * update (activities/webhooks/url.ts) and the connect-time guard (below): `unicast` = public, the
 * only class a webhook may reach (plus `loopback` under the development switch); `invalid` when
 * `ip` is not an address. ipaddr.js classifies (`process` turns IPv4-mapped `::ffff:a.b.c.d` into the
 * IPv4 it carries); every other ipaddr.js class is refused, among them the IPv6 forms embedding an
 * IPv4 (`rfc6052` NAT64 `64:ff9b::/96` and `64:ff9b:1::/48`, `rfc6145` `::ffff:0:0:0/96`, `6to4`
 * `2002::/16`, `teredo` `2001::/32`, whatever IPv4 they carry) and `deprecatedSiteLocal` `fec0::/10`;
 * `EXTRA_RANGES` adds what ipaddr.js leaves as `unicast` (IPv4-compatible `::/96`).
 */
export function addressRange(ip: string): string {
  const bare = ip.replace(/^\[(.*)\]$/, '$1');
  if (!ipaddr.isValid(bare)) return 'invalid';
  const addr = ipaddr.process(bare);
  const range = addr.range();
  if (range !== 'unicast' || addr.kind() !== 'ipv6') return range;
  const extra = EXTRA_RANGES.find(([, cidr]) => (addr as ipaddr.IPv6).match(cidr));
  return extra ? extra[0] : range;
}

/** True when `ip` may be connected to under `policy`: public unicast, or loopback with the development switch. */
export function isAllowedAddress(ip: string, policy: DestinationPolicy): boolean {
  const range = addressRange(ip);
  return range === 'unicast' || (policy.allowLoopback && range === 'loopback');
}

/** Throws ForbiddenDestinationError unless every address in `addresses` is allowed. */
export function assertAllowedAddresses(host: string, addresses: readonly string[], policy: DestinationPolicy): void {
  for (const a of addresses) {
    if (!isAllowedAddress(a, policy)) throw new ForbiddenDestinationError(host, a, addressRange(a));
  }
}

/**
 * A `lookup` for net/tls `connect` that resolves all addresses of `hostname` with `resolver` and
 * fails with ForbiddenDestinationError when any is not allowed. Honours `options.all` and
 * `options.family` the way net's happy-eyeballs connect asks for them.
 */
export function guardedLookup(policy: DestinationPolicy, resolver: Resolver = systemResolver): net.LookupFunction {
  return ((hostname: string, options: dns.LookupOptions, cb: (...a: unknown[]) => void) => {
    resolver(hostname, { family: options.family, hints: options.hints, all: true }, (err, addresses) => {
      if (err) return cb(err);
      if (!addresses?.length) return cb(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }));
      try {
        assertAllowedAddresses(
          hostname,
          addresses.map((a) => a.address),
          policy,
        );
      } catch (e) {
        return cb(e);
      }
      if (options.all) return cb(null, addresses);
      return cb(null, addresses[0].address, addresses[0].family);
    });
  }) as unknown as net.LookupFunction;
}

/**
 * Resolves `hostname` (all addresses) with `resolver` within `timeoutMs`. Returns the addresses,
 * or null when the name does not resolve (ENOTFOUND, no data, timeout). Never throws.
 */
export function resolveAll(hostname: string, timeoutMs: number, resolver: Resolver = systemResolver): Promise<string[] | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), timeoutMs);
    resolver(hostname, { all: true }, (err, addresses) => {
      clearTimeout(timer);
      resolve(err || !addresses?.length ? null : addresses.map((a) => a.address));
    });
  });
}

export interface GuardedAgentOptions extends DestinationPolicy {
  /** Extra trusted CA certificates (PEM), added to Node's bundled roots. */
  extraCa?: string | null;
  /** Resolver used for every new connection (default `dns.lookup`); injectable for tests. */
  resolver?: Resolver;
  /** TCP + TLS connect timeout, ms. */
  connectTimeoutMs?: number;
  /** Concurrent connections per origin (undici `connections`); null = unlimited. */
  connectionsPerOrigin?: number | null;
  /** Requests a kept-alive connection may carry before it is closed (bounded reuse). */
  maxRequestsPerConnection?: number;
}

/**
 * An undici Agent that connects only to allowed addresses (see module doc). Use as the
 * `dispatcher` of `undici.request`; a refused destination rejects the request with an error whose
 * `code` (or `cause.code`) is `ERR_DESTINATION_FORBIDDEN`.
 */
export function createGuardedAgent(guardedAgentOptions: GuardedAgentOptions): Agent {
  const policy: DestinationPolicy = { allowLoopback: guardedAgentOptions.allowLoopback };
  const base = buildConnector({
    timeout: guardedAgentOptions.connectTimeoutMs ?? 10_000,
    lookup: guardedLookup(policy, guardedAgentOptions.resolver),
    // One secure context for every connection: passing `ca` instead would parse the whole root
    // store again on each new connection (about 2 ms of CPU each, measured in bench:webhooks).
    ...(guardedAgentOptions.extraCa
      ? { secureContext: tls.createSecureContext({ ca: [...tls.rootCertificates, guardedAgentOptions.extraCa] }) }
      : {}),
  } as buildConnector.BuildOptions);
  const connect: buildConnector.connector = (opts, cb) => {
    const host = opts.hostname.replace(/^\[(.*)\]$/, '$1');
    // An IP-literal host never goes through `lookup`: check it here.
    if (net.isIP(host) !== 0 && !isAllowedAddress(host, policy)) {
      cb(new ForbiddenDestinationError(host, host, addressRange(host)), null);
      return;
    }
    base(opts, cb);
  };
  return new Agent({
    connect,
    connections: guardedAgentOptions.connectionsPerOrigin ?? null,
    maxRequestsPerClient: guardedAgentOptions.maxRequestsPerConnection ?? 100,
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 30_000,
  });
}

/** True when `e` (or its cause chain) is a refused destination. */
export function isForbiddenDestination(error: unknown): boolean {
  for (let cur = error as { code?: string; cause?: unknown } | undefined, i = 0; cur && i < 5; cur = cur.cause as typeof cur, i++) {
    if (cur.code === 'ERR_DESTINATION_FORBIDDEN' || cur instanceof ForbiddenDestinationError) return true;
  }
  return false;
}
