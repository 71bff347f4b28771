/**
 * A big document's steps (src/services/documents/ingest-steps.ts): its first job goes on from step
 * to step while no other job waits, so with an empty queue it is ready in that one job and no chunk
 * goes through the pending table; once a job waits, the chunks not stored yet (including a step
 * already embedded but not stored) are handed over to a step job queued behind it. Either way every
 * chunk is stored exactly once. On the embedded database the vectors join the HNSW index after the
 * document is ready (index-vectors.ts); until then retrieval finds them by an exact scan.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EmbeddingProvider } from '../../src/ai/embeddings/types';
import type { DocumentId } from '../../src/ids';
import { INGEST_STEP_CHUNKS } from '../../src/services/documents/ingest-steps';
import { jobsWaiting } from '../../src/jobs/enqueue';
import { runIngestion } from '../../src/services/documents/run-ingestion';
import { INDEX_STEP, indexPendingVectors, pendingVectors } from '../../src/services/documents/index-vectors';
import { nearestSql, queryVectorSql } from '../../src/answering/retrieval/vector-search';
import { orgWithKb, seededProse } from '../helpers/ingestion-load';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const count = async (table: 'chunks' | 'ingest_pending_chunks', doc: DocumentId) =>
  Number((await t.db.selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n')).where('document_id', '=', doc).executeTakeFirstOrThrow()).n);
const distinctPositions = async (doc: DocumentId) =>
  Number((await sql<{ n: string }>`select count(distinct position) as n from chunks where document_id = ${doc}`.execute(t.db)).rows[0]!.n);
const queuedJobNames = async () => (await sql<{ task_identifier: string }>`select task_identifier from graphile_worker.jobs order by id`.execute(t.db)).rows.map((r) => r.task_identifier);
const statusOf = (id: DocumentId) => t.db.selectFrom('documents').select(['status', 'chunk_count', 'stage', 'error']).where('id', '=', id).executeTakeFirstOrThrow();

/** Uploads a big text file and takes its queued job out, so the test runs the job itself. */
async function bigDocument(seed: number, paragraphs: number) {
  const a = await orgWithKb(t);
  const up = await uploadFile(t.app, a.key, a.kbId, { name: `big-${seed}.txt`, bytes: seededProse(seed, paragraphs), type: 'text/plain' });
  expect(up.status).toBe(202);
  const id = up.body.document.id as DocumentId;
  await sql`delete from graphile_worker._private_jobs where payload->>'document_id' = ${id}`.execute(t.db);
  return id;
}

/** A big document ingested to ready in its first job, with nothing else queued (its vectors pending on the embedded database). */
async function readyBigDocument(seed: number) {
  await runQueuedJobs(t);
  const id = await bigDocument(seed, 2 * INGEST_STEP_CHUNKS);
  expect(await runIngestion(t.deps, id)).toBe('ready');
  const { kb_id: kbId } = await t.db.selectFrom('documents').select('kb_id').where('id', '=', id).executeTakeFirstOrThrow();
  return { id, kbId };
}

async function smallFileOfAnotherOrg() {
  const b = await orgWithKb(t);
  const up = await uploadFile(t.app, b.key, b.kbId, { name: 'small.md', bytes: '# Depot\n\nThe depot opens at 6 am.', type: 'text/markdown' });
  expect(up.status).toBe(202);
  return up.body.document.id as DocumentId;
}

it('with no other job queued, a big document is ready in its first job, without pending rows or step jobs', async () => {
  const id = await bigDocument(21, 12 * INGEST_STEP_CHUNKS);
  expect(await jobsWaiting(t.db)).toBe(false);
  expect(await runIngestion(t.deps, id)).toBe('ready');
  const doc = await statusOf(id);
  expect(doc).toMatchObject({ status: 'ready', stage: null, error: null });
  expect(doc.chunk_count).toBeGreaterThan(2 * INGEST_STEP_CHUNKS);
  expect(await count('chunks', id)).toBe(doc.chunk_count);
  expect(await distinctPositions(id)).toBe(doc.chunk_count);
  expect(await count('ingest_pending_chunks', id)).toBe(0);
  // On the embedded database the vectors are indexed after the document is ready, by one job of the KB.
  expect(await queuedJobNames()).toEqual(t.deps.config.database.kind === 'embedded' ? ['kbs__index_vectors'] : []);
}, 300_000);

it('a big document is ready with its vectors not yet indexed on the embedded database, found by vector all the same, and then indexed', async () => {
  const { id, kbId } = await readyBigDocument(25);
  const total = await count('chunks', id);
  const embedded = t.deps.config.database.kind === 'embedded';
  expect(await pendingVectors(t.db, kbId)).toBe(embedded ? total : 0);
  // Each of a few chunks is its own nearest neighbour, by the exact scan of the pending rows or by the index.
  const probes = await t.db.selectFrom('chunks').select(['id', sql<string>`embedding::text`.as('vector'), 'embedding_model']).where('document_id', '=', id).orderBy('position').limit(5).execute();
  const nearestOf = async (p: (typeof probes)[number]) => {
    const v = { model: p.embedding_model!, embedding: new Float32Array(JSON.parse(p.vector) as number[]) };
    const { rows } = await sql<{ id: string; score: number }>`with query_vector as (${queryVectorSql(v)}) ${nearestSql(kbId, v, 3)}`.execute(t.db);
    return rows;
  };
  const before = await Promise.all(probes.map(nearestOf));
  before.forEach((rows, i) => {
    expect(rows[0]!.id).toBe(probes[i]!.id);
    expect(rows[0]!.score).toBeCloseTo(1, 5);
  });
  await runQueuedJobs(t);
  expect(await pendingVectors(t.db, kbId)).toBe(0);
  expect(await queuedJobNames()).toEqual([]);
  const after = await Promise.all(probes.map(nearestOf));
  expect(after.map((rows) => rows[0]!.id)).toEqual(probes.map((p) => p.id));
}, 300_000);

