/**
 * The dashboard's session cookie and the rules for when a request may use it. The cookie is
 * HttpOnly (no script can read it) and SameSite=Strict (no cross-site request carries it); on top
 * of that, a request authenticated by it must come from the dashboard's own origin and carry the
 * CSRF header, which a cross-site page cannot add without a CORS preflight we never grant.
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

function isHttps(request: Request): boolean {
  return new URL(request.url).protocol === 'https:' || request.headers.get('x-forwarded-proto') === 'https';
}

export function sessionCookie(request: Request, secret: string): string {
  return `${SESSION_COOKIE}=${secret}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(SESSION_TTL_MS / 1000)}${isHttps(request) ? '; Secure' : ''}`;
}

export function clearedSessionCookie(request: Request): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${isHttps(request) ? '; Secure' : ''}`;
}

/**
 * Throws unless the request comes from a page of this very server: Sec-Fetch-Site (sent by every
 * current browser) must say same-origin, the Origin (if any) must name this host, and the CSRF
 * header must be present. Used for every cookie-authenticated request and for sign-in itself.
 */
export function assertDashboardRequest(headers: Headers): void {
  const refused = new AppError('forbidden', 'The dashboard session is only accepted from the dashboard itself');
  const site = headers.get('sec-fetch-site');
  if (site !== null && site !== 'same-origin') throw refused;
  const origin = headers.get('origin');
  const host = headers.get('host');
  if (origin !== null) {
    let originHost: string;
    try {
      originHost = new URL(origin).host;
    } catch {
      throw refused;
    }
    if (!host || originHost !== host) throw refused;
  }
  if (site === null && origin === null) throw refused;
  if (headers.get(CSRF_HEADER) !== '1') throw new AppError('forbidden', `Missing the ${CSRF_HEADER} header`);
}
