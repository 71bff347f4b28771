/**
 * The ingestion pipeline for one document: extract -> chunk -> embed -> store. Idempotent: it
 * re-reads the document, does nothing if it was deleted or already finished, and replaces chunks
 * atomically. Permanent problems (encrypted PDF, not a PDF, no text, refused URL) fail the document
 * at once with a reason; anything else is rethrown so graphile-worker retries it with backoff, and
 * the last attempt records the failure.
 */
import type { AppDeps } from '../../context';
import type { DocumentId, KbId } from '../../ids';
import { chunkParsedOffThread } from '../../ingest/chunk-thread';
import { documentIdentity } from '../../ingest/document-identity';
import { documentTitle } from '../../ingest/document-title';
import { detectLanguageOf } from '../../text/language';
import { CrawlPermanentError } from '../../ingest/crawl/errors';
import { isPermanentIngestError, PermanentIngestError } from '../../ingest/errors';
import { MAX_CHUNKS_PER_DOCUMENT, planLimits } from '../plans';
import type { DocumentType, ParsedDocument } from '../../ingest/types';
import { crawlDocument } from './crawl-document';
import { readDocumentFile } from './document-file';
import { embedChunks } from './embed-chunks';
import { INGEST_STEP_CHUNKS, ingestInSteps, runIngestionStep } from './ingest-steps';
import { ProgressReporter } from './progress';
import { markDocumentFailed, storeChunks } from './store-chunks';
import { startAutomaticEvalRun } from '../evals/start-eval-run';

/** 'continued': a big document whose chunks are embedded and stored by its next steps (ingest-steps.ts). */
export type IngestionOutcome = 'ready' | 'failed' | 'skipped' | 'continued';

/**
 * Ingests a document and, when it was ingested again (re-parsed, re-crawled in full, or uploaded
 * again with replace), starts its KB's automatic eval run (see afterReingestion).
 */
export async function runIngestion(
  deps: AppDeps,
  documentId: DocumentId,
  attempt: { number: number; max: number } = { number: 1, max: 1 },
): Promise<IngestionOutcome> {
  const before = await previousVersion(deps, documentId);
  return afterReingestion(deps, before, await ingest(deps, documentId, attempt));
}

/** The document's KB, and whether an earlier version of it was answerable (it still has its chunk count). */
async function previousVersion(deps: AppDeps, documentId: DocumentId) {
  const row = await deps.db.selectFrom('documents').select(['kb_id', 'chunk_count']).where('id', '=', documentId).executeTakeFirst();
  return row ? { kbId: row.kb_id, hadChunks: row.chunk_count > 0 } : null;
}

/**
 * The one place a re-ingestion starts the KB's test set: a document whose earlier version the KB
 * answered from (its chunk count stays the old version's until the new one is ready, through every
 * step job of a big document) became ready again, or failed and lost its chunks. Either way what
 * the KB retrieves changed, as after a re-crawl that changed pages. A first ingestion, or a
 * document that had failed before, starts none: it adds to the KB, it changes nothing measured.
 * startAutomaticEvalRun does nothing for a KB without cases or with a run still queued.
 */
async function afterReingestion(deps: AppDeps, before: { kbId: KbId; hadChunks: boolean } | null, outcome: IngestionOutcome): Promise<IngestionOutcome> {
  if (before?.hadChunks && (outcome === 'ready' || outcome === 'failed')) await startAutomaticEvalRun(deps, before.kbId, 'reingest');
  return outcome;
}

