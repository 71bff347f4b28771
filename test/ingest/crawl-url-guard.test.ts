import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { forbiddenAddressReason, parseIPv6 } from '../../src/ingest/crawl/address-policy';
import { CrawlPermanentError, CrawlRefusedError, CrawlTransientError } from '../../src/ingest/crawl/errors';
import { assertPublicUrl, createGuardedLookup, parseCrawlUrl, type ResolveAll } from '../../src/ingest/crawl/url-guard';

/** A resolver answering from a table; unknown names fail like NXDOMAIN. */
function fakeDns(table: Record<string, string[] | (() => string[])>): ResolveAll & { calls: string[] } {
  const calls: string[] = [];
  const resolve = ((hostname, _options, callback) => {
    calls.push(hostname);
    const entry = table[hostname];
    if (!entry) {
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
      return;
    }
    const addresses = typeof entry === 'function' ? entry() : entry;
    callback(null, addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 })));
  }) as ResolveAll & { calls: string[] };
  resolve.calls = calls;
  return resolve;
}

describe('forbiddenAddressReason', () => {
  it.each([
    '127.0.0.1', '127.255.255.254', '10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.255', '192.168.1.1',
    '169.254.169.254', '169.254.0.1', '100.64.0.1', '100.127.255.255', '0.0.0.0', '0.1.2.3', '224.0.0.1',
    '239.255.255.250', '255.255.255.255', '240.0.0.1', '192.0.0.192', '198.18.0.1', '192.0.2.1',
    '::1', '::', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '[::1]',
    'fe80::1', 'fe80::1%eth0', 'fc00::1', 'fd12:3456:789a::1', 'ff02::1', 'fec0::1', '::127.0.0.1',
    '64:ff9b::127.0.0.1', '64:ff9b::a00:1', '2002:7f00:1::1', '2002:a00:1::', '2001:db8::1', '2001::1', '100::1',
    '0:0:0:0:0:ffff:127.0.0.1',
  ])('refuses %s', (address) => {
    expect(forbiddenAddressReason(address)).toEqual(expect.any(String));
  });

  it.each([
    '93.184.216.34', '8.8.8.8', '1.1.1.1', '172.32.0.1', '172.15.255.255', '100.128.0.1', '11.0.0.1', '169.255.0.1',
    '2606:4700:4700::1111', '2001:4860:4860::8888', '2a00:1450:4001:81c::200e', '::ffff:8.8.8.8', '64:ff9b::808:808',
    '2002:808:808::1',
  ])('allows %s', (address) => {
    expect(forbiddenAddressReason(address)).toBeNull();
  });

  it('names the range it refuses', () => {
    expect(forbiddenAddressReason('169.254.169.254')).toMatch(/metadata/);
    expect(forbiddenAddressReason('::ffff:127.0.0.1')).toMatch(/IPv4-mapped loopback/);
    expect(forbiddenAddressReason('example.com')).toMatch(/not an IP address/);
  });

  it('parses IPv6 forms into hextets', () => {
    expect(parseIPv6('::ffff:1.2.3.4')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]);
    expect(parseIPv6('2001:db8::8:800:200c:417a')).toEqual([0x2001, 0xdb8, 0, 0, 8, 0x800, 0x200c, 0x417a]);
    expect(parseIPv6('1:2:3:4:5:6:7:8')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(parseIPv6('1::2::3')).toBeNull();
    expect(parseIPv6('127.0.0.1')).toBeNull();
  });
});

describe('parseCrawlUrl', () => {
  it.each([
    ['file:///etc/passwd', 'unsupported_scheme'],
    ['ftp://example.com/file', 'unsupported_scheme'],
    ['gopher://example.com:70/', 'unsupported_scheme'],
    ['javascript:alert(1)', 'unsupported_scheme'],
    ['data:text/html,<h1>hi</h1>', 'unsupported_scheme'],
    ['not a url', 'invalid_url'],
    ['/relative/path', 'invalid_url'],
    ['http://user:secret@example.com/', 'credentials_in_url'],
    ['http://127.0.0.1/', 'forbidden_address'],
    ['http://127.0.0.1:8080/admin', 'forbidden_address'],
    ['http://localhost/', 'forbidden_address'],
    ['http://LOCALHOST./', 'forbidden_address'],
    ['http://api.localhost/', 'forbidden_address'],
    ['http://[::1]/', 'forbidden_address'],
    ['http://[::ffff:127.0.0.1]/', 'forbidden_address'],
    ['http://[fe80::1]/', 'forbidden_address'],
    ['http://169.254.169.254/latest/meta-data/', 'forbidden_address'],
    ['http://10.1.2.3/', 'forbidden_address'],
    ['http://192.168.0.1/', 'forbidden_address'],
    ['http://0.0.0.0:3000/', 'forbidden_address'],
    // Alternative spellings of 127.0.0.1 that the WHATWG parser normalises.
    ['http://2130706433/', 'forbidden_address'],
    ['http://0x7f.0.0.1/', 'forbidden_address'],
    ['http://127.1/', 'forbidden_address'],
    ['http://0177.0.0.1/', 'forbidden_address'],
    ['http://127.0.0.1./', 'forbidden_address'],
    ['http://%31%32%37.0.0.1/', 'forbidden_address'],
    ['http://\u2460\u2461\u2466.0.0.1/', 'forbidden_address'],
    ['http://localhost%2e/', 'forbidden_address'],
    ['http://[0:0:0:0:0:ffff:7f00:1]/', 'forbidden_address'],
  ])('refuses %s (%s)', (url, code) => {
    let error: unknown;
    try {
      parseCrawlUrl(url);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CrawlRefusedError);
    expect(error).toBeInstanceOf(CrawlPermanentError);
    expect((error as CrawlRefusedError).code).toBe(code);
  });

  it('accepts public URLs and strips the fragment', () => {
    expect(parseCrawlUrl('https://example.com/docs/#intro').href).toBe('https://example.com/docs/');
    expect(parseCrawlUrl('  http://93.184.216.34/x  ').href).toBe('http://93.184.216.34/x');
  });

  it('allowPrivate lifts the address rules but not the scheme rules', () => {
    expect(parseCrawlUrl('http://127.0.0.1:8080/', { allowPrivate: true }).host).toBe('127.0.0.1:8080');
    expect(parseCrawlUrl('http://localhost/', { allowPrivate: true }).hostname).toBe('localhost');
    expect(() => parseCrawlUrl('file:///etc/passwd', { allowPrivate: true })).toThrow(CrawlRefusedError);
  });

  it('explains the refusal', () => {
    expect(() => parseCrawlUrl('http://169.254.169.254/')).toThrow(/refusing to crawl .*169\.254\.169\.254.*metadata/);
  });
});

