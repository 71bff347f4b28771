/**
 * The limits of one crawl: pages kept, requests made, bytes read, time spent. It reads time only
 * through the clock it is given (ms since the epoch, so its deadlines compare with the ones
 * sitemap.ts checks), which lets tests move time by hand.
 *
 * Guarantees:
 *  - at most `maxPages` pages are kept; the one that reaches the limit says so, so the crawl stops;
 *  - the fetch budget is 2 x maxPages + 10 requests (redirect duplicates, failures, noindex and empty
 *    pages cost a request without giving a page);
 *  - the total deadline is `totalTimeoutMs` after the clock's reading at construction; sitemap
 *    discovery gets a quarter of it, at most 60 s.
 */

const MIB = 1024 * 1024;

export interface BudgetLimits {
  maxPages: number;
  maxBytesPerPage: number;
  totalTimeoutMs: number;
}

export type BudgetStop = 'max_pages' | 'total_timeout';

export class CrawlBudget {
  readonly startedAt: number;
  /** Requests the crawl may queue, the start page included. */
  readonly fetchLimit: number;
  readonly maxBytesPerPage: number;
  /** Bytes one sitemap file may have (sitemaps run larger than pages: 50 MB is the protocol's cap). */
  readonly maxSitemapBytes: number;
  /** Absolute time after which no further sitemap file is fetched. */
  readonly sitemapDeadline: number;
  private pages = 0;

  constructor(
    private readonly limits: BudgetLimits,
    private readonly now: () => number,
  ) {
    this.startedAt = now();
    this.fetchLimit = limits.maxPages * 2 + 10;
    this.maxBytesPerPage = limits.maxBytesPerPage;
    this.maxSitemapBytes = Math.min(50 * MIB, Math.max(limits.maxBytesPerPage, 10 * MIB));
    this.sitemapDeadline = this.startedAt + Math.min(limits.totalTimeoutMs / 4, 60_000);
  }

  elapsedMs(): number {
    return this.now() - this.startedAt;
  }

  /** Time left before the total deadline, never negative. */
  remainingMs(): number {
    return Math.max(0, this.limits.totalTimeoutMs - this.elapsedMs());
  }

  get timedOut(): boolean {
    return this.remainingMs() === 0;
  }

  get pagesKept(): number {
    return this.pages;
  }

  get pagesFull(): boolean {
    return this.pages >= this.limits.maxPages;
  }

  /** Counts one more kept page; false (nothing counted) when the page limit was already reached. */
  takePage(): boolean {
    if (this.pagesFull) return false;
    this.pages++;
    return true;
  }

  /** Why the crawl must stop now, or null while pages and time are left. */
  exhausted(): BudgetStop | null {
    if (this.pagesFull) return 'max_pages';
    if (this.timedOut) return 'total_timeout';
    return null;
  }
}