async function ingest(deps: AppDeps, documentId: DocumentId, attempt: { number: number; max: number }): Promise<IngestionOutcome> {
  const doc = await deps.db
    .selectFrom('documents')
    .innerJoin('knowledge_bases as kb', 'kb.id', 'documents.kb_id')
    .select([
      'documents.id',
      'documents.kb_id',
      'documents.source',
      'documents.filename',
      'documents.content_type',
      'documents.status',
      'documents.crawl_options',
      'documents.recrawl',
      'documents.org_id',
      'documents.size_bytes',
    ])
    .where('documents.id', '=', documentId)
    .executeTakeFirst();
  if (!doc || doc.status !== 'processing') return 'skipped';
  const log = deps.logger.child({ documentId, source: doc.source });
  const started = performance.now();
  const progress = new ProgressReporter(deps.db, doc.id, log);
  const onProgress = progress.report;

  try {
    onProgress({ stage: 'parsing' });
    // Parsers and the crawler (pdf.js, mammoth, jsdom, Crawlee) load on the first job, not at boot.
    const { extractUpload } = await import('../../ingest/extract-document');
    let parsed: ParsedDocument;
    if (doc.source === 'upload') {
      const file = await readDocumentFile(deps.db, doc.id);
      if (!file) return 'skipped';
      if (doc.size_bytes !== null && file.length !== doc.size_bytes) {
        // The process that took the upload died while writing its parts (create-document.ts).
        log.warn({ stored: file.length, size: doc.size_bytes }, 'document failed: its upload was interrupted');
        await progress.close();
        await markDocumentFailed(deps.db, doc.id, 'The upload was interrupted before the whole file was stored; upload it again');
        return 'failed';
      }
      parsed = await extractUpload(file, { filename: doc.filename, type: doc.content_type as DocumentType, config: deps.config, onProgress });
    } else {
      const done = await crawlDocument(deps, doc, { full: true, progress });
      if (!done) return 'skipped';
      log.info({ ...done, ms: Math.round(performance.now() - started) }, 'document ready');
      return 'ready';
    }
    onProgress({ stage: 'chunking' });
    const chunks = await chunkParsedOffThread(parsed, (exitCode) => log.warn({ exitCode }, 'the chunking thread ended without an answer; chunked in this thread'));
    await assertChunkQuota(deps, doc.org_id, doc.id, chunks.length);
    // New chunks always get the process's model; a KB still on an older one is moved over by the
    // kbs__reembed job, and until then vector search simply doesn't see the newer vectors.
    const provider = deps.embeddings.default;
    const title = documentTitle(parsed.title, doc);
    const identity = documentIdentity(parsed, doc);
    const language = detectLanguageOf(chunks.map((c) => c.text));
    if (chunks.length > INGEST_STEP_CHUNKS) {
      await progress.close();
      log.info({ chunks: chunks.length, steps: Math.ceil(chunks.length / INGEST_STEP_CHUNKS), ms: Math.round(performance.now() - started) }, 'document chunked; embedding in steps');
      return ingestInSteps(deps, doc, chunks, { pages: parsed.pages ?? null, title, identity, ocrPages: parsed.ocrPages, warnings: parsed.warnings, language });
    }
    const embedded = await embedChunks(provider, chunks, title, onProgress, identity);
    await progress.close();
    const stored = await storeChunks(deps, doc, embedded, {
      pages: parsed.pages ?? null,
      dimensions: provider.dimensions,
      model: provider.id,
      title,
      identity,
      ocrPages: parsed.ocrPages,
      warnings: parsed.warnings,
      language,
    }, { inSteps: deps.config.database.kind === 'embedded' });
    if (!stored) return 'skipped';
    log.info({ chunks: chunks.length, pages: parsed.pages, ocrPages: parsed.ocrPages?.length ?? 0, ms: Math.round(performance.now() - started) }, 'document ready');
    return 'ready';
  } catch (err) {
    const permanent = isPermanentIngestError(err) || err instanceof CrawlPermanentError;
    const message = err instanceof Error ? err.message : String(err);
    if (permanent || attempt.number >= attempt.max) {
      const reason = permanent ? message : `Ingestion failed after ${attempt.number} attempts: ${message}`;
      // A permanent failure is the file's (password, no text, a bomb): its reason is the log line, not a stack.
      log.warn(permanent ? { permanent, code: (err as { code?: string }).code, reason: message } : { err, permanent }, 'document failed');
      await progress.close();
      await markDocumentFailed(deps.db, doc.id, reason);
      return 'failed';
    }
    log.warn({ err, attempt: attempt.number }, 'ingestion attempt failed; will retry');
    await progress.close();
    throw err;
  }
}

/** Refuses, before any embedding, a document past the per-document cap or the plan's chunk quota. */
async function assertChunkQuota(deps: AppDeps, orgId: string, documentId: DocumentId, count: number): Promise<void> {
  if (count > MAX_CHUNKS_PER_DOCUMENT) {
    throw new PermanentIngestError('too_large', `The file makes ${count.toLocaleString('en')} passages; one document may have at most ${MAX_CHUNKS_PER_DOCUMENT.toLocaleString('en')}: split it into smaller files`);
  }
  const org = await deps.db.selectFrom('organizations').select('plan').where('id', '=', orgId as never).executeTakeFirstOrThrow();
  const { stored } = await deps.db
    .selectFrom('documents')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('chunk_count'), eb.lit(0)).as('stored'))
    .where('org_id', '=', orgId as never)
    .where('id', '!=', documentId)
    .executeTakeFirstOrThrow();
  const max = planLimits(org.plan).maxChunks;
  if (Number(stored) + count > max) {
    throw new PermanentIngestError(
      'plan_limit_exceeded',
      `plan_limit_exceeded: the ${org.plan} plan stores at most ${max.toLocaleString('en')} passages per organisation; ${Number(stored).toLocaleString('en')} are stored and this file makes ${count.toLocaleString('en')}`,
    );
  }
}

/** A step of a big document (ingest-steps.ts); a step failing for good fails the document with its reason. */
export async function runIngestionStepJob(deps: AppDeps, documentId: DocumentId, attempt: { number: number; max: number }): Promise<IngestionOutcome> {
  const before = await previousVersion(deps, documentId);
  return afterReingestion(deps, before, await ingestionStep(deps, documentId, attempt));
}

async function ingestionStep(deps: AppDeps, documentId: DocumentId, attempt: { number: number; max: number }): Promise<IngestionOutcome> {
  try {
    return await runIngestionStep(deps, documentId);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (attempt.number < attempt.max) {
      deps.logger.warn({ err, documentId, attempt: attempt.number }, 'ingestion step failed; will retry');
      throw err;
    }
    deps.logger.warn({ err, documentId }, 'document failed');
    await markDocumentFailed(deps.db, documentId, `Ingestion failed after ${attempt.number} attempts: ${message}`);
    return 'failed';
  }
}
