/**
 * Accepts a URL to crawl: one request is one document whose sections are the pages crawled.
 * The address is checked (scheme, and that it resolves to a public address) before anything is
 * stored; the crawler checks again on every request and redirect, so DNS tricks cannot get past.
 */
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { AppError } from '../../errors';
import { CrawlError, CrawlPermanentError } from '../../ingest/crawl/errors';
import { GLOB_LIMITS, pathGlobProblem } from '../../ingest/crawl/site-scope';
import { assertPublicUrl, parseCrawlUrl } from '../../ingest/crawl/url-guard';
import { parseInput } from '../../validation';
import { requireKb } from '../kbs/require-kb';
import { createDocument } from './create-document';
import type { DocumentDto } from './document-dto';
import { authorize } from '../access/roles';

export const MAX_CRAWL_PAGES = 500;

const ZPathGlob = z
  .string()
  .min(1)
  .max(GLOB_LIMITS.maxLength)
  .superRefine((pattern, ctx) => {
    const problem = pathGlobProblem(pattern);
    if (problem) ctx.addIssue({ code: 'custom', message: `the pattern ${problem}` });
  });

export const ZCrawlOptions = z.object({
  max_pages: z.number().int().min(1).max(MAX_CRAWL_PAGES).default(25),
  max_depth: z.number().int().min(0).max(10).default(3),
  include: z.array(ZPathGlob).max(GLOB_LIMITS.maxPatterns).optional(),
  exclude: z.array(ZPathGlob).max(GLOB_LIMITS.maxPatterns).optional(),
  sitemap: z.boolean().default(true),
});
export type CrawlOptions = z.output<typeof ZCrawlOptions>;

export const ZIngestUrlInput = z
  .object({
    url: z.string().min(1).max(2048),
    kb_id: z.string().min(1),
    /** Re-crawl on a schedule; only changed pages are re-embedded. */
    recrawl: z.enum(['daily', 'weekly']).nullable().default(null),
    ...ZCrawlOptions.shape,
  })
  .strict();
export type IngestUrlInput = z.input<typeof ZIngestUrlInput>;

export async function ingestUrl(ctx: ServiceContext, rawInput: IngestUrlInput): Promise<{ document: DocumentDto }> {
  authorize(ctx, 'document.write');
  const { url, kb_id, recrawl, ...options } = parseInput(ZIngestUrlInput, rawInput);
  const kb = await requireKb(ctx, kb_id);
  let normalized: URL;
  try {
    normalized = await assertPublicUrl(url, { allowPrivate: ctx.config.crawlAllowPrivate });
  } catch (err) {
    // Refused addresses and hosts that do not exist are the caller's to fix; a transient DNS
    // failure is not, so it is left to the crawl job, which retries.
    if (err instanceof CrawlPermanentError) throw new AppError('invalid_input', err.message, { field: 'url' });
    if (!(err instanceof CrawlError)) throw err;
    normalized = parseCrawlUrl(url, { allowPrivate: ctx.config.crawlAllowPrivate });
  }
  const { document } = await createDocument(ctx, {
    kb,
    source: 'url',
    filename: normalized.toString(),
    contentType: 'html',
    crawlOptions: options,
    recrawl,
  });
  return { document };
}
