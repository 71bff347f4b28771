/**
 * The frontier of one crawl: which URLs are in scope, which are queued, and how far each page is
 * from the start URL. Plain data in, decisions out: no network, no clock, no Crawlee. robots.txt is
 * asked by the caller between `canQueue` and `markQueued`, because its rules have to be fetched.
 *
 * Guarantees:
 *  - a page (by site key, see site-scope.ts) is queued at most once, and at most `maxQueued` pages are
 *    queued in all (the fetch budget);
 *  - only same-site links whose path passes the include/exclude globs are followed; redirects of
 *    pages other than the start page may not leave the site;
 *  - no page farther than `maxDepth` links is queued, and the shortest known path counts: when a page
 *    turns out to be closer than first seen, the improvement runs through the links of the pages
 *    already visited, so pages that were too deep before are proposed after all.
 */
import { compilePathFilter, SiteScope } from './site-scope.js';

export interface FrontierOptions {
  /** Link hops from the start URL (0 = only the start page). */
  maxDepth: number;
  /** Pages queued at most, the start page included. */
  maxQueued: number;
  include?: readonly string[];
  exclude?: readonly string[];
}

/** A page the frontier would queue at `depth`, once robots.txt allows it. */
export interface FrontierCandidate {
  url: URL;
  key: string;
  depth: number;
}

/** A known page's shortest distance from the start URL got shorter. */
export interface DepthChange {
  key: string;
  depth: number;
}

export interface Relaxation {
  /** Not yet queued when proposed; check `canQueue` again after any await. */
  candidates: FrontierCandidate[];
  /** In the order they were found (a page reached by two keys sees each change). */
  improved: DepthChange[];
}

export class CrawlFrontier {
  readonly startKey: string;
  private readonly scope: SiteScope;
  private readonly pathAllowed: (url: URL) => boolean;
  private readonly startDirectory: string;
  private readonly depthOf = new Map<string, number>();
  private readonly queued = new Set<string>();
  private readonly outlinksOf = new Map<string, string[]>();
  private readonly visited = new Set<string>();

  constructor(
    private readonly start: URL,
    private readonly options: FrontierOptions,
  ) {
    this.scope = new SiteScope(start);
    this.startKey = this.scope.key(start);
    this.pathAllowed = compilePathFilter(options.include, options.exclude);
    this.startDirectory = start.pathname.slice(0, start.pathname.lastIndexOf('/') + 1);
  }

  key(url: URL): string {
    return this.scope.key(url);
  }

  normalize(url: URL): URL {
    return this.scope.normalize(url);
  }

  /** Queues the start page at depth 0 (it is exempt from the path globs). */
  queueStart(): FrontierCandidate {
    this.depthOf.set(this.startKey, 0);
    this.queued.add(this.startKey);
    return { url: new URL(this.start.href), key: this.startKey, depth: 0 };
  }

  /** The host the start URL finally landed on joins the site. */
  adoptStart(finalUrl: URL): void {
    this.scope.adopt(finalUrl);
  }

  /** The start URL may land anywhere public (its final host joins the site); other pages may not leave. */
  mayRedirect(original: URL, to: URL): boolean {
    return this.scope.key(original) === this.startKey || this.scope.contains(to);
  }

  /** A page's links that are worth following: normalized, same site, path allowed. */
  followable(links: readonly URL[]): URL[] {
    const out: URL[] = [];
    for (const link of links) {
      const url = this.scope.normalize(link);
      if (this.scope.contains(url) && this.pathAllowed(url)) out.push(url);
    }
    return out;
  }

  /** Sitemap entries seed the crawl only under the start URL's directory, and pass the link filters. */
  acceptsSitemapEntry(url: URL): boolean {
    const normal = this.scope.normalize(url);
    return (
      this.scope.contains(normal) &&
      normal.pathname.startsWith(this.startDirectory) &&
      this.pathAllowed(normal) &&
      this.scope.key(normal) !== this.startKey
    );
  }

  /**
   * Records that `urls` are reachable at `depth`: returns the ones to queue and the depth changes of
   * pages already known (propagated through the links of visited pages).
   */
  relax(urls: readonly URL[], depth: number): Relaxation {
    const candidates: FrontierCandidate[] = [];
    const improved: DepthChange[] = [];
    const work: Array<[URL, number]> = urls.map((url) => [url, depth]);
    while (work.length > 0) {
      const [url, d] = work.shift()!;
      if (d > this.options.maxDepth) continue;
      const key = this.scope.key(url);
      const known = this.depthOf.get(key);
      if (known !== undefined && known <= d) continue;
      this.depthOf.set(key, d);
      if (known !== undefined) improved.push({ key, depth: d });
      const outlinks = this.outlinksOf.get(key);
      if (outlinks) {
        for (const href of outlinks) work.push([new URL(href), d + 1]);
        continue;
      }
      if (this.canQueue(key)) candidates.push({ url, key, depth: d });
    }
    return { candidates, improved };
  }

  /** False once the page is queued or the fetch budget is spent. */
  canQueue(key: string): boolean {
    return !this.queued.has(key) && this.queued.size < this.options.maxQueued;
  }

  markQueued(key: string): void {
    this.queued.add(key);
  }

  /** True when `maxQueued` pages were queued: the crawl may have stopped short of the site. */
  get full(): boolean {
    return this.queued.size >= this.options.maxQueued;
  }

  /**
   * Claims the page a fetch landed on. False when another URL already landed there (a duplicate);
   * otherwise the page counts as queued, so links to its final URL are not fetched again.
   */
  claimLanding(finalKey: string): boolean {
    if (this.visited.has(finalKey)) return false;
    this.visited.add(finalKey);
    this.queued.add(finalKey);
    return true;
  }

  /**
   * A fetched page and its followable links (hrefs). Returns its depth: the shortest known path to
   * either the URL asked for (`key`) or the one it landed on.
   */
  recordVisit(key: string, finalKey: string, links: string[], requestedDepth: number): number {
    this.outlinksOf.set(key, links);
    if (finalKey !== key) this.outlinksOf.set(finalKey, links);
    const depth = Math.min(this.depthOf.get(key) ?? requestedDepth, this.depthOf.get(finalKey) ?? Infinity);
    this.depthOf.set(finalKey, depth);
    return depth;
  }

  /** A page unchanged since the previous crawl (304): its stored links stand in for its body. */
  recordUnchanged(key: string, finalKey: string, links: string[], requestedDepth: number): number {
    this.visited.add(finalKey);
    this.outlinksOf.set(key, links);
    return this.depthOf.get(key) ?? requestedDepth;
  }
}
