/**
 * crawlSite: crawls one site from a start URL and returns its pages' main content, one entry per
 * page (POST /api/ingest/url turns the result into one document whose sections keep their page URL).
 *
 * Guarantees:
 *  - never connects to a private/loopback/link-local/metadata address unless `allowPrivate` (every
 *    hop and every socket is checked after DNS resolution; see url-guard.ts, safe-http-client.ts);
 *  - stays on the start URL's site (see site-scope.ts), honours robots.txt for our user agent;
 *  - returns at most `maxPages` pages (exactly `maxPages` when the site has that many within reach)
 *    and no page farther than `maxDepth` links from the start URL (the shortest path counts, even when
 *    pages are fetched concurrently and out of order);
 *  - bounded: per-page deadline and byte limit, a fetch budget of 2 x maxPages + 10 requests, and a
 *    total deadline after which the pages gathered so far are returned;
 *  - throws CrawlPermanentError / CrawlTransientError when the start URL itself fails (or nothing
 *    indexable was found); failures of other pages are listed in `skipped`;
 *  - Crawlee runs on in-memory storage only (nothing written to ./storage) and logs nothing.
 *
 * Sitemap URLs (robots.txt `Sitemap:` lines, else /sitemap.xml) are seeded as if linked from the start
 * page (depth 1), once the start page succeeded and after its own links. Only entries under the start
 * URL's directory are used (starting at /docs/guide/ does not pull in the whole blog), and they pass the
 * same site, path and robots filters as links.
 */
import { Configuration, HttpCrawler, Log, LogLevel, type HttpCrawlingContext } from '@crawlee/cheerio';
import {
  CrawlError,
  CrawlPermanentError,
  CrawlTransientError,
  httpStatusError,
  toCrawlError,
  type CrawlErrorCode,
  type CrawlTransientCode,
} from './errors.js';
import { openCrawlQueue } from './crawl-queue.js';
import { decodeBody, parseHtmlPage, parseTextPage } from './html-page.js';
import { RobotsCache } from './robots.js';
import { SafeHttpClient } from './safe-http-client.js';
import { discoverSitemapUrls } from './sitemap.js';
import { compilePathFilter, SiteScope } from './site-scope.js';
import { assertPublicUrl, type AddressPolicy, type ResolveAll } from './url-guard.js';

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

const MIB = 1024 * 1024;
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

type ResolvedOptions = Required<Omit<CrawlSiteOptions, 'signal' | 'onPage' | 'known'>> & Pick<CrawlSiteOptions, 'signal' | 'onPage' | 'known'>;

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

