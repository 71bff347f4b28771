/**
 * Replaces a document's chunks and marks it ready, in ONE transaction: readers see either the old
 * chunks or the new ones, and a retry after a crash can never leave duplicates behind (on the
 * embedded database a big document is written in steps instead: see storeChunksInSteps).
 */
import type { DocumentWarning } from '../../ingest/types';
import { sql, type Transaction } from 'kysely';
import type { Database } from '../../../db/types';
import type { Db } from '../../../db/connect';
import type { AppDeps } from '../../context';
import { vectorParam } from '../../../db/vector-param';
import type { DocumentId, KbId } from '../../ids';
import { newId } from '../../ids';
import { storableText } from '../../validation';
import { chunkLanguage, type Language } from '../../text/language';
import { searchVector } from './search-vector';
import { carryCuration, readCuration } from './curate-chunk';
import { embeddingText, type EmbeddedChunk } from './embed-chunks';
import type { DocumentIdentity } from '../../ingest/document-identity';
import { NO_PROGRESS } from './progress';
import { queueVectorIndexing } from './index-vectors';

export type { EmbeddedChunk };

/**
 * Rows per INSERT inside the one transaction (PostgreSQL). The kb_lexicon trigger runs once per
 * statement and upserts every distinct lexeme of the statement's rows, so fewer, bigger statements
 * upsert far fewer rows: on the 619-page PDF (2,496 chunks) storing took 0.8 s less with 1,000 than
 * with 200. 13 parameters a row keeps a statement well under PostgreSQL's 65,535.
 */
const BATCH = 1000;
/**
 * Rows per statement on the embedded database for a big document (storeChunksInSteps). Each
 * statement holds the one PGlite session whole, about 8 ms a row once the HNSW index is large, so
 * every other query waits behind it. PGlite runs in its own thread (db/embedded/database-thread.ts),
 * so a step no longer holds the web process's event loop, but a search still queues behind it: with
 * PGlite on the web thread, 200 rows stalled voice relays for up to 1.2-3.7 s and 25 rows for at most
 * ~250 ms, for no slower ingestion; 25 bounds that queue.
 */
const STEP = 25;

export type StoreMeta = {
  pages: number | null;
  dimensions: number | null;
  model: string | null;
  title?: string | null;
  identity?: DocumentIdentity | null;
  ocrPages?: number[];
  warnings?: DocumentWarning[];
  /** The document's language (text/language.ts): each chunk is indexed with its stemmer, or with its own chunk's where that differs. */
  language?: Language | null;
};

/**
 * Returns false when the document no longer exists (deleted while it was being ingested).
 * `inSteps` (the embedded database): see storeChunksInSteps.
 */
export async function storeChunks(
  deps: Pick<AppDeps, 'db' | 'jobs'>,
  doc: { id: DocumentId; kb_id: KbId },
  chunks: EmbeddedChunk[],
  meta: StoreMeta,
  opts: { inSteps?: boolean } = {},
): Promise<boolean> {
  if (opts.inSteps && chunks.length > STEP) return storeChunksInSteps(deps, doc, chunks, meta);
  const { db } = deps;
  return db.transaction().execute(async (trx) => {
    // Lock the row first: a concurrent delete either happened (we stop) or waits for us.
    const alive = await trx.selectFrom('documents').select('id').where('id', '=', doc.id).forUpdate().executeTakeFirst();
    if (!alive) return false;
    const curation = await readCuration(trx, doc.id);
    await trx.deleteFrom('chunks').where('document_id', '=', doc.id).execute();
    for (let i = 0; i < chunks.length; i += BATCH) {
      const rows = toChunkRows(doc, chunks.slice(i, i + BATCH), meta);
      await trx.insertInto('chunks').values(rows).execute();
    }
    if (curation.length > 0) await carryCuration(trx, doc.id, curation, meta.title ?? null, meta.language ?? null);
    await markReady(trx, doc.id, chunks.length, meta);
    return true;
  });
}

/**
 * The embedded database is one session: a transaction holds it whole. Writing a big document's
 * chunks in one (1,333 chunks for 1 MB of text, with their index and lexicon updates) held every
 * request of every organisation for ~3 s (issue #15, noisy neighbour). So there a big document's
 * chunks are replaced STEP rows per transaction, and other requests run in between. The price:
 * while a big document is re-ingested, searches may miss some of its passages for the seconds the
 * steps take (on PostgreSQL the one transaction stays: it blocks no reader). A crash in between
 * leaves the document 'processing'; the retry starts by deleting what was written. The vectors are
 * stored pending and indexed after the document is ready (index-vectors.ts).
 */
