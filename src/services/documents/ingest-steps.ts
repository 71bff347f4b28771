/**
 * A big document is ingested in bounded steps (issue #26, fair ingestion): every step embeds and
 * stores at most INGEST_STEP_CHUNKS chunks, and before each step the job looks at the queue. While
 * no other job is waiting, the job goes on with its next step itself; once another job waits, it
 * keeps the chunks not stored yet pending (ingest_pending_chunks) and queues the next step as a
 * job of its own, which is picked by (priority, run_at, id): another organisation's small file
 * waits for one step of a big document, never for all of it, even with one worker slot. Before,
 * one 17,000-chunk document held a slot for ~20 minutes.
 *
 * Making every step a job, with every chunk through the pending table even with an empty queue,
 * cost the 619-page PDF (2,461 chunks, 10 steps) ~3 s of CPU writing and reading the chunks back as
 * JSON, and a job hand-off per step, for an order of work that is the same (with nothing else
 * queued, the next step is the next job). Steps also overlap now: the next
 * step's chunks are embedded in the job's thread while the database stores the current ones.
 *
 * Each step run from pending rows moves its chunks from pending to `chunks` in the same
 * transaction, so a step retried after a crash repeats nothing and loses nothing; a first job that
 * dies before it queued a step is retried whole (it deletes what it had stored first). The price,
 * as for storeChunksInSteps: while a big document is (re)ingested, searches see the passages
 * stored so far, not the old version's.
 */
import type { DocumentWarning } from '../../ingest/types';
import type { Db } from '../../../db/connect';
import type { AppDeps } from '../../context';
import type { DocumentId, KbId } from '../../ids';
import type { DocumentIdentity } from '../../ingest/document-identity';
import type { Language } from '../../text/language';
import type { Chunk } from '../../ingest/types';
import { storableText } from '../../validation';
import { embedChunks } from './embed-chunks';
import { ProgressReporter } from './progress';
import { queueVectorIndexing } from './index-vectors';
import { deleteChunksInSteps, FOREIGN_KEY_VIOLATION, markReady, STORE_STEP, toChunkRows, type EmbeddedChunk, type StoreMeta } from './store-chunks';

/**
 * Chunks embedded and stored per step. A step with the local embedder takes a few seconds at most;
 * the bound is what another organisation's file may wait behind this document per worker slot.
 */
export const INGEST_STEP_CHUNKS = 250;
/** Pending rows per INSERT (13,000 parameters at most, far under PostgreSQL's 65,535). */
const PENDING_BATCH = 1000;
/** On the embedded database, where each statement holds the one session: ~10 ms each. */
const PENDING_BATCH_EMBEDDED = 200;

export const ingestStepJobKey = (documentId: string) => `ingest_step:${documentId}`;

type Doc = { id: DocumentId; kb_id: KbId; org_id: string };
type Meta = { pages: number | null; title: string | null; identity: DocumentIdentity | null; ocrPages?: number[]; warnings?: DocumentWarning[]; language?: Language | null };

export type StepOutcome = 'continued' | 'ready' | 'skipped';

/** Where a run of steps takes its chunks from, and how it stores them and hands the rest over. */
type StepSource = {
  /** The next chunks in position order, at most INGEST_STEP_CHUNKS; none when all are taken. */
  take(): Promise<Chunk[]>;
  /** Stores embedded chunks; false when the document was deleted meanwhile. */
  store(chunks: EmbeddedChunk[]): Promise<boolean>;
  /** Keeps `unstored` (and whatever take() has not returned yet) for the next step's job. */
  handOver(unstored: Chunk[]): Promise<boolean>;
};

/**
 * The first job's part for a big document (more than INGEST_STEP_CHUNKS chunks): replaces the old
 * version's chunks, records what every step needs (title, identity), then runs steps from `chunks`
 * in memory until the document is ready or another job is waiting.
 */
