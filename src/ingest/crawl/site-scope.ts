/**
 * What "the same site" means for a crawl, and which paths the caller asked for.
 *
 * Same site = same host name, ignoring case, a trailing dot and one leading "www.", on the same
 * effective port, where http on 80 and https on 443 count as the same port. So http://example.com,
 * https://example.com and https://www.example.com are one site; docs.example.com and
 * example.com:8080 are not. If the start URL redirects (e.g. example.org -> example.net), the host it
 * lands on joins the site too.
 *
 * Pages are deduplicated on a key built the same way (site host + port + path + query), so the http
 * and https (or www and bare) copies of a page are fetched once.
 */
import { Minimatch } from 'minimatch';

function isDefaultPort(url: URL): boolean {
  return url.port === '' || (url.protocol === 'http:' && url.port === '80') || (url.protocol === 'https:' && url.port === '443');
}

export function siteHost(url: URL): string {
  return url.hostname.toLowerCase().replace(/\.$/, '').replace(/^www\./, '');
}

function siteOrigin(url: URL): string {
  return `${siteHost(url)}:${isDefaultPort(url) ? 'default' : url.port}`;
}

export class SiteScope {
  private readonly origins = new Set<string>();
  private secure: boolean;

  constructor(start: URL) {
    this.origins.add(siteOrigin(start));
    this.secure = start.protocol === 'https:';
  }

  /** Adds the host the start URL finally landed on; prefers https if it landed on https. */
  adopt(finalStart: URL): void {
    this.origins.add(siteOrigin(finalStart));
    if (finalStart.protocol === 'https:') this.secure = true;
  }

  contains(url: URL): boolean {
    return (url.protocol === 'http:' || url.protocol === 'https:') && this.origins.has(siteOrigin(url));
  }

  /** Dedupe key: scheme- and www-insensitive, fragment-free. */
  key(url: URL): string {
    return `${siteOrigin(url)}${url.pathname}${url.search}`;
  }

  /** Upgrades an http link on a default port to https once the site is known to serve https. */
  normalize(url: URL): URL {
    const copy = new URL(url.href);
    copy.hash = '';
    if (this.secure && copy.protocol === 'http:' && isDefaultPort(copy)) {
      copy.protocol = 'https:';
      copy.port = '';
    }
    return copy;
  }
}

/**
 * Include/exclude filter on the URL path (query ignored), minimatch syntax: "/docs/**",
 * "**\/*.pdf". Patterns not starting with "/" or "*" are anchored at the root ("docs/**" means
 * "/docs/**"). A path must match some include pattern (when any is given) and no exclude pattern.
 */
export function compilePathFilter(include: readonly string[] = [], exclude: readonly string[] = []): (url: URL) => boolean {
  const anchor = (pattern: string): string => (/^[/*]/.test(pattern) ? pattern : `/${pattern}`);
  const options = { dot: true, nocomment: true, nonegate: true };
  const includes = include.map((p) => new Minimatch(anchor(p), options));
  const excludes = exclude.map((p) => new Minimatch(anchor(p), options));
  return (url) => {
    let path = url.pathname;
    try {
      path = decodeURI(path);
    } catch {
      // keep the raw path when it is not valid percent-encoding
    }
    if (includes.length > 0 && !includes.some((m) => m.match(path))) return false;
    return !excludes.some((m) => m.match(path));
  };
}
