/**
 * The webhook endpoint URL rule (spec 4.10 `url`): public https only; private, link-local,
 * loopback or reserved destinations and the platform's own hosts are refused on create and update;
 * the destination is re-resolved before each send (lib/safe-http.ts guarded agent).
 *
 * Refusals are `400 invalid_request` with `param: 'url'` and code:
 * - `url_invalid`: not an absolute URL, credentials, a fragment, over 2048 characters;
 * - `url_not_https`: any scheme but https (http only to loopback under the development switch);
 * - `url_destination_forbidden`: an IP literal outside the public unicast range (lib/safe-http.ts
 *   `addressRange`, shared with the connect-time guard: ipaddr.js classes, so NAT64, 6to4, Teredo,
 *   site-local and IPv4-mapped private forms, plus IPv4-compatible `::a.b.c.d`), a special-use or internal name (`localhost`, `*.localhost`,
 *   single-label names, `.local`, `.internal`, `.localdomain`, `.home.arpa`, `.arpa`), a host of this
 *   platform (payer host, PLATFORM_HOSTS, subdomains included), or, on create/update, a name that
 *   resolves to any non-public address.
 * The development switch (`WEBHOOKS_ALLOW_LOOPBACK`, off by default; on in `npm start` and the test
 * stack) admits http or https to loopback: IP literals in 127.0.0.0/8 or ::1, and `localhost`.
 * A name that does not resolve at all on create is accepted (DNS may go live after registration);
 * every send resolves again and refuses a non-public answer.
 */
import { DomainError } from '../../domain/errors';
import { loadConfig } from '../../lib/config';
import { addressRange, assertAllowedAddresses, ForbiddenDestinationError, resolveAll, type Resolver } from '../../lib/safe-http';

/** Options of the URL rule; each defaults to the process configuration. */
export interface UrlRuleOptions {
  /** Development switch: loopback allowed (default: config `webhooksAllowLoopback`). */
  allowLoopback?: boolean;
  /** Hosts of this platform (default: the payer host plus config `platformHosts`). */
  platformHosts?: string[];
  /** Resolver for the create/update DNS check (default `dns.lookup`). */
  resolver?: Resolver;
  /** Time budget of the create/update DNS check, ms (default 3000). */
  resolveTimeoutMs?: number;
}

/** Longest accepted URL, characters. */
export const MAX_URL_LENGTH = 2048;

const INTERNAL_SUFFIX = /\.(localhost|local|internal|localdomain|home\.arpa|arpa|intranet|lan|corp)$/;

function badUrl(code: string, message: string): DomainError {
  return new DomainError('invalid_request', code, message, { param: 'url' });
}

const forbidden = (message: string) => badUrl('url_destination_forbidden', message);

function defaultPlatformHosts(): string[] {
  const cfg = loadConfig();
  const hosts = [...cfg.platformHosts];
  try {
    hosts.push(new URL(cfg.payerHost).hostname.toLowerCase());
  } catch {
    /* unset */
  }
  return hosts;
}

/** The URL's host without IPv6 brackets or a trailing dot, lower-cased. */
export function bareHost(uRL: URL): string {
  return uRL.hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}

const isLoopbackName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/**
 * The synchronous part of the rule (syntax, scheme, IP-literal class, names, platform hosts):
 * called on create/update and again before every send. Returns the parsed URL; throws the
 * `400` DomainError described in the module doc.
 */
export function parseEndpointUrl(raw: unknown, opts: UrlRuleOptions = {}): URL {
  const allowLoopback = opts.allowLoopback ?? loadConfig().webhooksAllowLoopback;
  if (typeof raw !== 'string' || raw.trim() === '') throw badUrl('url_invalid', '`url` must be an absolute https URL.');
  const s = raw.trim();
  if (s.length > MAX_URL_LENGTH) throw badUrl('url_invalid', `\`url\` must be at most ${MAX_URL_LENGTH} characters.`);
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    throw badUrl('url_invalid', '`url` must be an absolute https URL.');
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw badUrl('url_not_https', '`url` must use https.');
  if (u.username || u.password) throw badUrl('url_invalid', '`url` must not carry credentials.');
  if (u.hash) throw badUrl('url_invalid', '`url` must not carry a fragment.');
  const host = bareHost(u);
  // WHATWG URL parsing already turned every IPv4 spelling (integer, hex, short forms) into dotted quads.
  const range = addressRange(host);
  const literal = range !== 'invalid';
  if (allowLoopback && (literal ? range === 'loopback' : isLoopbackName(host))) return u;
  if (u.protocol !== 'https:') throw badUrl('url_not_https', '`url` must use https.');
  if (literal) {
    if (range !== 'unicast') throw forbidden(`\`url\` must point to a public address; ${host} is ${range}.`);
    return u;
  }
  if (!host.includes('.') || isLoopbackName(host) || INTERNAL_SUFFIX.test(host)) throw forbidden('`url` must name a public host.');
  const platform = opts.platformHosts ?? defaultPlatformHosts();
  if (platform.some((p) => host === p || host.endsWith(`.${p}`))) throw forbidden('`url` must not point at this platform.');
  return u;
}

/**
 * The whole rule for create and update (spec 4.10): `parseEndpointUrl`, then, for a host name,
 * one DNS resolution: every address must be public (or loopback under the development switch),
 * else `400 url_destination_forbidden`. A name that does not resolve is accepted (see module doc).
 */
export async function checkEndpointUrl(raw: unknown, opts: UrlRuleOptions = {}): Promise<URL> {
  const u = parseEndpointUrl(raw, opts);
  const host = bareHost(u);
  if (addressRange(host) !== 'invalid') return u;
  const addresses = await resolveAll(host, opts.resolveTimeoutMs ?? 3000, opts.resolver);
  if (!addresses) return u;
  try {
    assertAllowedAddresses(host, addresses, { allowLoopback: opts.allowLoopback ?? loadConfig().webhooksAllowLoopback });
  } catch (e) {
    if (e instanceof ForbiddenDestinationError)
      throw forbidden(`\`url\` must point to a public address; ${host} resolves to ${e.address} (${e.range}).`);
    throw e;
  }
  return u;
}
