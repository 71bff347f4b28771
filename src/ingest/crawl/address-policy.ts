/**
 * Which IP addresses the crawler may connect to. Pure functions, no I/O.
 *
 * IPv4: everything except the special-purpose ranges below (RFC 6890 and friends).
 * IPv6: only global unicast (2000::/3) minus its special-purpose sub-ranges; forms that embed an
 * IPv4 address (IPv4-mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16) are judged by the
 * embedded IPv4 address, so ::ffff:127.0.0.1 is as forbidden as 127.0.0.1.
 */
import { isIPv4, isIPv6 } from 'node:net';

type V4Rule = readonly [base: number, prefix: number, label: string];

const V4_RULES: readonly V4Rule[] = [
  [v4('0.0.0.0'), 8, '"this network" 0.0.0.0/8'],
  [v4('10.0.0.0'), 8, 'private 10.0.0.0/8'],
  [v4('100.64.0.0'), 10, 'carrier-grade NAT 100.64.0.0/10'],
  [v4('127.0.0.0'), 8, 'loopback 127.0.0.0/8'],
  [v4('169.254.0.0'), 16, 'link-local / cloud metadata 169.254.0.0/16'],
  [v4('172.16.0.0'), 12, 'private 172.16.0.0/12'],
  [v4('192.0.0.0'), 24, 'IETF protocol assignments 192.0.0.0/24'],
  [v4('192.0.2.0'), 24, 'documentation 192.0.2.0/24'],
  [v4('192.88.99.0'), 24, '6to4 relay anycast 192.88.99.0/24'],
  [v4('192.168.0.0'), 16, 'private 192.168.0.0/16'],
  [v4('198.18.0.0'), 15, 'benchmarking 198.18.0.0/15'],
  [v4('198.51.100.0'), 24, 'documentation 198.51.100.0/24'],
  [v4('203.0.113.0'), 24, 'documentation 203.0.113.0/24'],
  [v4('224.0.0.0'), 4, 'multicast 224.0.0.0/4'],
  [v4('240.0.0.0'), 4, 'reserved / broadcast 240.0.0.0/4'],
];

function v4(address: string): number {
  const parts = address.split('.').map(Number);
  return (((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0);
}

function v4Reason(value: number): string | null {
  for (const [base, prefix, label] of V4_RULES) {
    const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
    if (((value & mask) >>> 0) === base) return label;
  }
  return null;
}

/** Parses an IPv6 address (zone id allowed, embedded dotted quad allowed) into 8 hextets. */
export function parseIPv6(address: string): number[] | null {
  let text = address.replace(/^\[|\]$/g, '');
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  if (!isIPv6(text)) return null;

  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    if (!isIPv4(tail)) return null;
    const value = v4(tail);
    text = `${text.slice(0, lastColon + 1)}${(value >>> 16).toString(16)}:${(value & 0xffff).toString(16)}`;
  }

  const halves = text.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  const hextets = groups.map((group) => Number.parseInt(group, 16));
  return hextets.length === 8 && hextets.every((h) => Number.isInteger(h) && h >= 0 && h <= 0xffff)
    ? hextets
    : null;
}

function v6Reason(h: number[]): string | null {
  const [h0, h1, h2, h3, h4, h5, h6, h7] = h as [number, number, number, number, number, number, number, number];
  const embedded = ((h6 << 16) | h7) >>> 0;

  if (h0 === 0 && h1 === 0 && h2 === 0 && h3 === 0 && h4 === 0) {
    if (h5 === 0xffff) {
      const reason = v4Reason(embedded);
      return reason ? `IPv4-mapped ${reason}` : null;
    }
    if (h5 === 0) {
      if (h6 === 0 && h7 === 0) return 'unspecified ::';
      if (h6 === 0 && h7 === 1) return 'loopback ::1';
      return 'IPv4-compatible ::/96 (deprecated)';
    }
  }
  if (h0 === 0x64 && h1 === 0xff9b) {
    if (h2 === 0 && h3 === 0 && h4 === 0 && h5 === 0) {
      const reason = v4Reason(embedded);
      return reason ? `NAT64-embedded ${reason}` : null;
    }
    if (h2 === 1) return 'local-use NAT64 64:ff9b:1::/48';
  }
  if (h0 === 0x2002) {
    const reason = v4Reason(((h1 << 16) | h2) >>> 0);
    return reason ? `6to4-embedded ${reason}` : null;
  }
  if ((h0 & 0xe000) !== 0x2000) {
    if ((h0 & 0xfe00) === 0xfc00) return 'unique local fc00::/7';
    if ((h0 & 0xffc0) === 0xfe80) return 'link-local fe80::/10';
    if ((h0 & 0xffc0) === 0xfec0) return 'site-local fec0::/10 (deprecated)';
    if ((h0 & 0xff00) === 0xff00) return 'multicast ff00::/8';
    return 'not global unicast (outside 2000::/3)';
  }
  if (h0 === 0x2001 && h1 < 0x200) return 'IETF protocol assignments 2001::/23 (incl. Teredo)';
  if (h0 === 0x2001 && h1 === 0xdb8) return 'documentation 2001:db8::/32';
  if (h0 === 0x3fff && h1 < 0x1000) return 'documentation 3fff::/20';
  return null;
}

/**
 * Why the crawler must not connect to `address`, or null when it may.
 * Anything that is not an IP address literal is refused.
 */
export function forbiddenAddressReason(address: string): string | null {
  const text = address.replace(/^\[|\]$/g, '');
  if (isIPv4(text)) return v4Reason(v4(text));
  const hextets = parseIPv6(text);
  if (hextets) return v6Reason(hextets);
  return `not an IP address: ${address}`;
}