describe('assertPublicUrl', () => {
  const dns = fakeDns({
    'public.test': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    'loopback.test': ['127.0.0.1'],
    'mixed.test': ['93.184.216.34', '10.0.0.7'],
    'mapped.test': ['::ffff:127.0.0.1'],
    'metadata.test': ['169.254.169.254'],
  });

  it('resolves the host and accepts public addresses', async () => {
    await expect(assertPublicUrl('https://public.test/page', { resolve: dns })).resolves.toBeInstanceOf(URL);
  });

  it.each(['loopback.test', 'mixed.test', 'mapped.test', 'metadata.test'])(
    'refuses %s, which resolves to a forbidden address',
    async (host) => {
      await expect(assertPublicUrl(`http://${host}/`, { resolve: dns })).rejects.toMatchObject({
        name: 'CrawlRefusedError',
        code: 'forbidden_address',
        message: expect.stringContaining('resolves to'),
      });
    },
  );

  it('refuses localhost through the real resolver too', async () => {
    await expect(assertPublicUrl('http://localhost:3000/')).rejects.toBeInstanceOf(CrawlRefusedError);
  });

  it('reports a host that does not resolve as permanent, a DNS failure as transient', async () => {
    await expect(assertPublicUrl('http://nowhere.test/', { resolve: dns })).rejects.toMatchObject({
      name: 'CrawlPermanentError',
      code: 'dns_not_found',
    });
    const flaky: ResolveAll = (_host, _options, callback) =>
      callback(Object.assign(new Error('getaddrinfo EAI_AGAIN'), { code: 'EAI_AGAIN' }), []);
    await expect(assertPublicUrl('http://public.test/', { resolve: flaky })).rejects.toBeInstanceOf(CrawlTransientError);
  });

  it('skips every check with allowPrivate', async () => {
    await expect(assertPublicUrl('http://loopback.test/', { resolve: dns, allowPrivate: true })).resolves.toBeInstanceOf(URL);
  });
});

describe('createGuardedLookup (the lookup every crawler socket uses)', () => {
  const lookupOnce = (lookup: ReturnType<typeof createGuardedLookup>, host: string, all = false) =>
    new Promise<unknown>((resolve, reject) => {
      lookup(host, { all }, (error, address) => (error ? reject(error) : resolve(address)));
    });

  it('validates the addresses of every connection, so DNS rebinding after the check is refused', async () => {
    let call = 0;
    const rebinding = fakeDns({ 'rebind.test': () => (call++ === 0 ? ['93.184.216.34'] : ['127.0.0.1']) });
    await expect(assertPublicUrl('http://rebind.test/', { resolve: rebinding })).resolves.toBeInstanceOf(URL);
    const lookup = createGuardedLookup({ resolve: rebinding });
    await expect(lookupOnce(lookup, 'rebind.test')).rejects.toBeInstanceOf(CrawlRefusedError);
  });

  it('returns the validated address in both callback shapes', async () => {
    const lookup = createGuardedLookup({ resolve: fakeDns({ 'public.test': ['93.184.216.34'] }) });
    await expect(lookupOnce(lookup, 'public.test')).resolves.toBe('93.184.216.34');
    await expect(lookupOnce(lookup, 'public.test', true)).resolves.toEqual([{ address: '93.184.216.34', family: 4 }]);
  });

  it('refuses localhost names without resolving them', async () => {
    const dns = fakeDns({});
    await expect(lookupOnce(createGuardedLookup({ resolve: dns }), 'localhost')).rejects.toBeInstanceOf(CrawlRefusedError);
    expect(dns.calls).toEqual([]);
  });
});
