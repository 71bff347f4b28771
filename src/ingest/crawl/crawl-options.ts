/**
 * What a crawl is asked for and what it returns: the options with their defaults and caps, and the
 * result types. `resolveOptions` is the one place an option is defaulted, bounded or refused.
 */
import type { CrawlErrorCode } from './errors.js';
import type { AddressPolicy, ResolveAll } from './url-guard.js';

export interface CrawlSiteOptions {
  url: string;
  /** Pages returned at most. Default 25, capped at 500. */
  maxPages?: number;
  /** Link hops from the start URL. Default 3 (0 = only the start page), capped at 20. */
  maxDepth?: number;
  /** Path globs (minimatch, e.g. "/docs/**"); only matching pages are crawled. The start URL is exempt. */
  include?: string[];
  /** Path globs excluded from the crawl. The start URL is exempt. */
  exclude?: string[];
  /** Seed from robots.txt `Sitemap:` lines or /sitemap.xml. Default true. */
  useSitemap?: boolean;
  /** Allow loopback/private addresses (CRAWL_ALLOW_PRIVATE=true, local use and tests). Default false. */
  allowPrivate?: boolean;
  /** Deadline per page: connect, redirects, headers and body. Default 15 s. */
  timeoutMs?: number;
  /** Decoded body limit per page. Default 5 MiB. */
  maxBytesPerPage?: number;
  /** Deadline for the whole crawl; pages gathered by then are returned. Default 5 min. */
  totalTimeoutMs?: number;
  /** Sent as User-Agent; its product token ("GroundworkBot") is matched against robots.txt groups. */
  userAgent?: string;
  /** Parallel requests. Default 4, capped at 16; forced to 1 when robots.txt sets a Crawl-delay. */
  maxConcurrency?: number;
  signal?: AbortSignal;
  /** Called with the number of pages gathered so far, after each one. */
  onPage?: (count: number) => void;
  /**
   * Pages of the previous crawl by URL: asked for conditionally (If-None-Match/If-Modified-Since);
   * a 304 returns the page as notModified, and its stored links keep the crawl going past it.
   */
  known?: Map<string, KnownPage>;
}

export interface KnownPage {
  etag?: string | null;
  lastModified?: string | null;
  links: string[];
}

export interface CrawledSection {
  text: string;
  headingPath: string[];
  /** The page the section came from. */
  url: string;
}

export interface CrawledPage {
  /** Final URL after redirects. */
  url: string;
  title: string;
  sections: CrawledSection[];
  /** Size of the decoded response body. */
  bytes: number;
  /** Link hops from the start URL (shortest known path). */
  depth: number;
  contentType: 'html' | 'text';
  etag?: string;
  lastModified?: string;
  /** Answered 304 to a conditional request: unchanged since the previous crawl (no sections). */
  notModified?: boolean;
  /** Same-site links found on the page (kept so a later 304 can still be crawled past). */
  links: string[];
}

export type SkipReason = CrawlErrorCode | 'duplicate' | 'noindex' | 'empty';

export interface SkippedPage {
  url: string;
  reason: SkipReason;
  message: string;
  status?: number;
}

export type CrawlStopReason = 'completed' | 'max_pages' | 'total_timeout' | 'fetch_budget';

export interface CrawlResult {
  pages: CrawledPage[];
  skipped: SkippedPage[];
  stoppedBy: CrawlStopReason;
  durationMs: number;
}

/** Test seams (DNS and address classification); production callers never pass them. */
export interface CrawlTestHooks {
  resolve?: ResolveAll;
  addressPolicy?: AddressPolicy;
}

export const CRAWL_DEFAULTS = Object.freeze({
  maxPages: 25,
  maxDepth: 3,
  useSitemap: true,
  allowPrivate: false,
  timeoutMs: 15_000,
  maxBytesPerPage: 5 * 1024 * 1024,
  totalTimeoutMs: 5 * 60_000,
  userAgent: 'GroundworkBot/1.0',
  maxConcurrency: 4,
});

export const CRAWL_LIMITS = Object.freeze({
  maxPages: 500,
  maxDepth: 20,
  timeoutMs: 120_000,
  maxBytesPerPage: 50 * 1024 * 1024,
  totalTimeoutMs: 60 * 60_000,
  maxConcurrency: 16,
  patterns: 50,
  skipped: 1000,
});

export type ResolvedOptions = Required<Omit<CrawlSiteOptions, 'signal' | 'onPage' | 'known'>> & Pick<CrawlSiteOptions, 'signal' | 'onPage' | 'known'>;

function bounded(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new TypeError(`${name} must be a finite number`);
  return Math.min(max, Math.max(min, Math.floor(value)));
}

function patterns(name: string, value: string[] | undefined): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((p) => typeof p !== 'string' || p.length === 0 || p.length > 500)) {
    throw new TypeError(`${name} must be an array of non-empty path globs of at most 500 characters`);
  }
  if (value.length > CRAWL_LIMITS.patterns) throw new TypeError(`${name} accepts at most ${CRAWL_LIMITS.patterns} patterns`);
  return value;
}

export function resolveOptions(options: CrawlSiteOptions): ResolvedOptions {
  const d = CRAWL_DEFAULTS;
  const l = CRAWL_LIMITS;
  return {
    url: options.url,
    maxPages: bounded('maxPages', options.maxPages, d.maxPages, 1, l.maxPages),
    maxDepth: bounded('maxDepth', options.maxDepth, d.maxDepth, 0, l.maxDepth),
    include: patterns('include', options.include),
    exclude: patterns('exclude', options.exclude),
    useSitemap: options.useSitemap ?? d.useSitemap,
    allowPrivate: options.allowPrivate ?? d.allowPrivate,
    timeoutMs: bounded('timeoutMs', options.timeoutMs, d.timeoutMs, 100, l.timeoutMs),
    maxBytesPerPage: bounded('maxBytesPerPage', options.maxBytesPerPage, d.maxBytesPerPage, 1024, l.maxBytesPerPage),
    totalTimeoutMs: bounded('totalTimeoutMs', options.totalTimeoutMs, d.totalTimeoutMs, 500, l.totalTimeoutMs),
    userAgent: options.userAgent?.trim() || d.userAgent,
    maxConcurrency: bounded('maxConcurrency', options.maxConcurrency, d.maxConcurrency, 1, l.maxConcurrency),
    signal: options.signal,
    onPage: options.onPage,
    known: options.known,
  };
}
