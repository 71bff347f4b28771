/**
 * Crawls a URL document and brings its chunks up to date. The first crawl stores everything; a
 * re-crawl asks for each known page conditionally (ETag / Last-Modified), compares content hashes
 * of the pages that did come back, and re-chunks and re-embeds only pages that are new or changed.
 * Chunks of changed and vanished pages are swapped out in ONE transaction with the new ones, so
 * the document stays answerable throughout. A page only counts as gone when the crawl completed
 * without reaching it, or it answered 404/410: a crawl cut short by a deadline removes nothing.
 */
import { detectLanguageOf } from '../../text/language';
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { AppDeps } from '../../context';
import type { CrawlChanges } from '../../../db/types';
import type { DocumentId, KbId } from '../../ids';
import { chunkDocument } from '../../ingest/chunker';
import type { CrawledPage, KnownPage } from '../../ingest/crawl/crawl-site';
import { PermanentIngestError } from '../../ingest/errors';
import type { CrawlSettings } from '../../ingest/extract-document';
import { carryCuration, readCuration } from './curate-chunk';
import { embedChunks } from './embed-chunks';
import { NO_PROGRESS, type ProgressReporter } from './progress';
import { toChunkRows } from './store-chunks';

const DAY_MS = 24 * 60 * 60 * 1000;
export const RECRAWL_INTERVAL_MS = { daily: DAY_MS, weekly: 7 * DAY_MS } as const;

export type CrawlDocumentRef = { id: DocumentId; kb_id: KbId; filename: string; crawl_options: unknown; recrawl: 'daily' | 'weekly' | null };

function pageHash(page: CrawledPage): string {
  const h = createHash('sha256').update(page.title);
  for (const s of page.sections) h.update('\0').update(s.headingPath.join('\u001f')).update('\0').update(s.text);
  return h.digest('hex');
}

function sectionsOf(page: CrawledPage) {
  return page.sections.map((s) => ({
    text: s.text,
    headingPath: page.title ? [page.title, ...s.headingPath.filter((h) => h !== page.title)] : s.headingPath,
    url: page.url,
  }));
}

