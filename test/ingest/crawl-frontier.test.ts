/**
 * The crawl's frontier, budget and page handler on plain data: no server, no network, no wall clock.
 */
import { describe, expect, it } from 'vitest';
import { CrawlBudget } from '../../src/ingest/crawl/crawl-budget';
import { CrawlFrontier, type Relaxation } from '../../src/ingest/crawl/crawl-frontier';
import { checkResponseHead, readPage } from '../../src/ingest/crawl/crawl-page';
import { CrawlPermanentError, CrawlTransientError } from '../../src/ingest/crawl/errors';

const START = new URL('https://example.com/docs/index.html');
const u = (path: string, origin = 'https://example.com'): URL => new URL(path, origin);

function frontier(options: Partial<ConstructorParameters<typeof CrawlFrontier>[1]> = {}): CrawlFrontier {
  const f = new CrawlFrontier(START, { maxDepth: 3, maxQueued: 100, ...options });
  f.queueStart();
  return f;
}

/** What the orchestrator does when robots.txt allows everything: queue each candidate still queueable. */
function queueAll(f: CrawlFrontier, relaxation: Relaxation): string[] {
  const queued: string[] = [];
  for (const c of relaxation.candidates) {
    if (!f.canQueue(c.key)) continue;
    f.markQueued(c.key);
    queued.push(`${new URL(c.url).pathname}@${c.depth}`);
  }
  return queued;
}