export async function ingestInSteps(deps: AppDeps, doc: Doc, chunks: Chunk[], meta: Meta): Promise<StepOutcome> {
  const embedded = deps.config.database.kind === 'embedded';
  // The old version's chunks go first; on the embedded database in short statements (store-chunks.ts).
  if (embedded) await deleteChunksInSteps(deps.db, doc.id);
  const alive = await deps.db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('documents').select('id').where('id', '=', doc.id).forUpdate().executeTakeFirst();
    if (!row) return false;
    if (!embedded) await trx.deleteFrom('chunks').where('document_id', '=', doc.id).execute();
    await trx.deleteFrom('ingest_pending_chunks').where('document_id', '=', doc.id).execute();
    await trx
      .updateTable('documents')
      .set({
        pages: meta.pages,
        title: meta.title ? storableText(meta.title) : null,
        identity: meta.identity ? JSON.stringify(meta.identity) : null,
        ocr_pages: meta.ocrPages ?? [],
        warnings: JSON.stringify(meta.warnings ?? []),
        language: meta.language ?? null,
        updated_at: new Date(),
      })
      .where('id', '=', doc.id)
      .execute();
    return true;
  });
  if (!alive) return 'skipped';
  const provider = deps.embeddings.default;
  const storeMeta: StoreMeta = { ...meta, dimensions: provider.dimensions, model: provider.id };
  let next = 0;
  const source: StepSource = {
    take: async () => chunks.slice(next, (next += INGEST_STEP_CHUNKS)),
    store: (part) => insertChunks(deps, doc, part, storeMeta),
    handOver: async (unstored) => {
      const rest = [...unstored, ...chunks.slice(next)];
      next = chunks.length;
      return keepPending(deps, doc, rest);
    },
  };
  return runSteps(deps, doc, storeMeta, { done: 0, total: chunks.length }, source, { yieldBeforeFirst: true });
}

/** A step job (`documents__ingest_step`): steps from the pending rows until ready or another job waits. */
export async function runIngestionStep(deps: AppDeps, documentId: DocumentId): Promise<StepOutcome> {
  const doc = await deps.db
    .selectFrom('documents')
    .select(['id', 'kb_id', 'org_id', 'status', 'title', 'identity', 'pages', 'ocr_pages', 'warnings', 'language'])
    .where('id', '=', documentId)
    .executeTakeFirst();
  if (!doc) return 'skipped';
  if (doc.status !== 'processing') {
    await deps.db.deleteFrom('ingest_pending_chunks').where('document_id', '=', documentId).execute();
    return 'skipped';
  }
  const provider = deps.embeddings.default;
  const storeMeta: StoreMeta = { pages: doc.pages, dimensions: provider.dimensions, model: provider.id, title: doc.title, identity: doc.identity, ocrPages: doc.ocr_pages, warnings: doc.warnings, language: doc.language };
  const [stored, remaining] = await Promise.all([countRows(deps.db, 'chunks', doc.id), countRows(deps.db, 'ingest_pending_chunks', doc.id)]);
  let after = -1;
  const source: StepSource = {
    take: async () => {
      const rows = await deps.db
        .selectFrom('ingest_pending_chunks')
        .select(['position', 'chunk'])
        .where('document_id', '=', doc.id)
        .where('position', '>', after)
        .orderBy('position')
        .limit(INGEST_STEP_CHUNKS)
        .execute();
      if (rows.length > 0) after = rows[rows.length - 1]!.position;
      return rows.map((p) => (typeof p.chunk === 'string' ? (JSON.parse(p.chunk) as Chunk) : p.chunk));
    },
    store: (part) => movePending(deps, doc, part, storeMeta),
    // The chunks not stored are still pending rows.
    handOver: async () => true,
  };
  return runSteps(deps, doc, storeMeta, { done: stored, total: stored + remaining }, source, { yieldBeforeFirst: false });
}

/**
 * Steps until the source is empty (the document is marked ready) or another job waits (the rest is
 * handed over and the next step queued). While the database stores step n, step n + 1 is embedded
 * here: on the embedded default the database has a thread of its own, so both cores work.
 */
async function runSteps(
  deps: AppDeps,
  doc: Doc,
  meta: StoreMeta,
  count: { done: number; total: number },
  source: StepSource,
  opts: { yieldBeforeFirst: boolean },
): Promise<StepOutcome> {
  const provider = deps.embeddings.default;
  const progress = new ProgressReporter(deps.db, doc.id, deps.logger);
  const prepare = async () => {
    const chunks = await source.take();
    return { chunks, embedded: chunks.length > 0 ? await embedChunks(provider, chunks, meta.title, undefined, meta.identity) : [] };
  };
  let done = count.done;
  let steps = 0;
  let current = prepare();
  try {
    for (;;) {
      const step = await current;
      if (step.chunks.length === 0) break;
      // A step job stores one step before it may yield: two big documents' step jobs would
      // otherwise hand over to each other forever, neither storing anything.
      if ((steps > 0 || opts.yieldBeforeFirst) && (await deps.jobs.jobsWaiting(deps.db))) {
        await progress.close();
        if (!(await source.handOver(step.chunks))) return 'skipped';
        await queueStep(deps, doc);
        return 'continued';
      }
      current = prepare();
      // Awaited at the top of the next turn; a failure there must not surface meanwhile as unhandled.
      current.catch(() => {});
      if (!(await source.store(step.embedded))) return 'skipped';
      done += step.chunks.length;
      steps++;
      progress.report({ stage: 'embedding', done, total: Math.max(count.total, done), unit: 'chunks' });
    }
  } finally {
    await progress.close();
  }
  const stored = await countRows(deps.db, 'chunks', doc.id);
  return deps.db.transaction().execute(async (trx) => {
    const alive = await trx.selectFrom('documents').select('status').where('id', '=', doc.id).forUpdate().executeTakeFirst();
    if (alive?.status !== 'processing') return 'skipped';
    await markReady(trx, doc.id, stored, meta);
    if (deps.config.database.kind === 'embedded') await queueVectorIndexing(deps.jobs, trx, { kb_id: doc.kb_id, org_id: doc.org_id });
    deps.logger.info({ documentId: doc.id, chunks: stored }, 'document ready');
    return 'ready';
  });
}