function resolveOptions(options: CrawlSiteOptions): ResolvedOptions {
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

function mimeType(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const type = value?.split(';')[0]?.trim().toLowerCase();
  return type || undefined;
}

/** 'html' | 'text' for what we index, null otherwise. Without a Content-Type the bytes decide. */
function contentKind(type: string | undefined, body: Buffer): 'html' | 'text' | null {
  if (type) return HTML_TYPES.has(type) ? 'html' : type === 'text/plain' ? 'text' : null;
  const head = body.subarray(0, 1024);
  if (head.includes(0)) return null;
  return /^\s*</.test(head.toString('latin1')) ? 'html' : 'text';
}

export async function crawlSite(options: CrawlSiteOptions, hooks: CrawlTestHooks = {}): Promise<CrawlResult> {
  const o = resolveOptions(options);
  o.signal?.throwIfAborted();
  const startedAt = Date.now();
  const guard = { allowPrivate: o.allowPrivate, resolve: hooks.resolve, addressPolicy: hooks.addressPolicy };
  const startUrl = await assertPublicUrl(o.url, guard);
  o.signal?.throwIfAborted();

  const botToken = (o.userAgent.split('/')[0] ?? o.userAgent).trim().toLowerCase();
  const budget = o.maxPages * 2 + 10;
  const scope = new SiteScope(startUrl);
  const startKey = scope.key(startUrl);
  const pathAllowed = compilePathFilter(o.include, o.exclude);

  // One controller cancels every in-flight request: user abort, total deadline, enough pages.
  const cancel = new AbortController();
  let stopReason: 'max_pages' | 'total_timeout' | 'aborted' | 'start_failed' | null = null;
  let crawler: HttpCrawler<HttpCrawlingContext> | undefined;
  const stop = (reason: NonNullable<typeof stopReason>): void => {
    if (stopReason) return;
    stopReason = reason;
    crawler?.stop();
    cancel.abort(new CrawlTransientError(reason === 'total_timeout' ? 'crawl_timeout' : 'cancelled', `crawl stopped: ${reason}`));
  };
  const onAbort = (): void => stop('aborted');
  o.signal?.addEventListener('abort', onAbort, { once: true });
  const totalTimer = setTimeout(() => stop('total_timeout'), Math.max(0, o.totalTimeoutMs - (Date.now() - startedAt)));
  const throwIfStopped = (): void => {
    if (o.signal?.aborted) throw o.signal.reason;
    if (stopReason === 'total_timeout') {
      throw new CrawlTransientError('crawl_timeout', `crawl did not finish within ${o.totalTimeoutMs} ms`, { url: startUrl.href });
    }
  };

  const client = new SafeHttpClient({
    ...guard,
    userAgent: o.userAgent,
    timeoutMs: o.timeoutMs,
    maxBytes: o.maxBytesPerPage,
    signal: cancel.signal,
    maxSockets: o.maxConcurrency + 2,
    canFollowRedirect: async (from, to, original) => {
      // The start URL may land anywhere public (its final host joins the site); other pages may not leave.
      if (scope.key(original) !== startKey && !scope.contains(to)) {
        return new CrawlPermanentError('redirect_off_site', `${from.href} redirects off-site to ${to.href}`, { url: original.href });
      }
      if (!(await robots.isAllowed(to))) {
        return new CrawlPermanentError('robots_disallowed', `redirect target ${to.href} is disallowed by robots.txt`, { url: original.href });
      }
      return null;
    },
  });
  const robots = new RobotsCache(client, o.userAgent, Math.min(o.timeoutMs, 10_000));

  const pages: CrawledPage[] = [];
  const skipped: SkippedPage[] = [];
  const skippedKeys = new Set<string>();
  const skip = (url: string, reason: SkipReason, message: string, status?: number): void => {
    const id = `${reason} ${url}`;
    if (skippedKeys.has(id) || skipped.length >= CRAWL_LIMITS.skipped) return;
    skippedKeys.add(id);
    skipped.push(status === undefined ? { url, reason, message } : { url, reason, message, status });
  };

  // Shortest known depth per page key, and the outlinks of processed pages: when a page turns out to be
  // closer than first seen, the improvement is propagated so its links are followed after all.
  const depthOf = new Map<string, number>();
  const enqueued = new Set<string>();
  const outlinksOf = new Map<string, string[]>();
  const pageByKey = new Map<string, CrawledPage>();
  const finalKeys = new Set<string>();

  type NewRequest = { url: string; uniqueKey: string; userData: { depth: number; start?: boolean; known?: boolean }; headers?: Record<string, string> };
  const withConditional = (request: NewRequest): NewRequest => {
    const known = o.known?.get(request.url);
    if (!known || (!known.etag && !known.lastModified)) return request;
    const headers: Record<string, string> = {};
    if (known.etag) headers['if-none-match'] = known.etag;
    if (known.lastModified) headers['if-modified-since'] = known.lastModified;
    return { ...request, headers, userData: { ...request.userData, known: true } };
  };
  const relax = async (candidates: URL[], depth: number): Promise<NewRequest[]> => {
    const batch: NewRequest[] = [];
    const work: Array<[URL, number]> = candidates.map((url) => [url, depth]);
    while (work.length > 0) {
      const [url, d] = work.shift()!;
      if (d > o.maxDepth) continue;
      const key = scope.key(url);
      const known = depthOf.get(key);
      if (known !== undefined && known <= d) continue;
      depthOf.set(key, d);
      const page = pageByKey.get(key);
      if (page) page.depth = d;
      const outlinks = outlinksOf.get(key);
      if (outlinks) {
        for (const href of outlinks) work.push([new URL(href), d + 1]);
        continue;
      }
      if (enqueued.has(key) || enqueued.size >= budget) continue;
      const rules = await robots.rulesFor(url);
      if (!rules.isAllowed(url)) {
        const why = rules.status === 'unreachable' ? `robots.txt of ${url.origin} is unreachable (${rules.detail})` : 'disallowed by robots.txt';
        skip(url.href, 'robots_disallowed', why);
        continue;
      }
      enqueued.add(key);
      batch.push(withConditional({ url: url.href, uniqueKey: key, userData: { depth: d } }));
    }
    return batch;
  };
  const candidatesFrom = (links: URL[]): URL[] => {
    const out: URL[] = [];
    for (const link of links) {
      const url = scope.normalize(link);
      if (scope.contains(url) && pathAllowed(url)) out.push(url);
    }
    return out;
  };

  let startError: CrawlError | undefined;
  let startDone = false;

  try {
    // robots.txt of the start origin decides whether we may start at all (RFC 9309).
    const startRules = await robots.rulesFor(startUrl);
    throwIfStopped();
    if (startRules.status === 'unreachable') {
      const cause = startRules.error;
      if (cause && refusedConnection(cause)) {
        // Nothing listens at the start URL's address: five retries over ~90 s would only say it
        // again. Failed at once; the administrator retries when the site is up.
        throw new CrawlPermanentError('connection_refused', `${startUrl.href}: the server refused the connection (nothing is listening at ${startUrl.host})`, {
          url: startUrl.href,
          cause,
        });
      }
      if (cause && cause.code !== 'http_status') {
        // The host itself is unreachable: report that, not a robots.txt problem.
        throw new CrawlTransientError(cause.code as CrawlTransientCode, `${startUrl.href}: ${cause.message}`, { url: startUrl.href, cause });
      }
      throw new CrawlTransientError(
        'robots_unreachable',
        `robots.txt of ${startUrl.origin} could not be fetched (${startRules.detail}); RFC 9309 treats the site as disallowed until it can`,
        { url: startUrl.href },
      );
    }
    if (!startRules.isAllowed(startUrl)) {
      throw new CrawlPermanentError('robots_disallowed', `robots.txt of ${startUrl.origin} disallows ${startUrl.href} for ${botToken}`, {
        url: startUrl.href,
      });
    }

    depthOf.set(startKey, 0);
    enqueued.add(startKey);
    const initial: NewRequest[] = [withConditional({ url: startUrl.href, uniqueKey: startKey, userData: { depth: 0, start: true } })];

    // Sitemap entries under the start URL's directory, fetched while the start page loads and queued
    // only once it succeeded (so a failing start URL costs one request, and the start page comes first).
    const startDirectory = startUrl.pathname.slice(0, startUrl.pathname.lastIndexOf('/') + 1);
    const sitemapSeeds: Promise<URL[]> =
      o.useSitemap && o.maxDepth >= 1
        ? discoverSitemapUrls({
            client,
            declared: startRules.sitemaps,
            origin: startUrl.origin,
            accept: (url) => {
              const normal = scope.normalize(url);
              return (
                scope.contains(normal) &&
                normal.pathname.startsWith(startDirectory) &&
                pathAllowed(normal) &&
                scope.key(normal) !== startKey
              );
            },
            maxUrls: budget,
            maxBytes: Math.min(50 * MIB, Math.max(o.maxBytesPerPage, 10 * MIB)),
            timeoutMs: o.timeoutMs,
            deadline: startedAt + Math.min(o.totalTimeoutMs / 4, 60_000),
          }).catch(() => [])
        : Promise.resolve([]);

    const crawlDelay = startRules.crawlDelaySecs;
    const concurrency = crawlDelay ? 1 : o.maxConcurrency;
    const config = new Configuration({
      persistStorage: false,
      purgeOnStart: false,
      storageClientOptions: { persistStorage: false, writeMetadata: false },
    });

    const requestQueue = await openCrawlQueue(config, budget * 4);
    crawler = new HttpCrawler(
      {
        requestQueue,
        httpClient: client,
        log: new Log({ level: LogLevel.OFF, prefix: 'GroundworkCrawler' }),
        useSessionPool: false,
        persistCookiesPerSession: false,
        retryOnBlocked: false,
        maxRequestRetries: 1,
        maxRequestsPerCrawl: budget,
        minConcurrency: concurrency,
        maxConcurrency: concurrency,
        ...(crawlDelay ? { maxRequestsPerMinute: Math.max(1, Math.floor(60 / Math.min(crawlDelay, 10))) } : {}),
        navigationTimeoutSecs: o.timeoutMs / 1000 + 5,
        // Parsing plus, for the start page, waiting for sitemap discovery (<= 60 s + one fetch).
        requestHandlerTimeoutSecs: 120 + o.timeoutMs / 1000,
        additionalMimeTypes: ['*/*'],
        // We decode bytes ourselves (header, BOM, <meta charset>); Crawlee must not re-encode.
        forceResponseEncoding: 'utf8',
        statisticsOptions: { saveErrorSnapshots: false, logIntervalSecs: 3600 },
        autoscaledPoolOptions: { maybeRunIntervalSecs: 0.05, loggingIntervalSecs: null },
        postNavigationHooks: [
          ({ request, response }) => {
            // Decide on status and type from the headers, before any body byte is read.
            const status = response.statusCode ?? 0;
            const url = (response as { url?: string }).url ?? request.url;
            if (status === 304 && request.userData.known === true) return;
            if (status >= 400 || status < 200 || status >= 300) {
              response.destroy();
              throw status >= 400 ? httpStatusError(status, url) : new CrawlPermanentError('http_status', `${url} answered HTTP ${status}`, { url, status });
            }
            const type = mimeType(response.headers['content-type']);
            if (type && !HTML_TYPES.has(type) && type !== 'text/plain') {
              response.destroy();
              throw new CrawlPermanentError('unsupported_content_type', `${url} is ${type}, not HTML or text`, { url });
            }
          },
        ],
        requestHandler: async ({ request, response, body }) => {
          if (stopReason) return;
          const isStart = request.userData.start === true;
          const finalUrl = new URL((response as { url?: string }).url ?? request.loadedUrl ?? request.url);
          if (isStart) scope.adopt(finalUrl);
          const key = request.uniqueKey;
          const finalKey = scope.key(finalUrl);
          if (response.statusCode === 304 && request.userData.known === true) {
            // Unchanged since the last crawl: keep the page, follow the links it had then.
            if (isStart) startDone = true;
            finalKeys.add(finalKey);
            const links = o.known?.get(request.url)?.links ?? [];
            const depth = depthOf.get(key) ?? Number(request.userData.depth ?? 0);
            outlinksOf.set(key, links);
            if (pages.length < o.maxPages) {
              const page: CrawledPage = { url: request.url, title: '', sections: [], bytes: 0, depth, contentType: 'html', notModified: true, links };
              pages.push(page);
              o.onPage?.(pages.length);
              pageByKey.set(key, page);
              if (pages.length >= o.maxPages) stop('max_pages');
            }
            if (stopReason) return;
            const next = depth < o.maxDepth ? await relax(links.map((h) => new URL(h)), depth + 1) : [];
            if (next.length > 0 && !stopReason) await crawler!.addRequests(next);
            if (isStart) {
              const seeds = await relax((await sitemapSeeds).map((url) => scope.normalize(url)), 1);
              if (seeds.length > 0 && !stopReason) await crawler!.addRequests(seeds);
            }
            return;
          }
          if (finalKeys.has(finalKey)) {
            if (isStart) startDone = true;
            skip(request.url, 'duplicate', `same page as ${finalUrl.href}`);
            return;
          }
          finalKeys.add(finalKey);
          enqueued.add(finalKey);

          const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
          const type = mimeType(response.headers['content-type']);
          const kind = contentKind(type, bytes);
          if (!kind) throw new CrawlPermanentError('unsupported_content_type', `${finalUrl.href} is not HTML or text`, { url: finalUrl.href });
          const text = decodeBody(bytes, response.headers['content-type'], kind === 'html');
          const parsed = kind === 'html' ? parseHtmlPage(text, finalUrl.href, botToken) : parseTextPage(text, finalUrl.href);
          if (stopReason) return;

          const candidates = candidatesFrom(parsed.links);
          const hrefs = candidates.map((u) => u.href);
          outlinksOf.set(key, hrefs);
          if (finalKey !== key) outlinksOf.set(finalKey, hrefs);
          const depth = Math.min(depthOf.get(key) ?? Number(request.userData.depth ?? 0), depthOf.get(finalKey) ?? Infinity);
          depthOf.set(finalKey, depth);
          if (isStart) startDone = true;

          // Record the page before queueing its links, so the start page is always the first page.
          if (parsed.noindex) skip(finalUrl.href, 'noindex', 'page asks not to be indexed (meta robots)');
          else if (parsed.content.sections.length === 0) skip(finalUrl.href, 'empty', 'no text content found');
          else if (pages.length < o.maxPages) {
            const page: CrawledPage = {
              url: finalUrl.href,
              title: parsed.content.title,
              sections: parsed.content.sections.map((s) => ({ text: s.text, headingPath: s.headingPath, url: finalUrl.href })),
              bytes: bytes.length,
              depth,
              contentType: kind,
              links: hrefs,
              ...(typeof response.headers.etag === 'string' ? { etag: response.headers.etag } : {}),
              ...(typeof response.headers['last-modified'] === 'string' ? { lastModified: response.headers['last-modified'] } : {}),
            };
            pages.push(page);
            o.onPage?.(pages.length);
            pageByKey.set(key, page);
            pageByKey.set(finalKey, page);
            if (pages.length >= o.maxPages) stop('max_pages');
          }
          if (stopReason) return;

          const links = depth < o.maxDepth ? await relax(candidates, depth + 1) : [];
          if (links.length > 0 && !stopReason) await crawler!.addRequests(links);
          if (isStart) {
            // The start page's own links are already being fetched while we wait for the sitemap.
            const seeds = await relax((await sitemapSeeds).map((url) => scope.normalize(url)), 1);
            if (seeds.length > 0 && !stopReason) await crawler!.addRequests(seeds);
          }
        },
        errorHandler: ({ request }, error) => {
          // Called before a retry: only transient failures of a still-running crawl are retried.
          if (stopReason || toCrawlError(error, request.url).permanent) request.noRetry = true;
        },
        failedRequestHandler: ({ request }, error) => {
          const failure = toCrawlError(error, request.url);
          if (request.userData.start === true) {
            startError = failure;
            stop('start_failed');
            return;
          }
          if (stopReason && failure.code === 'cancelled') return;
          skip(request.url, failure.code, failure.message, failure.status);
        },
      },
      config,
    );

    await crawler.run(initial);
    if (o.signal?.aborted) throw o.signal.reason;
    if (!startDone) {
      throwIfStopped();
      throw startError ?? new CrawlTransientError('fetch_failed', `${startUrl.href} could not be crawled`, { url: startUrl.href });
    }
    if (pages.length === 0) {
      const why = skipped.slice(0, 3).map((s) => `${s.url}: ${s.reason}`).join('; ');
      throw new CrawlPermanentError('no_content', `no indexable content found from ${startUrl.href}${why ? ` (${why})` : ''}`, {
        url: startUrl.href,
      });
    }
    const stoppedBy: CrawlStopReason =
      stopReason === 'max_pages' ? 'max_pages' : stopReason === 'total_timeout' ? 'total_timeout' : enqueued.size >= budget ? 'fetch_budget' : 'completed';
    return { pages, skipped, stoppedBy, durationMs: Date.now() - startedAt };
  } finally {
    clearTimeout(totalTimer);
    o.signal?.removeEventListener('abort', onAbort);
    if (!cancel.signal.aborted) cancel.abort(new CrawlTransientError('cancelled', 'crawl finished'));
    client.close();
  }
}

/** True when a connection was refused (ECONNREFUSED) anywhere in the error's cause chain. */
function refusedConnection(error: unknown): boolean {
  for (let e: unknown = error, i = 0; e && typeof e === 'object' && i < 6; e = (e as { cause?: unknown }).cause, i++) {
    if ((e as { code?: unknown }).code === 'ECONNREFUSED') return true;
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.some((x) => (x as { code?: unknown })?.code === 'ECONNREFUSED')) return true;
  }
  return false;
}
