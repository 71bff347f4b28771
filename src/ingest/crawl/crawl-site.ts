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
 *
 * This file wires the parts to Crawlee: the frontier (crawl-frontier.ts) decides what is queued and
 * at which depth, the budget (crawl-budget.ts) when to stop, the page handler (crawl-page.ts) what a
 * response holds, and robots.txt (robots.ts) is asked before anything is queued.
 */
import { Configuration, HttpCrawler, Log, LogLevel, type HttpCrawlingContext } from '@crawlee/cheerio';
import { CrawlBudget } from './crawl-budget.js';
import { CrawlFrontier, type FrontierCandidate, type Relaxation } from './crawl-frontier.js';
import {
  CRAWL_LIMITS,
  resolveOptions,
  type CrawledPage,
  type CrawlResult,
  type CrawlSiteOptions,
  type CrawlStopReason,
  type CrawlTestHooks,
  type SkippedPage,
  type SkipReason,
} from './crawl-options.js';
import { checkResponseHead, isUnchanged, readPage, unchangedPage } from './crawl-page.js';
import { openCrawlQueue } from './crawl-queue.js';
import { CrawlError, CrawlPermanentError, CrawlTransientError, toCrawlError, type CrawlTransientCode } from './errors.js';
import { RobotsCache, type RobotsRules } from './robots.js';
import { SafeHttpClient } from './safe-http-client.js';
import { discoverSitemapUrls } from './sitemap.js';
import { assertPublicUrl } from './url-guard.js';

export {
  CRAWL_DEFAULTS,
  CRAWL_LIMITS,
  type CrawledPage,
  type CrawledSection,
  type CrawlResult,
  type CrawlSiteOptions,
  type CrawlStopReason,
  type CrawlTestHooks,
  type KnownPage,
  type SkippedPage,
  type SkipReason,
} from './crawl-options.js';

type NewRequest = { url: string; uniqueKey: string; userData: { depth: number; start?: boolean; known?: boolean }; headers?: Record<string, string> };

