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

/** Bounds on what callers may give the matcher: brace expansion is exponential ({a,b} x 20 = 1 M patterns). */
export const GLOB_LIMITS = { maxPatterns: 20, maxLength: 200, maxExpansion: 64, maxGlobstars: 4 } as const;

/** How many patterns a glob's `{a,b}` alternatives expand to, counted without expanding (capped). */
function braceExpansion(pattern: string, cap: number): number {
  let i = 0;
  const sequence = (inGroup: boolean): number => {
    let product = 1;
    while (i < pattern.length) {
      const ch = pattern[i]!;
      if (ch === '\\') {
        i += 2;
        continue;
      }
      if (inGroup && (ch === ',' || ch === '}')) break;
      i++;
      if (ch !== '{') continue;
      let alternatives = 0;
      for (;;) {
        alternatives += sequence(true);
        if (pattern[i] !== ',') break;
        i++;
      }
      if (pattern[i] === '}') i++;
      product = Math.min(cap + 1, product * Math.max(1, alternatives));
    }
    return product;
  };
  return sequence(false);
}

/** Why a crawl include/exclude glob is refused, or null when it is safe to compile and match. */
export function pathGlobProblem(pattern: string): string | null {
  const { maxLength, maxExpansion, maxGlobstars } = GLOB_LIMITS;
  if (pattern.length > maxLength) return `is longer than ${maxLength} characters`;
  if (/\{[^{}]*\.\.[^{}]*\}/.test(pattern)) return 'uses a {x..y} range; list the alternatives as {a,b,c}';
  if (braceExpansion(pattern, maxExpansion) > maxExpansion) return `expands to more than ${maxExpansion} patterns ({a,b} alternatives multiply)`;
  if ((pattern.match(/\*\*/g) ?? []).length > maxGlobstars) return `has more than ${maxGlobstars} "**"`;
  return null;
}

/**
 * Include/exclude filter on the URL path (query ignored), minimatch syntax: "/docs/**",
 * "**\/*.pdf". Patterns not starting with "/" or "*" are anchored at the root ("docs/**" means
 * "/docs/**"). A path must match some include pattern (when any is given) and no exclude pattern.
 */
export function compilePathFilter(include: readonly string[] = [], exclude: readonly string[] = []): (url: URL) => boolean {
  for (const pattern of [...include, ...exclude]) {
    // Validated when the crawl was requested; checked again because compiling an unsafe one stalls the process.
    const problem = pathGlobProblem(pattern);
    if (problem) throw new Error(`crawl pattern ${JSON.stringify(pattern.slice(0, 50))} ${problem}`);
  }
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
