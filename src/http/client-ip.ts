/** The caller's address as every rate limit and throttle keys it. */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';

/**
 * The client's address for rate limiting. Behind a proxy (TRUST_PROXY) the last X-Forwarded-For
 * entry is the one the proxy appended; earlier entries are client-controlled and ignored.
 */
export function clientIp(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const last = c.req.header('x-forwarded-for')?.split(',').pop()?.trim();
    if (last) return rateLimitKeyForIp(last);
  }
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const remote = incoming?.socket?.remoteAddress;
  return remote ? rateLimitKeyForIp(remote) : 'unknown';
}

/** IPv4 as is (also when IPv4-mapped); IPv6 by its /64, since one subscriber usually holds a whole /64. */
export function rateLimitKeyForIp(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!ip.includes(':')) return ip;
  const [head = '', tail = ''] = ip.split('%')[0]!.split('::');
  const headParts = head ? head.split(':') : [];
  const tailParts = ip.includes('::') && tail ? tail.split(':') : [];
  const groups = [...headParts, ...Array(Math.max(0, 8 - headParts.length - tailParts.length)).fill('0'), ...tailParts];
  return `${groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