export async function crawlSite(options: CrawlSiteOptions, hooks: CrawlTestHooks = {}): Promise<CrawlResult> {
  const o = resolveOptions(options);
  o.signal?.throwIfAborted();
  const budget = new CrawlBudget(o, () => Date.now());
  const guard = { allowPrivate: o.allowPrivate, resolve: hooks.resolve, addressPolicy: hooks.addressPolicy };
  const startUrl = await assertPublicUrl(o.url, guard);
  o.signal?.throwIfAborted();

  const botToken = (o.userAgent.split('/')[0] ?? o.userAgent).trim().toLowerCase();
  const frontier = new CrawlFrontier(startUrl, { maxDepth: o.maxDepth, maxQueued: budget.fetchLimit, include: o.include, exclude: o.exclude });

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
  /** Stops the crawl when the budget is spent; true when the crawl is (now) stopping. */
  const stopping = (): boolean => {
    const spent = budget.exhausted();
    if (spent) stop(spent);
    return stopReason !== null;
  };
  const onAbort = (): void => stop('aborted');
  o.signal?.addEventListener('abort', onAbort, { once: true });
  const totalTimer = setTimeout(() => stop('total_timeout'), budget.remainingMs());
  const throwIfStopped = (): void => {
    if (o.signal?.aborted) throw o.signal.reason;
    if (stopReason === 'total_timeout') {
      throw new CrawlTransientError('crawl_timeout', `crawl did not finish within ${o.totalTimeoutMs} ms`, { url: startUrl.href });
    }
  };

  // Every hop of every request (pages, robots.txt, sitemaps) goes through this client, which applies
  // the URL guard after DNS resolution; canFollowRedirect only narrows what the guard already allows.
  const client = new SafeHttpClient({
    ...guard,
    userAgent: o.userAgent,
    timeoutMs: o.timeoutMs,
    maxBytes: budget.maxBytesPerPage,
    signal: cancel.signal,
    maxSockets: o.maxConcurrency + 2,
    canFollowRedirect: async (from, to, original) => {
      if (!frontier.mayRedirect(original, to)) {
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
  // The pages kept, by the key asked for and the key landed on: a shorter path found later updates them.
  const pageByKey = new Map<string, CrawledPage>();
  const keep = (page: CrawledPage, keys: string[]): void => {
    if (!budget.takePage()) return;
    pages.push(page);
    o.onPage?.(pages.length);
    for (const key of keys) pageByKey.set(key, page);
  };

  const toRequest = (candidate: FrontierCandidate, start = false): NewRequest => {
    const request: NewRequest = { url: candidate.url.href, uniqueKey: candidate.key, userData: start ? { depth: 0, start: true } : { depth: candidate.depth } };
    const known = o.known?.get(request.url);
    if (!known || (!known.etag && !known.lastModified)) return request;
    const headers: Record<string, string> = {};
    if (known.etag) headers['if-none-match'] = known.etag;
    if (known.lastModified) headers['if-modified-since'] = known.lastModified;
    return { ...request, headers, userData: { ...request.userData, known: true } };
  };
  /** The frontier's candidates that robots.txt allows, marked queued, as requests. */
  const admit = async ({ candidates, improved }: Relaxation): Promise<NewRequest[]> => {
    for (const { key, depth } of improved) {
      const page = pageByKey.get(key);
      if (page) page.depth = depth;
    }
    const batch: NewRequest[] = [];
    for (const candidate of candidates) {
      // Asked again: other pages may have queued it, or spent the budget, while robots.txt was fetched.
      if (!frontier.canQueue(candidate.key)) continue;
      const rules = await robots.rulesFor(candidate.url);
      if (!rules.isAllowed(candidate.url)) {
        const why = rules.status === 'unreachable' ? `robots.txt of ${candidate.url.origin} is unreachable (${rules.detail})` : 'disallowed by robots.txt';
        skip(candidate.url.href, 'robots_disallowed', why);
        continue;
      }
      frontier.markQueued(candidate.key);
      batch.push(toRequest(candidate));
    }
    return batch;
  };
  const follow = async (links: URL[], depth: number): Promise<void> => {
    const next = await admit(frontier.relax(links, depth));
    if (next.length > 0 && !stopReason) await crawler!.addRequests(next);
  };

  let startError: CrawlError | undefined;
  let startDone = false;

  try {
    // robots.txt of the start origin decides whether we may start at all (RFC 9309).
    const startRules = await robots.rulesFor(startUrl);
    throwIfStopped();
    assertMayStart(startRules, startUrl, botToken);

    const initial: NewRequest[] = [toRequest(frontier.queueStart(), true)];

    // Sitemap entries under the start URL's directory, fetched while the start page loads and queued
    // only once it succeeded (so a failing start URL costs one request, and the start page comes first).
    const sitemapSeeds: Promise<URL[]> =
      o.useSitemap && o.maxDepth >= 1
        ? discoverSitemapUrls({
            client,
            declared: startRules.sitemaps,
            origin: startUrl.origin,
            accept: (url) => frontier.acceptsSitemapEntry(url),
            maxUrls: budget.fetchLimit,
            maxBytes: budget.maxSitemapBytes,
            timeoutMs: o.timeoutMs,
            deadline: budget.sitemapDeadline,
          }).catch(() => [])
        : Promise.resolve([]);
    // The start page's own links are already being fetched while we wait for the sitemap.
    const followSitemap = async (): Promise<void> => follow((await sitemapSeeds).map((url) => frontier.normalize(url)), 1);

    const crawlDelay = startRules.crawlDelaySecs;
    const concurrency = crawlDelay ? 1 : o.maxConcurrency;
    const config = new Configuration({
      persistStorage: false,
      purgeOnStart: false,
      storageClientOptions: { persistStorage: false, writeMetadata: false },
    });

    const requestQueue = await openCrawlQueue(config, budget.fetchLimit * 4);
    crawler = new HttpCrawler(
      {
        requestQueue,
        httpClient: client,
        log: new Log({ level: LogLevel.OFF, prefix: 'GroundworkCrawler' }),
        useSessionPool: false,
        persistCookiesPerSession: false,
        retryOnBlocked: false,
        maxRequestRetries: 1,
        maxRequestsPerCrawl: budget.fetchLimit,
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
            const url = (response as { url?: string }).url ?? request.url;
            try {
              checkResponseHead({ url, status: response.statusCode ?? 0, contentType: response.headers['content-type'], conditional: request.userData.known === true });
            } catch (error) {
              response.destroy();
              throw error;
            }
          },
        ],
        requestHandler: async ({ request, response, body }) => {
          if (stopping()) return;
          const isStart = request.userData.start === true;
          const finalUrl = new URL((response as { url?: string }).url ?? request.loadedUrl ?? request.url);
          if (isStart) frontier.adoptStart(finalUrl);
          const key = request.uniqueKey;
          const finalKey = frontier.key(finalUrl);
          const requestedDepth = Number(request.userData.depth ?? 0);
          if (isUnchanged(response.statusCode, request.userData.known === true)) {
            // Unchanged since the last crawl: keep the page, follow the links it had then.
            if (isStart) startDone = true;
            const links = o.known?.get(request.url)?.links ?? [];
            const depth = frontier.recordUnchanged(key, finalKey, links, requestedDepth);
            keep(unchangedPage(request.url, depth, links), [key]);
            if (stopping()) return;
            await follow(links.map((h) => new URL(h)), depth + 1);
            if (isStart) await followSitemap();
            return;
          }
          if (!frontier.claimLanding(finalKey)) {
            if (isStart) startDone = true;
            skip(request.url, 'duplicate', `same page as ${finalUrl.href}`);
            return;
          }

          const reading = readPage({ url: finalUrl, body, headers: response.headers }, botToken);
          if (stopping()) return;
          const candidates = frontier.followable(reading.links);
          const hrefs = candidates.map((u) => u.href);
          const depth = frontier.recordVisit(key, finalKey, hrefs, requestedDepth);
          if (isStart) startDone = true;

          // Record the page before queueing its links, so the start page is always the first page.
          if (reading.document) keep({ ...reading.document, depth, links: hrefs }, [key, finalKey]);
          else skip(finalUrl.href, reading.skip.reason, reading.skip.message);
          if (stopping()) return;

          await follow(candidates, depth + 1);
          if (isStart) await followSitemap();
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
      stopReason === 'max_pages' ? 'max_pages' : stopReason === 'total_timeout' ? 'total_timeout' : frontier.full ? 'fetch_budget' : 'completed';
    return { pages, skipped, stoppedBy, durationMs: budget.elapsedMs() };
  } finally {
    clearTimeout(totalTimer);
    o.signal?.removeEventListener('abort', onAbort);
    if (!cancel.signal.aborted) cancel.abort(new CrawlTransientError('cancelled', 'crawl finished'));
    client.close();
  }
}

/** Throws when robots.txt of the start origin (or the host itself) does not let the crawl begin. */
function assertMayStart(startRules: RobotsRules, startUrl: URL, botToken: string): void {
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
