/**
 * SSRF guard for crawl URLs.
 *
 * Three layers, all bypassed by `allowPrivate: true` (local development and tests only):
 *  1. parseCrawlUrl (sync): http(s) only, no credentials, no `localhost`/`*.localhost` names and no
 *     forbidden IP literals. The WHATWG parser already normalises 0x7f.1, 2130706433, 127.1, ...
 *  2. assertPublicUrl (async): (1) plus DNS resolution of the host; refused if ANY resolved address
 *     is forbidden. Lets the API answer 400 before enqueueing.
 *  3. createGuardedLookup: the `lookup` used by every socket the crawler opens. The address that is
 *     validated is the address that is connected to, so DNS rebinding between check and connect
 *     (TOCTOU) cannot reach a private address. Redirect hops go through (1) and (3) again.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { forbiddenAddressReason } from './address-policy.js';
import { CrawlRefusedError, toCrawlError } from './errors.js';

/** Decides whether `address` (resolved for `hostname`) may be connected to: null = allowed. */
export type AddressPolicy = (address: string, hostname: string) => string | null;

/** Callback-style resolver with the shape of `dns.lookup` called with `{ all: true }`. */
export type ResolveAll = (
  hostname: string,
  options: { all: true; family?: number; hints?: number },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

export interface UrlGuardOptions {
  /** Skip every private-address check (CRAWL_ALLOW_PRIVATE=true). */
  allowPrivate?: boolean;
  /**
   * Test seams; production callers pass neither. `resolve` replaces DNS, `addressPolicy` replaces
   * the default address classification (forbiddenAddressReason).
   */
  resolve?: ResolveAll;
  addressPolicy?: AddressPolicy;
}

const defaultResolve: ResolveAll = (hostname, options, callback) => {
  dnsLookup(hostname, options, callback);
};

const defaultPolicy: AddressPolicy = (address) => forbiddenAddressReason(address);

/** Host name without IPv6 brackets and without a trailing dot, lower-cased. */
export function bareHostname(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
}

function isLocalhostName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

function refuseAddress(input: string, host: string, address: string, reason: string): CrawlRefusedError {
  const via = address === host ? '' : ` (resolves to ${address})`;
  return new CrawlRefusedError(
    'forbidden_address',
    `refusing to crawl ${input}: ${host}${via} is a ${reason} address`,
    { url: input },
  );
}

/**
 * Parses a crawl URL and applies every check that needs no network. Returns the URL without its
 * fragment. Throws CrawlRefusedError.
 */
export function parseCrawlUrl(input: string | URL, options: UrlGuardOptions = {}): URL {
  const text = String(input).trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CrawlRefusedError('invalid_url', `not a valid absolute URL: ${text.slice(0, 200)}`, { url: text });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CrawlRefusedError(
      'unsupported_scheme',
      `refusing to crawl ${url.protocol} URLs: only http and https are supported`,
      { url: text },
    );
  }
  if (url.username || url.password) {
    throw new CrawlRefusedError('credentials_in_url', 'URLs with embedded credentials are not supported', {
      url: `${url.protocol}//${url.host}${url.pathname}`,
    });
  }
  url.hash = '';
  if (options.allowPrivate) return url;

  const host = bareHostname(url);
  if (!host) throw new CrawlRefusedError('invalid_url', `URL has no host: ${text}`, { url: text });
  if (isLocalhostName(host)) throw refuseAddress(url.href, host, host, 'loopback (localhost)');
  if (isIP(host)) {
    const reason = (options.addressPolicy ?? defaultPolicy)(host, host);
    if (reason) throw refuseAddress(url.href, host, host, reason);
  }
  return url;
}

function resolveAll(resolve: ResolveAll, hostname: string, family?: number, hints?: number): Promise<LookupAddress[]> {
  return new Promise((ok, fail) => {
    resolve(hostname, { all: true, family, hints }, (error, addresses) => (error ? fail(error) : ok(addresses)));
  });
}

/** Returns the refusal for the first forbidden address of `addresses`, if any. */
function checkAddresses(
  policy: AddressPolicy,
  url: string,
  host: string,
  addresses: LookupAddress[],
): CrawlRefusedError | null {
  for (const { address } of addresses) {
    const reason = policy(address, host);
    if (reason) return refuseAddress(url, host, address, reason);
  }
  return null;
}

/**
 * parseCrawlUrl plus DNS: resolves every address of the host and refuses when any is forbidden.
 * Throws CrawlRefusedError, CrawlPermanentError('dns_not_found') or CrawlTransientError('dns_error').
 */
export async function assertPublicUrl(input: string | URL, options: UrlGuardOptions = {}): Promise<URL> {
  const url = parseCrawlUrl(input, options);
  if (options.allowPrivate) return url;
  const host = bareHostname(url);
  if (isIP(host)) return url;

  let addresses: LookupAddress[];
  try {
    addresses = await resolveAll(options.resolve ?? defaultResolve, host);
  } catch (error) {
    throw toCrawlError(error, url.href);
  }
  if (addresses.length === 0) throw toCrawlError(Object.assign(new Error(`no addresses for ${host}`), { code: 'ENODATA' }), url.href);
  const refusal = checkAddresses(options.addressPolicy ?? defaultPolicy, url.href, host, addresses);
  if (refusal) throw refusal;
  return url;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** The `lookup` option for net/http/https: resolves, validates every address, then connects to one. */
export type GuardedLookup = (
  hostname: string,
  options: { family?: number | string; hints?: number; all?: boolean },
  callback: LookupCallback,
) => void;

export function createGuardedLookup(options: UrlGuardOptions = {}): GuardedLookup {
  const resolve = options.resolve ?? defaultResolve;
  const policy = options.addressPolicy ?? defaultPolicy;
  return (hostname, lookupOptions, callback) => {
    const host = hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
    if (!options.allowPrivate && isLocalhostName(host)) {
      callback(refuseAddress(`//${hostname}`, host, host, 'loopback (localhost)'), []);
      return;
    }
    const family = lookupOptions.family === 'IPv4' ? 4 : lookupOptions.family === 'IPv6' ? 6 : Number(lookupOptions.family ?? 0) || undefined;
    resolve(host, { all: true, family, hints: lookupOptions.hints }, (error, addresses) => {
      if (error) return callback(error, []);
      if (addresses.length === 0) {
        return callback(Object.assign(new Error(`no addresses for ${host}`), { code: 'ENODATA' }), []);
      }
      if (!options.allowPrivate) {
        const refusal = checkAddresses(policy, `//${hostname}`, host, addresses);
        if (refusal) return callback(refusal, []);
      }
      if (lookupOptions.all) return callback(null, addresses);
      const first = addresses[0]!;
      return callback(null, first.address, first.family);
    });
  };
}
