/**
 * A big document is ingested in bounded steps, each its own job (issue #26, fair ingestion). The
 * first job parses and chunks once and keeps the chunks pending (ingest_pending_chunks); every
 * step then embeds and stores at most INGEST_STEP_CHUNKS of them and queues the next step. A queued
 * job is picked by (priority, run_at, id), so the next step goes behind every job queued meanwhile:
 * another organisation's small file waits for one step of a big document, never for all of it,
 * even with one worker slot. Before, one 17,000-chunk document held a slot for ~20 minutes.
 *
 * Each step moves its chunks from pending to `chunks` in the same transaction, so a step retried
 * after a crash repeats nothing and loses nothing. The price, as for storeChunksInSteps: while a big
 * document is (re)ingested, searches see the passages stored so far, not the old version's.
 */
import type { AppDeps } from '../../context';
import type { DocumentId, KbId } from '../../ids';
import type { DocumentIdentity } from '../../ingest/document-identity';
import type { Chunk } from '../../ingest/types';
import { enqueueOrgJob } from '../../jobs/enqueue';
import { storableText } from '../../validation';
import { embedChunks } from './embed-chunks';
import { ProgressReporter } from './progress';
import { deleteChunksInSteps, FOREIGN_KEY_VIOLATION, markReady, STORE_STEP, toChunkRows, type EmbeddedChunk } from './store-chunks';

/**
 * Chunks embedded and stored per step. A step with the local embedder takes a few seconds at most;
 * the bound is what another organisation's file may wait behind this document per worker slot.
 */
export const INGEST_STEP_CHUNKS = 250;
/** Pending rows per INSERT (13,000 parameters at most, far under PostgreSQL's 65,535). */
const PENDING_BATCH = 1000;

export const ingestStepJobKey = (documentId: string) => `ingest_step:${documentId}`;

type Doc = { id: DocumentId; kb_id: KbId; org_id: string };
type Meta = { pages: number | null; title: string | null; identity: DocumentIdentity | null; ocrPages?: number[] };

/** Keeps a big document's chunks pending and queues its first step. False when the document was deleted meanwhile. */
export async function startSteppedIngestion(deps: AppDeps, doc: Doc, chunks: Chunk[], meta: Meta): Promise<boolean> {
  const embedded = deps.config.database.kind === 'embedded';
  // The old version's chunks go first; on the embedded database in short statements (store-chunks.ts).
  if (embedded) await deleteChunksInSteps(deps.db, doc.id);
  return deps.db.transaction().execute(async (trx) => {
    const alive = await trx.selectFrom('documents').select('id').where('id', '=', doc.id).forUpdate().executeTakeFirst();
    if (!alive) return false;
    if (!embedded) await trx.deleteFrom('chunks').where('document_id', '=', doc.id).execute();
    await trx.deleteFrom('ingest_pending_chunks').where('document_id', '=', doc.id).execute();
    for (let i = 0; i < chunks.length; i += PENDING_BATCH) {
      const rows = chunks.slice(i, i + PENDING_BATCH).map((c) => ({ document_id: doc.id, position: c.position, chunk: JSON.stringify(c) }));
      await trx.insertInto('ingest_pending_chunks').values(rows).execute();
    }
    // What every step needs to index its chunks like the one-job path does: the title and identity.
    await trx
      .updateTable('documents')
      .set({
        pages: meta.pages,
        title: meta.title ? storableText(meta.title) : null,
        identity: meta.identity ? JSON.stringify(meta.identity) : null,
        ocr_pages: meta.ocrPages ?? [],
        updated_at: new Date(),
      })
      .where('id', '=', doc.id)
      .execute();
    await queueStep(trx, doc);
    return true;
  });
}

function queueStep(db: AppDeps['db'], doc: Doc) {
  return enqueueOrgJob(db, 'documents__ingest_step', { document_id: doc.id }, { jobKey: ingestStepJobKey(doc.id), orgId: doc.org_id, documentId: doc.id });
}

