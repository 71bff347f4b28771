/**
 * A crawl's request queue (src/ingest/crawl/crawl-queue.ts): Crawlee 3.18 preallocates 16 MB of
 * deduplication slots per queue, and a queue is opened per crawl. The first test fails when an
 * upgrade renames or reshapes that cache: then check whether the new version still preallocates.
 */
import { Configuration } from '@crawlee/cheerio';
import { describe, expect, it } from 'vitest';
import { dedupCacheSlots, openCrawlQueue } from '../../src/ingest/crawl/crawl-queue';

const config = () => new Configuration({ persistStorage: false, purgeOnStart: false, storageClientOptions: { persistStorage: false, writeMetadata: false } });

describe('openCrawlQueue', () => {
  it("sizes the queue's deduplication cache to the crawl", async () => {
    const queue = await openCrawlQueue(config(), 400);
    expect(dedupCacheSlots(queue)).toBe(400);
    // Still a working queue: what is added comes out once.
    await queue.addRequest({ url: 'https://example.org/a' });
    await queue.addRequest({ url: 'https://example.org/a' });
    expect((await queue.fetchNextRequest())?.url).toBe('https://example.org/a');
  });

  it('keeps 40 crawls from holding hundreds of MB between two collections', async () => {
    const before = process.memoryUsage().heapUsed;
    const queues = [];
    for (let i = 0; i < 40; i++) queues.push(await openCrawlQueue(config(), 400));
    // 40 queues of Crawlee's default 1,000,000 slots hold 640 MB; sized to the crawl, well under 1 MB.
    expect((process.memoryUsage().heapUsed - before) / 1e6).toBeLessThan(100);
    expect(queues.every((q) => dedupCacheSlots(q) === 400)).toBe(true);
  });
});