function queueStep(deps: Pick<AppDeps, 'db' | 'jobs'>, doc: Doc) {
  return deps.jobs.enqueueOrg(deps.db, 'documents__ingest_step', { document_id: doc.id }, { jobKey: ingestStepJobKey(doc.id), orgId: doc.org_id, documentId: doc.id });
}

async function countRows(db: Db, table: 'chunks' | 'ingest_pending_chunks', documentId: DocumentId): Promise<number> {
  const { n } = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('document_id', '=', documentId)
    .executeTakeFirstOrThrow();
  return Number(n);
}

/**
 * Keeps chunks for the next step's job. False when the document was deleted meanwhile.
 *
 * On the embedded database in short statements outside a transaction: a transaction holds the one
 * session for every statement in it, and writing the 24 MB text file's 13,900 chunks in one held it
 * for 1.0 s, while every other organisation's query waited (issue 26). None is needed: the next
 * step's job is queued only after this returns, and a first job that dies before that is retried
 * whole, deleting the pending rows first (ingestInSteps).
 */
async function keepPending(deps: AppDeps, doc: Doc, chunks: Chunk[]): Promise<boolean> {
  const embedded = deps.config.database.kind === 'embedded';
  const batch = embedded ? PENDING_BATCH_EMBEDDED : PENDING_BATCH;
  const write = async (db: Db) => {
    for (let i = 0; i < chunks.length; i += batch) {
      const rows = chunks.slice(i, i + batch).map((c) => ({ document_id: doc.id, position: c.position, chunk: JSON.stringify(c) }));
      await db.insertInto('ingest_pending_chunks').values(rows).execute();
    }
  };
  try {
    if (embedded) await write(deps.db);
    else await deps.db.transaction().execute(write);
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === FOREIGN_KEY_VIOLATION) return false;
    throw err;
  }
}

/**
 * Stores a first job's step: on the embedded database STORE_STEP rows a statement (each holds the
 * one session) with their vectors pending (index-vectors.ts), on PostgreSQL in one transaction. A
 * retry of the job deletes them first.
 */
async function insertChunks(deps: AppDeps, doc: Doc, chunks: EmbeddedChunk[], meta: StoreMeta): Promise<boolean> {
  try {
    if (deps.config.database.kind === 'embedded') {
      for (let i = 0; i < chunks.length; i += STORE_STEP) {
        await deps.db.insertInto('chunks').values(toChunkRows(doc, chunks.slice(i, i + STORE_STEP), meta, { vectorsPending: true })).execute();
      }
    } else {
      await deps.db.insertInto('chunks').values(toChunkRows(doc, chunks, meta)).execute();
    }
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === FOREIGN_KEY_VIOLATION) return false;
    throw err;
  }
}

/**
 * Moves embedded chunks from pending to `chunks`, each statement's rows with their pending rows in
 * one transaction (a retry never duplicates). On the embedded database a transaction holds the one
 * session, so there it is STORE_STEP rows at a time. False when the document was deleted meanwhile.
 */
async function movePending(deps: AppDeps, doc: Doc, chunks: EmbeddedChunk[], meta: StoreMeta): Promise<boolean> {
  const embedded = deps.config.database.kind === 'embedded';
  const size = embedded ? STORE_STEP : chunks.length;
  try {
    for (let i = 0; i < chunks.length; i += size) {
      const part = chunks.slice(i, i + size);
      await deps.db.transaction().execute(async (trx) => {
        await trx.insertInto('chunks').values(toChunkRows(doc, part, meta, { vectorsPending: embedded })).execute();
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
