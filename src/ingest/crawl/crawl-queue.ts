/**
 * The request queue of one crawl, without Crawlee 3.18's 16 MB.
 *
 * Crawlee 3.18 gives every request queue a deduplication cache of 1,000,000 preallocated slots, two
 * arrays of 8 MB (`RequestDeduplicationCache`, apify/crawlee#3843), sized for a crawler that runs
 * for days. We open a queue per crawl, and a crawl fetches at most a few thousand URLs: 300 crawls
 * of a URL that fails at once (one organisation sending crawl requests in a loop) allocated ~5 GB
 * a minute, and the server's RSS passed 1.9 GB before the garbage collector caught up. A cache a
 * little larger than the crawl's fetch budget keeps its purpose (a collision only costs a request
 * sent to the queue twice, which the queue then drops as a duplicate).
 *
 * The cache is internal to Crawlee, so this depends on its shape: test/ingest/crawl-queue.test.ts
 * fails if an upgrade renames it, and the queue is left as Crawlee made it meanwhile.
 */
import { RequestQueue, type Configuration } from '@crawlee/cheerio';

type DedupCache = { size: number; clear: () => void };

const isDedupCache = (v: unknown): v is DedupCache =>
  typeof v === 'object' && v !== null && typeof (v as DedupCache).size === 'number' && typeof (v as DedupCache).clear === 'function';

/** A fresh queue in `config`'s storage whose deduplication cache holds `slots` entries (if Crawlee has one). */
export async function openCrawlQueue(config: Configuration, slots: number): Promise<RequestQueue> {
  const queue = await RequestQueue.open(null, { config });
  const cache = (queue as unknown as { requestSeenCache?: unknown }).requestSeenCache;
  if (isDedupCache(cache) && cache.size > slots) {
    cache.size = slots;
    cache.clear();
  }
  return queue;
}

/** The slots of a queue's deduplication cache, or null without one (for tests). */
export function dedupCacheSlots(queue: RequestQueue): number | null {
  const cache = (queue as unknown as { requestSeenCache?: unknown }).requestSeenCache;
  return isDedupCache(cache) ? cache.size : null;
}
