/**
 * A crawled site page by page: every page the last crawl read (title, chunks, when it was last
 * fetched, when its content last changed, and whether that crawl found it added, changed or
 * unchanged), then the pages it could not use, each with the reason in words and the technical
 * detail. Only URL documents have pages.
 */
import type { ServiceContext } from '../../context';
import { AppError } from '../../errors';
import { explainCrawlFailure, type CrawlPageState } from './explain-failure';
import { requireDocument, type DocumentRef } from './get-document';
import { authorize } from '../access/roles';

export type CrawlPageDto = {
  url: string;
  title: string | null;
  state: CrawlPageState;
  chunks: number;
  fetched_at: string | null;
  changed_at: string | null;
  /** How the last crawl found the page; null for pages of crawls before migration 0920, and for failures. */
  last_change: 'added' | 'changed' | 'unchanged' | null;
  reason: string | null;
  detail: string | null;
};

const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);

export async function listCrawlPages(ctx: ServiceContext, ref: DocumentRef): Promise<{ pages: CrawlPageDto[] }> {
  authorize(ctx, 'content.read');
  const doc = await requireDocument(ctx, ref);
  if (doc.source !== 'url') throw new AppError('invalid_input', 'Only documents added by URL have crawled pages', { field: 'id' });
  const [pages, counts] = await Promise.all([
    ctx.db.selectFrom('crawl_pages').select(['url', 'title', 'fetched_at', 'changed_at', 'last_change']).where('document_id', '=', doc.id).orderBy('url').execute(),
    ctx.db
      .selectFrom('chunks')
      .select(['url', (eb) => eb.fn.countAll<number>().as('n')])
      .where('document_id', '=', doc.id)
      .groupBy('url')
      .execute(),
  ]);
  const chunksOf = new Map(counts.map((c) => [c.url, Number(c.n)]));
  const read: CrawlPageDto[] = pages.map((p) => ({
    url: p.url,
    title: p.title,
    state: 'ready',
    chunks: chunksOf.get(p.url) ?? 0,
    fetched_at: iso(p.fetched_at) ?? iso(doc.last_crawled_at),
    changed_at: iso(p.changed_at),
    last_change: p.last_change,
    reason: null,
    detail: null,
  }));
  const known = new Set(pages.map((p) => p.url));
  const failed: CrawlPageDto[] = (doc.crawl_failures ?? [])
    .filter((f) => !known.has(f.url))
    .map((f) => {
      const why = explainCrawlFailure(f);
      return { url: f.url, title: null, state: why.state, chunks: 0, fetched_at: iso(doc.last_crawled_at), changed_at: null, last_change: null, reason: why.summary, detail: why.detail };
    });
  // Failures first: they are what needs attention.
  return { pages: [...failed.filter((p) => p.state === 'failed'), ...read, ...failed.filter((p) => p.state !== 'failed')] };
}