export type StepOutcome = 'continued' | 'ready' | 'skipped';

/** One step: embeds and stores the next INGEST_STEP_CHUNKS pending chunks; the last marks the document ready. */
export async function runIngestionStep(deps: AppDeps, documentId: DocumentId): Promise<StepOutcome> {
  const doc = await deps.db
    .selectFrom('documents')
    .select(['id', 'kb_id', 'org_id', 'status', 'title', 'identity', 'pages', 'ocr_pages'])
    .where('id', '=', documentId)
    .executeTakeFirst();
  if (!doc) return 'skipped';
  if (doc.status !== 'processing') {
    await deps.db.deleteFrom('ingest_pending_chunks').where('document_id', '=', documentId).execute();
    return 'skipped';
  }
  const pending = await deps.db
    .selectFrom('ingest_pending_chunks')
    .select(['position', 'chunk'])
    .where('document_id', '=', doc.id)
    .orderBy('position')
    .limit(INGEST_STEP_CHUNKS)
    .execute();
  const provider = deps.embeddings.default;
  const meta = { pages: doc.pages, dimensions: provider.dimensions, model: provider.id, title: doc.title, identity: doc.identity, ocrPages: doc.ocr_pages };
  if (pending.length > 0) {
    const chunks = pending.map((p) => (typeof p.chunk === 'string' ? (JSON.parse(p.chunk) as Chunk) : p.chunk));
    const embedded = await embedChunks(provider, chunks, doc.title, undefined, doc.identity);
    if (!(await movePending(deps, doc, embedded, meta))) return 'skipped';
  }
  const { remaining } = await deps.db
    .selectFrom('ingest_pending_chunks')
    .select((eb) => eb.fn.countAll<string>().as('remaining'))
    .where('document_id', '=', doc.id)
    .executeTakeFirstOrThrow();
  const stored = await deps.db
    .selectFrom('chunks')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('document_id', '=', doc.id)
    .executeTakeFirstOrThrow();
  if (Number(remaining) > 0) {
    const progress = new ProgressReporter(deps.db, doc.id, deps.logger);
    progress.report({ stage: 'embedding', done: Number(stored.n), total: Number(stored.n) + Number(remaining), unit: 'chunks' });
    await progress.close();
    await queueStep(deps.db, doc);
    return 'continued';
  }
  return deps.db.transaction().execute(async (trx) => {
    const alive = await trx.selectFrom('documents').select('status').where('id', '=', doc.id).forUpdate().executeTakeFirst();
    if (alive?.status !== 'processing') return 'skipped';
    await markReady(trx, doc.id, Number(stored.n), meta);
    deps.logger.info({ documentId: doc.id, chunks: Number(stored.n) }, 'document ready');
    return 'ready';
  });
}

/**
 * Moves embedded chunks from pending to `chunks`, each statement's rows with their pending rows in
 * one transaction (a retry never duplicates). On the embedded database a transaction holds the one
 * session, so there it is STORE_STEP rows at a time. False when the document was deleted meanwhile.
 */
async function movePending(deps: AppDeps, doc: Doc, chunks: EmbeddedChunk[], meta: Parameters<typeof toChunkRows>[2]): Promise<boolean> {
  const size = deps.config.database.kind === 'embedded' ? STORE_STEP : chunks.length;
  try {
    for (let i = 0; i < chunks.length; i += size) {
      const part = chunks.slice(i, i + size);
      await deps.db.transaction().execute(async (trx) => {
        await trx.insertInto('chunks').values(toChunkRows(doc, part, meta)).execute();
        await trx
          .deleteFrom('ingest_pending_chunks')
          .where('document_id', '=', doc.id)
          .where('position', 'in', part.map((c) => c.position))
          .execute();
      });
    }
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === FOREIGN_KEY_VIOLATION) return false;
    throw err;
  }
}
