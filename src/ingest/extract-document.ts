/**
 * Turns a stored document into parsed sections: an upload through the parsers (Unstructured when
 * configured, local otherwise), a URL through the crawler, each crawled page becoming sections
 * that keep its URL.
 */
import type { Config } from '../config';
import { parseDocument } from './parse-document';
import type { DocumentType, ParsedDocument, ParseProgress } from './types';
import { PermanentIngestError } from './errors';

export type CrawlSettings = {
  max_pages: number;
  max_depth: number;
  include?: string[];
  exclude?: string[];
  sitemap: boolean;
};

export async function extractUpload(
  bytes: Uint8Array,
  opts: { filename: string; type: DocumentType; config: Pick<Config, 'unstructured' | 'ocrMaxPages' | 'worker'>; onProgress?: ParseProgress },
): Promise<ParsedDocument> {
  return parseDocument(bytes, {
    filename: opts.filename,
    type: opts.type,
    unstructured: opts.config.unstructured ?? undefined,
    onProgress: opts.onProgress,
    ocrMaxPages: opts.config.ocrMaxPages,
    nicedPdfThread: opts.config.worker.inline,
  });
}

export async function extractUrl(
  url: string,
  settings: CrawlSettings,
  opts: { config: Pick<Config, 'crawlAllowPrivate'>; signal?: AbortSignal; onProgress?: ParseProgress },
): Promise<ParsedDocument> {
  // The crawler (Crawlee, cheerio) loads with the first crawl, not with the first upload's parser.
  const { crawlSite } = await import('./crawl/crawl-site');
  const result = await crawlSite({
    url,
    maxPages: settings.max_pages,
    maxDepth: settings.max_depth,
    include: settings.include,
    exclude: settings.exclude,
    useSitemap: settings.sitemap,
    allowPrivate: opts.config.crawlAllowPrivate,
    signal: opts.signal,
    // The page budget is the only total known up front; a smaller site just finishes early.
    onPage: (count) => opts.onProgress?.({ stage: 'parsing', done: count, total: settings.max_pages, unit: 'pages' }),
  });
  const sections = result.pages.flatMap((page) =>
    page.sections.map((s) => ({ text: s.text, headingPath: page.title ? [page.title, ...s.headingPath.filter((h) => h !== page.title)] : s.headingPath, url: page.url })),
  );
  if (sections.length === 0) {
    const why = result.skipped[0] ? ` (${result.skipped[0].url}: ${result.skipped[0].reason})` : '';
    throw new PermanentIngestError('no_text', `No readable pages were found at this URL${why}.`);
  }
  return { title: result.pages[0]?.title, pages: result.pages.length, sections };
}