describe('CrawlFrontier', () => {
  it('queues a URL seen twice once, also across scheme, www and fragment spellings', () => {
    const f = frontier();
    const first = queueAll(f, f.relax(f.followable([u('/docs/a.html'), u('/docs/a.html')]), 1));
    expect(first).toEqual(['/docs/a.html@1']);
    const again = f.followable([u('/docs/a.html', 'http://www.example.com'), u('/docs/a.html#part')]);
    expect(queueAll(f, f.relax(again, 1))).toEqual([]);
    expect(f.canQueue(f.key(u('/docs/a.html')))).toBe(false);
    expect(f.canQueue(f.key(u('/docs/b.html')))).toBe(true);
  });

  it('never queues the start page again', () => {
    const f = frontier();
    expect(queueAll(f, f.relax([START, u('/docs/b.html')], 1))).toEqual(['/docs/b.html@1']);
  });

  it('refuses off-site links and links outside the path globs', () => {
    const f = frontier({ include: ['/docs/**'], exclude: ['/docs/private/**'] });
    const links = [
      u('/docs/ok.html'),
      u('/docs/ok.html', 'https://docs.example.com'),
      u('/docs/ok.html', 'https://example.com:8443'),
      u('/docs/ok.html', 'https://example.org'),
      u('/blog/post.html'),
      u('/docs/private/secret.html'),
      new URL('ftp://example.com/docs/file.html'),
    ];
    expect(f.followable(links).map((l) => l.href)).toEqual(['https://example.com/docs/ok.html']);
  });

  it('upgrades http links of an https site, and lets the start page redirect to a host that joins the site', () => {
    const f = frontier();
    expect(f.followable([u('/docs/x.html', 'http://example.com')]).map((l) => l.href)).toEqual(['https://example.com/docs/x.html']);

    expect(f.mayRedirect(u('/docs/a.html'), u('/elsewhere', 'https://example.net'))).toBe(false);
    expect(f.mayRedirect(START, u('/landing', 'https://example.net'))).toBe(true);
    f.adoptStart(u('/landing', 'https://example.net'));
    expect(f.followable([u('/docs/y.html', 'https://example.net')])).toHaveLength(1);
    expect(f.mayRedirect(u('/docs/a.html'), u('/elsewhere', 'https://example.net'))).toBe(true);
  });

  it('holds the depth limit: nothing beyond maxDepth is proposed', () => {
    const f = frontier({ maxDepth: 2 });
    expect(queueAll(f, f.relax([u('/docs/d1.html')], 1))).toEqual(['/docs/d1.html@1']);
    expect(queueAll(f, f.relax([u('/docs/d2.html')], 2))).toEqual(['/docs/d2.html@2']);
    expect(f.relax([u('/docs/d3.html')], 3)).toEqual({ candidates: [], improved: [] });
    const zero = frontier({ maxDepth: 0 });
    expect(zero.relax([u('/docs/d1.html')], 1).candidates).toEqual([]);
  });

  it('propagates a shorter path through visited pages, so a page too deep before is queued after all', () => {
    const f = frontier({ maxDepth: 2 });
    const a = u('/docs/a.html');
    const b = u('/docs/b.html');
    const c = u('/docs/c.html');
    // a was first reached at depth 2 and visited: its link to b is one hop too deep.
    queueAll(f, f.relax([a], 2));
    expect(f.claimLanding(f.key(a))).toBe(true);
    const depthOfA = f.recordVisit(f.key(a), f.key(a), [b.href], 2);
    expect(depthOfA).toBe(2);
    expect(f.relax([b], depthOfA + 1).candidates).toEqual([]);
    // Then a turns up one hop from the start: b is now within reach, c (linked from b) still not.
    const shorter = f.relax([a], 1);
    expect(shorter.improved).toEqual([{ key: f.key(a), depth: 1 }]);
    expect(queueAll(f, shorter)).toEqual(['/docs/b.html@2']);
    expect(f.relax([c], 3).candidates).toEqual([]);
    // A longer path changes nothing.
    expect(f.relax([a], 2)).toEqual({ candidates: [], improved: [] });
  });

  it('counts a page by where it landed: a second URL redirecting there is a duplicate', () => {
    const f = frontier();
    const landing = f.key(u('/docs/final.html'));
    expect(f.claimLanding(landing)).toBe(true);
    expect(f.claimLanding(landing)).toBe(false);
    // Links to the landing URL are not fetched again.
    expect(queueAll(f, f.relax([u('/docs/final.html')], 1))).toEqual([]);
  });

  it('stops queueing at the fetch budget and says it is full', () => {
    const f = frontier({ maxQueued: 3 });
    const links = ['/docs/1.html', '/docs/2.html', '/docs/3.html', '/docs/4.html'].map((p) => u(p));
    expect(queueAll(f, f.relax(links, 1))).toEqual(['/docs/1.html@1', '/docs/2.html@1']);
    expect(f.full).toBe(true);
    expect(f.canQueue(f.key(u('/docs/5.html')))).toBe(false);
  });

  it('takes sitemap entries only under the start directory, never the start page itself', () => {
    const f = frontier({ exclude: ['/docs/old/**'] });
    expect(f.acceptsSitemapEntry(u('/docs/guide.html'))).toBe(true);
    expect(f.acceptsSitemapEntry(u('/docs/guide.html', 'http://www.example.com'))).toBe(true);
    expect(f.acceptsSitemapEntry(u('/blog/post.html'))).toBe(false);
    expect(f.acceptsSitemapEntry(u('/docs/old/page.html'))).toBe(false);
    expect(f.acceptsSitemapEntry(START)).toBe(false);
    expect(f.acceptsSitemapEntry(u('/docs/guide.html', 'https://example.org'))).toBe(false);
  });
});