it("the indexing job gives way to another organisation's waiting job after one statement, and queues itself behind it", async () => {
  const { id, kbId } = await readyBigDocument(26);
  const pending = await pendingVectors(t.db, kbId);
  const small = await smallFileOfAnotherOrg();
  if (t.deps.config.database.kind === 'embedded') {
    expect(pending).toBe(await count('chunks', id));
    // As the queued job would: one statement, then it sees the other organisation's job waiting.
    expect(await indexPendingVectors(t.deps, kbId)).toBe('continued');
    expect(await pendingVectors(t.db, kbId)).toBe(pending - INDEX_STEP);
    expect((await queuedJobNames()).sort()).toEqual(['documents__ingest', 'kbs__index_vectors']);
  } else {
    expect(pending).toBe(0);
    expect(await indexPendingVectors(t.deps, kbId)).toBe('done');
  }
  await runQueuedJobs(t);
  expect((await statusOf(small)).status).toBe('ready');
  expect(await pendingVectors(t.db, kbId)).toBe(0);
}, 300_000);

it("hands every chunk over when another organisation's job is already waiting, and the step job finishes it", async () => {
  const id = await bigDocument(22, 12 * INGEST_STEP_CHUNKS);
  const small = await smallFileOfAnotherOrg();
  expect(await jobsWaiting(t.db)).toBe(true);
  expect(await runIngestion(t.deps, id)).toBe('continued');
  expect(await count('chunks', id)).toBe(0);
  const pending = await count('ingest_pending_chunks', id);
  expect(pending).toBeGreaterThan(2 * INGEST_STEP_CHUNKS);
  await runQueuedJobs(t);
  expect((await statusOf(small)).status).toBe('ready');
  expect(await statusOf(id)).toMatchObject({ status: 'ready', chunk_count: pending });
  expect(await distinctPositions(id)).toBe(pending);
  expect(await count('ingest_pending_chunks', id)).toBe(0);
}, 300_000);

it('hands over the rest, the step embedded meanwhile included, when a job is queued between steps', async () => {
  const id = await bigDocument(23, 12 * INGEST_STEP_CHUNKS);
  let small: Promise<DocumentId> | null = null;
  // The second step is embedded while the first is stored: another organisation uploads then.
  const local = t.deps.embeddings.default;
  let calls = 0;
  const provider: EmbeddingProvider = {
    ...local,
    embedDocuments: async (texts) => {
      if (++calls === 2) await (small = smallFileOfAnotherOrg());
      return local.embedDocuments(texts);
    },
  };
  const deps = { ...t.deps, embeddings: { ...t.deps.embeddings, default: provider } };
  expect(await runIngestion(deps, id)).toBe('continued');
  expect(small).not.toBeNull();
  expect(await count('chunks', id)).toBe(INGEST_STEP_CHUNKS);
  const pending = await count('ingest_pending_chunks', id);
  expect(pending).toBeGreaterThan(INGEST_STEP_CHUNKS);
  await runQueuedJobs(t);
  expect((await statusOf(await small!)).status).toBe('ready');
  expect(await statusOf(id)).toMatchObject({ status: 'ready', chunk_count: INGEST_STEP_CHUNKS + pending });
  expect(await distinctPositions(id)).toBe(INGEST_STEP_CHUNKS + pending);
  expect(await count('ingest_pending_chunks', id)).toBe(0);
}, 300_000);

it('a first job that fails in the middle of handing over is run again whole: every chunk stored once', async () => {
  const id = await bigDocument(24, 12 * INGEST_STEP_CHUNKS);
  const small = await smallFileOfAnotherOrg();
  // The first hand-over fails once, past its first rows (on the embedded database those are written
  // in statements of their own, so they stay); a sequence counts across the failed statement.
  await sql`create sequence hand_over_trip`.execute(t.db);
  await sql.raw(`create function hand_over_trip() returns trigger language plpgsql as $$
    begin
      if new.position >= 400 then
        if nextval('hand_over_trip') = 1 then raise exception 'simulated crash while handing over'; end if;
      end if;
      return new;
    end $$`).execute(t.db);
  await sql`create trigger hand_over_trip before insert on ingest_pending_chunks for each row execute function hand_over_trip()`.execute(t.db);
  try {
    await expect(runIngestion(t.deps, id)).rejects.toThrow(/simulated crash/);
    expect((await statusOf(id)).status).toBe('processing');
    // The rows written before the failure: kept where the configured database is the embedded one (no
    // transaction holds its one session across the hand-over; test configs say so on both databases),
    // rolled back where it is PostgreSQL.
    expect(await count('ingest_pending_chunks', id)).toBe(t.deps.config.database.kind === 'embedded' ? 400 : 0);
    // graphile-worker retries the failed job: the same call.
    expect(await runIngestion(t.deps, id)).toBe('continued');
  } finally {
    await sql`drop trigger hand_over_trip on ingest_pending_chunks`.execute(t.db);
    await sql`drop function hand_over_trip()`.execute(t.db);
    await sql`drop sequence hand_over_trip`.execute(t.db);
  }
  const pending = await count('ingest_pending_chunks', id);
  await runQueuedJobs(t);
  expect((await statusOf(small)).status).toBe('ready');
  expect(await statusOf(id)).toMatchObject({ status: 'ready', chunk_count: pending });
  expect(await count('chunks', id)).toBe(pending);
  expect(await distinctPositions(id)).toBe(pending);
  expect(await count('ingest_pending_chunks', id)).toBe(0);
}, 300_000);
