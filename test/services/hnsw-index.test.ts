/**
 * The chunk vectors' HNSW indexes as migrations 0702 and 1300 leave them (m = 12, pending rows left out), still matching
 * the nearest-chunks statement retrieval runs: a partial index the statement cannot use would
 * silently turn every search into a scan of all chunks.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KbId } from '../../src/ids';
import { nearestSql, queryVectorSql } from '../../src/answering/retrieval/vector-search';
import { createTestApp, type TestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

it('builds both HNSW indexes with m = 12 and ef_construction = 64', async () => {
  const { rows } = await sql<{ indexname: string; indexdef: string }>`
    select indexname, indexdef from pg_indexes where tablename = 'chunks' and indexdef like '%hnsw%' order by indexname`.execute(t.db);
  expect(rows.map((r) => r.indexname)).toEqual(['chunks_embedding_1536_idx', 'chunks_embedding_512_idx']);
  for (const r of rows) expect(r.indexdef).toMatch(/WITH \(m='12', ef_construction='64'\)/);
});

it("serves the nearest-chunks statement of a KB's 512- and 1536-dimension vectors", async () => {
  for (const dims of [512, 1536]) {
    const v = { model: 'any', embedding: new Float32Array(dims).fill(0.01) };
    const statement = sql`with query_vector as (${queryVectorSql(v)}) ${nearestSql('kb_test' as KbId, v, 10)}`;
    // Seq scans off: the question is whether the index CAN serve it, not whether an empty table needs it.
    const plan = await t.db.connection().execute(async (db) => {
      await sql`set enable_seqscan = off`.execute(db);
      try {
        const { rows } = await sql<{ 'QUERY PLAN': string }>`explain ${statement}`.execute(db);
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      } finally {
        await sql`reset enable_seqscan`.execute(db);
      }
    });
    expect(plan).toContain(`Index Scan using chunks_embedding_${dims}_idx`);
    // Vectors stored but not indexed yet (migration 1300) are found through their own partial index.
    expect(plan).toContain('chunks_vector_pending_idx');
  }
});