describe('CrawlBudget', () => {
  const clock = (start = 1_700_000_000_000) => {
    let now = start;
    return { now: () => now, advance: (ms: number) => (now += ms) };
  };

  it('stops at the page limit: the page that reaches it is kept, the next is not', () => {
    const t = clock();
    const budget = new CrawlBudget({ maxPages: 2, maxBytesPerPage: 1024, totalTimeoutMs: 10_000 }, t.now);
    expect(budget.exhausted()).toBeNull();
    expect(budget.takePage()).toBe(true);
    expect(budget.exhausted()).toBeNull();
    expect(budget.takePage()).toBe(true);
    expect(budget.exhausted()).toBe('max_pages');
    expect(budget.takePage()).toBe(false);
    expect(budget.pagesKept).toBe(2);
  });

  it('stops at the time limit on a fake clock, and only then', () => {
    const t = clock();
    const budget = new CrawlBudget({ maxPages: 10, maxBytesPerPage: 1024, totalTimeoutMs: 5_000 }, t.now);
    expect(budget.remainingMs()).toBe(5_000);
    t.advance(4_999);
    expect(budget.exhausted()).toBeNull();
    expect(budget.remainingMs()).toBe(1);
    expect(budget.elapsedMs()).toBe(4_999);
    t.advance(1);
    expect(budget.exhausted()).toBe('total_timeout');
    t.advance(60_000);
    expect(budget.remainingMs()).toBe(0);
    expect(budget.elapsedMs()).toBe(65_000);
  });

  it('derives the fetch budget, the sitemap deadline and the sitemap byte limit', () => {
    const t = clock(1_000_000);
    const small = new CrawlBudget({ maxPages: 25, maxBytesPerPage: 1024, totalTimeoutMs: 8_000 }, t.now);
    expect(small.fetchLimit).toBe(60);
    expect(small.sitemapDeadline).toBe(1_000_000 + 2_000);
    expect(small.maxSitemapBytes).toBe(10 * 1024 * 1024);
    const large = new CrawlBudget({ maxPages: 1, maxBytesPerPage: 80 * 1024 * 1024, totalTimeoutMs: 3_600_000 }, t.now);
    expect(large.fetchLimit).toBe(12);
    expect(large.sitemapDeadline).toBe(1_000_000 + 60_000);
    expect(large.maxSitemapBytes).toBe(50 * 1024 * 1024);
  });
});

describe('page handler', () => {
  const head = (status: number, contentType?: string, conditional = false) => () =>
    checkResponseHead({ url: 'https://example.com/p', status, contentType, conditional });

  it('refuses a response from its status and type before the body is read', () => {
    expect(head(200, 'text/html; charset=utf-8')).not.toThrow();
    expect(head(200)).not.toThrow();
    expect(head(304, undefined, true)).not.toThrow();
    expect(head(304)).toThrow(CrawlPermanentError);
    expect(head(404, 'text/html')).toThrow(CrawlPermanentError);
    expect(head(503, 'text/html')).toThrow(CrawlTransientError);
    expect(head(200, 'application/pdf')).toThrow(/application\/pdf, not HTML or text/);
  });

  it('gives a document and the links of an HTML page; a noindex page gives only its links', () => {
    const html = '<html><head><title>T</title></head><body><main><h1>Hello</h1><p>Some words here to keep.</p><a href="/next.html#x">n</a></main></body></html>';
    const page = readPage({ url: u('/p.html'), body: Buffer.from(html), headers: { 'content-type': 'text/html', etag: '"v1"' } }, 'groundworkbot');
    expect(page.document?.sections.map((s) => s.text).join(' ')).toContain('Some words here to keep.');
    expect(page.document?.etag).toBe('"v1"');
    expect(page.links.map((l) => l.href)).toEqual(['https://example.com/next.html']);

    const noindex = html.replace('<head>', '<head><meta name="robots" content="noindex">');
    const skipped = readPage({ url: u('/p.html'), body: noindex, headers: { 'content-type': 'text/html' } }, 'groundworkbot');
    expect(skipped.document).toBeNull();
    expect(skipped.document === null && skipped.skip.reason).toBe('noindex');
    expect(skipped.links).toHaveLength(1);
  });

  it('refuses a body without a Content-Type that is binary', () => {
    expect(() => readPage({ url: u('/blob'), body: Buffer.from([0x89, 0x50, 0x00, 0x01]), headers: {} }, 'groundworkbot')).toThrow(/not HTML or text/);
  });
});