/** Returns what changed, or null when the document was deleted meanwhile. */
export async function crawlDocument(
  deps: AppDeps,
  doc: CrawlDocumentRef,
  opts: { full: boolean; progress?: ProgressReporter },
): Promise<(CrawlChanges & { chunks: number }) | null> {
  const settings = doc.crawl_options as CrawlSettings;
  const known = opts.full ? [] : await deps.db.selectFrom('crawl_pages').selectAll().where('document_id', '=', doc.id).execute();
  const knownByUrl = new Map(known.map((k) => [k.url, k]));
  // Loaded on first crawl: crawlee and cheerio are a third of the app's import time (about 0.7 s
  // of CPU), paid by every process start and every test file that never crawls.
  const { crawlSite } = await import('../../ingest/crawl/crawl-site');
  const result = await crawlSite({
    url: doc.filename,
    maxPages: settings.max_pages,
    maxDepth: settings.max_depth,
    include: settings.include,
    exclude: settings.exclude,
    useSitemap: settings.sitemap,
    allowPrivate: deps.config.crawlAllowPrivate,
    known: new Map<string, KnownPage>(known.map((k) => [k.url, { etag: k.etag, lastModified: k.last_modified, links: k.links as string[] }])),
    onPage: (count) => opts.progress?.report({ stage: 'parsing', done: count, total: settings.max_pages, unit: 'pages' }),
  });
  const fetched = result.pages.filter((p) => p.notModified || p.sections.length > 0);
  if (fetched.length === 0) {
    const why = result.skipped[0] ? ` (${result.skipped[0].url}: ${result.skipped[0].reason})` : '';
    throw new PermanentIngestError('no_text', `No readable pages were found at this URL${why}.`);
  }

  const changes: CrawlChanges = { added: 0, changed: 0, removed: 0, unchanged: 0 };
  const toEmbed: CrawledPage[] = [];
  const replaced: string[] = [];
  const now = new Date();
  const pageRows = fetched.map((page) => {
    const before = knownByUrl.get(page.url);
    const hash = page.notModified ? before!.content_hash : pageHash(page);
    let change: 'added' | 'changed' | 'unchanged' = 'unchanged';
    if (before && before.content_hash === hash) changes.unchanged++;
    else {
      if (before) {
        changes.changed++;
        change = 'changed';
        replaced.push(page.url);
      } else {
        changes.added++;
        change = 'added';
      }
      toEmbed.push(page);
    }
    return {
      title: page.notModified ? (before!.title ?? null) : page.title || null,
      fetched_at: now,
      changed_at: change === 'unchanged' ? (before!.changed_at ?? before!.fetched_at ?? now) : now,
      last_change: change,
      document_id: doc.id,
      url: page.url,
      etag: page.notModified ? before!.etag : (page.etag ?? null),
      last_modified: page.notModified ? before!.last_modified : (page.lastModified ?? null),
      content_hash: hash,
      links: JSON.stringify(page.links),
    };
  });
  const seen = new Set(fetched.map((p) => p.url));
  const gone = new Set(result.skipped.filter((s) => s.status === 404 || s.status === 410).map((s) => s.url));
  const removed = known.filter((k) => !seen.has(k.url) && (result.stoppedBy === 'completed' || gone.has(k.url))).map((k) => k.url);
  changes.removed = removed.length;

  opts.progress?.report({ stage: 'chunking' });
  const chunks = chunkDocument({ sections: toEmbed.flatMap(sectionsOf) });
  const provider = deps.embeddings.default;
  const embedded = await embedChunks(provider, chunks, null, opts.progress?.report);

  await opts.progress?.close();
  const failures = result.skipped.map((f) => ({ url: f.url, reason: f.reason, message: f.message, status: f.status ?? null }));
  return deps.db.transaction().execute(async (trx) => {
    const alive = await trx.selectFrom('documents').select(['id', 'language']).where('id', '=', doc.id).forUpdate().executeTakeFirst();
    if (!alive) return null;
    // A full crawl reads the site's language afresh; a re-crawl's changed pages keep the site's.
    const language = (opts.full ? null : alive.language) ?? detectLanguageOf(embedded.map((c) => c.text)) ?? alive.language;
    // Edits and switches on chunks of re-fetched pages carry over to an identical new chunk.
    const curation = await readCuration(trx, doc.id);
    if (opts.full) {
      await trx.deleteFrom('chunks').where('document_id', '=', doc.id).execute();
      await trx.deleteFrom('crawl_pages').where('document_id', '=', doc.id).execute();
    } else if (replaced.length + removed.length > 0) {
      await trx.deleteFrom('chunks').where('document_id', '=', doc.id).where('url', 'in', [...replaced, ...removed]).execute();
      if (removed.length > 0) await trx.deleteFrom('crawl_pages').where('document_id', '=', doc.id).where('url', 'in', removed).execute();
    }
    // New chunks go after the kept ones: positions stay unique without renumbering kept rows.
    const { max } = await trx.selectFrom('chunks').select((eb) => eb.fn.max<number | null>('position').as('max')).where('document_id', '=', doc.id).executeTakeFirstOrThrow();
    const offset = max === null ? 0 : max + 1;
    const rows = toChunkRows(doc, embedded.map((c) => ({ ...c, position: c.position + offset })), { dimensions: provider.dimensions, model: provider.id, language });
    for (let i = 0; i < rows.length; i += 200) await trx.insertInto('chunks').values(rows.slice(i, i + 200)).execute();
    if (curation.length > 0) await carryCuration(trx, doc.id, curation, null, language);
    for (let i = 0; i < pageRows.length; i += 200) {
      await trx
        .insertInto('crawl_pages')
        .values(pageRows.slice(i, i + 200))
        .onConflict((oc) =>
          oc.columns(['document_id', 'url']).doUpdateSet({
            etag: sql`excluded.etag`,
            last_modified: sql`excluded.last_modified`,
            content_hash: sql`excluded.content_hash`,
            links: sql`excluded.links`,
            title: sql`excluded.title`,
            fetched_at: sql`excluded.fetched_at`,
            changed_at: sql`excluded.changed_at`,
            last_change: sql`excluded.last_change`,
          }),
        )
        .execute();
    }
    const { count } = await trx.selectFrom('chunks').select((eb) => eb.fn.countAll<number>().as('count')).where('document_id', '=', doc.id).executeTakeFirstOrThrow();
    const { pages } = await trx.selectFrom('crawl_pages').select((eb) => eb.fn.countAll<number>().as('pages')).where('document_id', '=', doc.id).executeTakeFirstOrThrow();
    await trx
      .updateTable('documents')
      .set({
        status: 'ready',
        error: null,
        chunk_count: Number(count),
        pages: Number(pages),
        last_crawled_at: now,
        next_crawl_at: doc.recrawl ? new Date(now.getTime() + RECRAWL_INTERVAL_MS[doc.recrawl]) : null,
        last_crawl_changes: JSON.stringify(changes),
        crawl_failures: JSON.stringify(failures),
        language,
        ...NO_PROGRESS,
        updated_at: now,
      })
      .where('id', '=', doc.id)
      .execute();
    return { ...changes, chunks: embedded.length };
  });
}