async function storeChunksInSteps(deps: Pick<AppDeps, 'db' | 'jobs'>, doc: { id: DocumentId; kb_id: KbId }, chunks: EmbeddedChunk[], meta: StoreMeta): Promise<boolean> {
  const { db, jobs } = deps;
  const curation = await readCuration(db, doc.id);
  await deleteChunksInSteps(db, doc.id);
  for (let i = 0; i < chunks.length; i += STEP) {
    try {
      await db.insertInto('chunks').values(toChunkRows(doc, chunks.slice(i, i + STEP), meta, { vectorsPending: true })).execute();
    } catch (err) {
      if ((err as { code?: string }).code === FOREIGN_KEY_VIOLATION) return false; // the document was deleted meanwhile
      throw err;
    }
  }
  return db.transaction().execute(async (trx) => {
    const alive = await trx.selectFrom('documents').select(['id', 'kb_id', 'org_id']).where('id', '=', doc.id).forUpdate().executeTakeFirst();
    if (!alive) return false;
    if (curation.length > 0) await carryCuration(trx, doc.id, curation, meta.title ?? null, meta.language ?? null);
    await markReady(trx, doc.id, chunks.length, meta);
    await queueVectorIndexing(jobs, trx, alive);
    return true;
  });
}

/** Deletes a document's chunks STEP rows per statement, so no one statement holds the embedded session long. */
export async function deleteChunksInSteps(db: Db, documentId: DocumentId): Promise<void> {
  for (;;) {
    const batch = db.selectFrom('chunks').select('id').where('document_id', '=', documentId).limit(STEP);
    const { numDeletedRows } = await db.deleteFrom('chunks').where('id', 'in', batch).executeTakeFirst();
    if (Number(numDeletedRows) < STEP) break;
  }
}

/** Rows per statement when chunks are written in steps (the embedded database): see STEP. */
export const STORE_STEP = STEP;

export const FOREIGN_KEY_VIOLATION = '23503';

export async function markReady(trx: Transaction<Database>, documentId: DocumentId, chunkCount: number, meta: StoreMeta): Promise<void> {
  await trx
    .updateTable('documents')
    .set({
      status: 'ready',
      error: null,
      chunk_count: chunkCount,
      pages: meta.pages,
      title: meta.title ? storableText(meta.title) : null,
      identity: meta.identity ? JSON.stringify(storableIdentity(meta.identity)) : null,
      ocr_pages: meta.ocrPages ?? [],
      warnings: JSON.stringify(meta.warnings ?? []),
      language: meta.language ?? null,
      ...NO_PROGRESS,
      updated_at: new Date(),
    })
    .where('id', '=', documentId)
    .execute();
}

export async function markDocumentFailed(db: Db, documentId: DocumentId, reason: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('chunks').where('document_id', '=', documentId).execute();
    await trx.deleteFrom('ingest_pending_chunks').where('document_id', '=', documentId).execute();
    await trx
      .updateTable('documents')
      .set({ status: 'failed', error: reason, chunk_count: 0, ...NO_PROGRESS, updated_at: new Date() })
      .where('id', '=', documentId)
      .execute();
  });
}

/** Rows for the chunks table; `position` comes from the chunk (callers offset it when appending). */
export function toChunkRows(
  doc: { id: DocumentId; kb_id: KbId },
  chunks: EmbeddedChunk[],
  meta: { dimensions: number | null; model: string | null; title?: string | null; identity?: DocumentIdentity | null; language?: Language | null },
  opts: { vectorsPending?: boolean } = {},
) {
  const title = meta.title ? storableText(meta.title) : null;
  const identity = meta.identity ? storableIdentity(meta.identity) : null;
  return chunks.map((c) => {
    // Parsers clean their text already; this is the last line before SQL for anything they missed.
    const text = storableText(c.text);
    const headingPath = c.headingPath.map(storableText);
    return {
      id: newId('chunk'),
      document_id: doc.id,
      kb_id: doc.kb_id,
      position: c.position,
      text,
      heading_path: headingPath,
      page: c.page ?? null,
      url: c.url ? storableText(c.url) : null,
      token_count: c.tokenCount,
      // The title and headings are indexed with the text: a question often names the document or section it is about.
      tsv: searchVector(embeddingText({ text, headingPath }, title, identity), chunkLanguage(text, meta.language ?? null)),
      embedding: c.embedding ? sql<string>`${vectorParam(c.embedding)}::vector` : null,
      embedding_dimensions: c.embedding ? meta.dimensions : null,
      embedding_model: c.embedding ? meta.model : null,
      vector_pending: opts.vectorsPending === true && c.embedding !== null,
    };
  });
}

/** The identity as stored and indexed: its texts cleaned like every other text we store. */
function storableIdentity(identity: DocumentIdentity): DocumentIdentity {
  const text = (s: string | null) => (s === null ? null : storableText(s));
  return { ...identity, subject: text(identity.subject), kind: text(identity.kind), period: text(identity.period), headline: identity.headline.map(storableText), running: identity.running.map(storableText) };
}
