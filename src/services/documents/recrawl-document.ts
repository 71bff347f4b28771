/**
 * Re-crawls of URL documents: on demand ("recrawl now"), on schedule (the graphile-worker cron task
 * enqueues the documents that are due), and the schedule itself (daily, weekly or none). The
 * document stays ready and answerable while its re-crawl runs; only changed pages are re-embedded.
 */
import { z } from 'zod';
import type { AppDeps, ServiceContext } from '../../context';
import { AppError } from '../../errors';
import type { DocumentId } from '../../ids';
import { CrawlPermanentError } from '../../ingest/crawl/errors';
import { isPermanentIngestError } from '../../ingest/errors';
import { parseInput } from '../../validation';
import { crawlDocument, RECRAWL_INTERVAL_MS } from './crawl-document';
import { toDocumentDto, type DocumentDto } from './document-dto';
import { requireDocument, ZDocumentRef, type DocumentRef } from './get-document';
import { ProgressReporter } from './progress';
import { startAutomaticEvalRun } from '../evals/start-eval-run';
import { authorize } from '../access/roles';
import { recordAudit } from '../audit/record-audit';

export const ZRecrawl = z.enum(['daily', 'weekly']).nullable();
export const ZSetRecrawlInput = ZDocumentRef.extend({ recrawl: ZRecrawl }).strict();

export const recrawlJobKey = (documentId: string) => `recrawl:${documentId}`;

async function requireUrlDocument(ctx: ServiceContext, ref: DocumentRef) {
  const doc = await requireDocument(ctx, ref);
  if (doc.source !== 'url') throw new AppError('invalid_input', 'Only documents added by URL can be re-crawled', { field: 'id' });
  return doc;
}

export async function recrawlNow(ctx: ServiceContext, ref: DocumentRef): Promise<{ document: DocumentDto }> {
  authorize(ctx, 'document.write');
  const doc = await requireUrlDocument(ctx, ref);
  // A document still in its first ingestion is crawled by that job; nothing to add.
  await recordAudit(ctx, { action: 'document.recrawl', targetType: 'document', targetId: doc.id, changes: { kb_id: doc.kb_id } });
  if (doc.status !== 'processing') await ctx.jobs.enqueueOrg(ctx.db, 'documents__recrawl', { document_id: doc.id }, { jobKey: recrawlJobKey(doc.id), orgId: ctx.org.id, documentId: doc.id });
  return { document: toDocumentDto(doc) };
}

export async function setRecrawl(ctx: ServiceContext, raw: z.input<typeof ZSetRecrawlInput>): Promise<{ document: DocumentDto }> {
  authorize(ctx, 'document.write');
  const { recrawl, ...ref } = parseInput(ZSetRecrawlInput, raw);
  const doc = await requireUrlDocument(ctx, ref);
  const from = doc.last_crawled_at ?? new Date();
  const row = await ctx.db
    .updateTable('documents')
    .set({ recrawl, next_crawl_at: recrawl ? new Date(from.getTime() + RECRAWL_INTERVAL_MS[recrawl]) : null })
    .where('id', '=', doc.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await recordAudit(ctx, { action: 'document.recrawl_schedule', targetType: 'document', targetId: doc.id, changes: { before: doc.recrawl, after: recrawl } });
  return { document: toDocumentDto(row) };
}

/** The cron task: every URL document whose next re-crawl is due gets a (deduplicated) job. */
export async function enqueueDueRecrawls(deps: AppDeps, now = new Date()): Promise<number> {
  const due = await deps.db
    .selectFrom('documents')
    .select(['id', 'org_id'])
    .where('recrawl', 'is not', null)
    .where('next_crawl_at', '<=', now)
    .where('status', '=', 'ready')
    .limit(1000)
    .execute();
  for (const d of due) await deps.jobs.enqueueOrg(deps.db, 'documents__recrawl', { document_id: d.id }, { jobKey: recrawlJobKey(d.id), orgId: d.org_id, documentId: d.id });
  return due.length;
}

export async function runRecrawl(deps: AppDeps, documentId: DocumentId): Promise<'done' | 'skipped' | 'failed'> {
  const doc = await deps.db
    .selectFrom('documents')
    .select(['id', 'kb_id', 'filename', 'crawl_options', 'recrawl', 'status', 'source'])
    .where('id', '=', documentId)
    .executeTakeFirst();
  if (!doc || doc.source !== 'url' || doc.status === 'processing') return 'skipped';
  const log = deps.logger.child({ documentId, job: 'recrawl' });
  const progress = new ProgressReporter(deps.db, doc.id, log);
  try {
    // A failed document has no chunks to keep: it is crawled in full.
    const changes = await crawlDocument(deps, doc, { full: doc.status === 'failed', progress });
    log.info({ ...changes }, 're-crawl done');
    // What the KB answers from changed: its test set (if any) is run again against it.
    if (changes && changes.added + changes.changed + changes.removed > 0) await startAutomaticEvalRun(deps, doc.kb_id, 'recrawl');
    return changes ? 'done' : 'skipped';
  } catch (err) {
    await progress.close();
    if (!(isPermanentIngestError(err) || err instanceof CrawlPermanentError)) throw err;
    // The site answered nothing usable: the previous chunks stay; try again at the next slot.
    log.warn({ err }, 're-crawl found nothing; previous content kept');
    await deps.db
      .updateTable('documents')
      .set({
        stage: null,
        progress_done: null,
        progress_total: null,
        progress_unit: null,
        next_crawl_at: doc.recrawl ? new Date(Date.now() + RECRAWL_INTERVAL_MS[doc.recrawl]) : null,
      })
      .where('id', '=', doc.id)
      .execute();
    return 'failed';
  }
}
