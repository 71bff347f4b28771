/**
 * Vectors stored before they join the HNSW index (migration 1300, `chunks.vector_pending`).
 *
 * On the embedded database a big document's chunks are stored pending: inserting a row into the
 * HNSW index costs ~3.4 ms in PGlite's WebAssembly, two thirds of storing the 619-page PDF, and
 * none of it is needed for the document to be searchable, since retrieval scans a KB's pending
 * vectors exactly (src/answering/retrieval/vector-search.ts). The document is marked ready with its
 * chunks stored, and the `kbs__index_vectors` job queued in the same transaction moves them into
 * the index afterwards, INDEX_STEP rows a statement so no statement holds the one session long.
 * Until then a search of that KB pays the exact scan of its pending rows (~2,500 for the PDF, a
 * few milliseconds). PostgreSQL indexes as it stores: its inserts are cheap and its store is one
 * transaction.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../../../db/types';
import type { Db } from '../../../db/connect';
import type { AppDeps } from '../../context';
import type { KbId } from '../../ids';
import type { JobQueue } from '../jobs-port';

/** Rows moved into the index per statement: as many as a store statement writes (STORE_STEP). */
export const INDEX_STEP = 25;

const jobKey = (kbId: string) => `index_vectors:${kbId}`;

/** The job's `add_job` call, for the transaction that marks a document with pending vectors ready. */
export function indexVectorsJobCall(jobs: JobQueue, kb: { kb_id: string; org_id: string }): RawBuilder<unknown> {
  // The KB's id picks the lane, so a KB's indexing runs one job at a time.
  return jobs.orgJobCall('kbs__index_vectors', { kb_id: kb.kb_id }, { jobKey: jobKey(kb.kb_id), orgId: kb.org_id, documentId: kb.kb_id });
}

export async function queueVectorIndexing(jobs: JobQueue, trx: Kysely<Database>, kb: { kb_id: string; org_id: string }): Promise<void> {
  await sql`select ${indexVectorsJobCall(jobs, kb)}`.execute(trx);
}

/**
 * Moves the KB's pending vectors into the index until none is left ('done'), or until another job
 * waits: then the job queues itself again behind it ('continued'), as a big document's steps do, so
 * another organisation's upload waits for one statement of this, not for all of it.
 */
export async function indexPendingVectors(deps: Pick<AppDeps, 'db' | 'jobs'>, kbId: KbId): Promise<'done' | 'continued' | 'skipped'> {
  const { db, jobs } = deps;
  const kb = await db.selectFrom('knowledge_bases').select(['id', 'org_id']).where('id', '=', kbId).executeTakeFirst();
  if (!kb) return 'skipped';
  for (;;) {
    const batch = db.selectFrom('chunks').select('id').where('kb_id', '=', kbId).where('vector_pending', '=', true).limit(INDEX_STEP);
    const { numUpdatedRows } = await db.updateTable('chunks').set({ vector_pending: false }).where('id', 'in', batch).executeTakeFirst();
    if (Number(numUpdatedRows) < INDEX_STEP) return 'done';
    if (await jobs.jobsWaiting(db)) {
      await jobs.enqueueOrg(db, 'kbs__index_vectors', { kb_id: kbId }, { jobKey: jobKey(kbId), orgId: kb.org_id, documentId: kbId });
      return 'continued';
    }
  }
}

/** How many of the KB's vectors are stored but not yet indexed. */
export async function pendingVectors(db: Db, kbId: KbId): Promise<number> {
  const { n } = await db
    .selectFrom('chunks')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('kb_id', '=', kbId)
    .where('vector_pending', '=', true)
    .executeTakeFirstOrThrow();
  return Number(n);
}
