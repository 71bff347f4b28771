/**
 * The dashboard's session cookie and the rules for when a request may use it. The cookie is
 * HttpOnly (no script can read it) and SameSite=Strict (no cross-site request carries it); on top
 * of that, a request authenticated by it must come from the dashboard's own origin and carry the
 * CSRF header, which a cross-site page cannot add: /graphql's CORS preflight never permits it
 * (src/graphql/yoga.ts). Behind a reverse proxy that rewrites Host, TRUST_PROXY makes the proxy's
 * X-Forwarded-Host and X-Forwarded-Proto name the dashboard's origin instead.
 */
import { AppError } from '../errors';
import { SESSION_TTL_MS } from '../services/admin-sessions/admin-session-secret';

export const SESSION_COOKIE = 'gw_admin';
export const CSRF_HEADER = 'x-groundwork-csrf';

export function readSessionCookie(headers: Headers): string | null {
  for (const part of (headers.get('cookie') ?? '').split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === SESSION_COOKIE) return rest.join('=') || null;
  }
  return null;
}

/** Whether X-Forwarded-Host/Proto are believed: only behind a proxy the operator vouches for. */
export type ProxyTrust = { trustProxy?: boolean };

/** The last entry of a forwarded header: the one the trusted proxy wrote (earlier ones came from the client). */
function forwarded(headers: Headers, name: string): string | null {
  const last = headers.get(name)?.split(',').pop()?.trim().toLowerCase();
  return last ? last : null;
}

/** The host and scheme the browser addressed: Host and the URL's scheme, or the proxy's word for them. */
export function dashboardOrigin(request: { url: string; headers: Headers }, opts: ProxyTrust = {}): { host: string | null; protocol: string | null } {
  const headers = request.headers;
  if (opts.trustProxy) {
    const host = forwarded(headers, 'x-forwarded-host');
    const proto = forwarded(headers, 'x-forwarded-proto');
    if (host || proto) return { host: host ?? headers.get('host'), protocol: proto ? `${proto}:` : null };
  }
  let protocol: string | null = null;
  try {
    protocol = new URL(request.url).protocol;
  } catch {
    protocol = null;
  }
  return { host: headers.get('host'), protocol };
}

function isHttps(request: Request, opts: ProxyTrust): boolean {
  return dashboardOrigin(request, opts).protocol === 'https:';
}

export function sessionCookie(request: Request, secret: string, opts: ProxyTrust = {}): string {
  return `${SESSION_COOKIE}=${secret}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(SESSION_TTL_MS / 1000)}${isHttps(request, opts) ? '; Secure' : ''}`;
}

export function clearedSessionCookie(request: Request, opts: ProxyTrust = {}): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${isHttps(request, opts) ? '; Secure' : ''}`;
}

/** Sec-Fetch-Site says same-origin, or (older browsers) the Origin names this very host. */
export function isSameOrigin(request: { url: string; headers: Headers }, opts: ProxyTrust = {}): boolean {
  const headers = request.headers;
  const site = headers.get('sec-fetch-site');
  if (site !== null && site !== 'same-origin') return false;
  const origin = headers.get('origin');
  if (origin !== null) {
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      return false;
    }
    const expected = dashboardOrigin(request, opts);
    if (!expected.host || parsed.host !== expected.host) return false;
    // Only a proxy's word on the scheme is compared: without one, TLS may end before this process.
    if (opts.trustProxy && expected.protocol && forwarded(headers, 'x-forwarded-proto') && parsed.protocol !== expected.protocol) return false;
  }
  return site !== null || origin !== null;
}

/**
 * Throws unless the request comes from a page of this very server: Sec-Fetch-Site (sent by every
 * current browser) must say same-origin, the Origin (if any) must name this host, and the CSRF
 * header must be present. Used for every cookie-authenticated request and for sign-in itself.
 */
export function assertDashboardRequest(headers: Headers, opts: ProxyTrust & { url?: string } = {}): void {
  const refused = new AppError('forbidden', 'The dashboard session is only accepted from the dashboard itself');
  if (!isSameOrigin({ url: opts.url ?? 'http://unknown/', headers }, opts)) throw refused;
  if (headers.get(CSRF_HEADER) !== '1') throw new AppError('forbidden', `Missing the ${CSRF_HEADER} header`);
}
