/**
 * BM25 in SQL: the per-KB term statistics that triggers maintain stay equal to a recount from the
 * chunks through ingestion, re-ingestion and deletes, the scores equal BM25 computed here, in
 * TypeScript, from the same chunks, the SQL fusion ranks as fuse() does, and a plan that Postgres
 * caches for the retrieval statement answers as the plans made for each execution do.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, createPool } from '../../db/connect';
import type { KbId } from '../../src/ids';
import { BM25, DEFAULT_FUSION } from '../../src/answering/calibration';
import { fuse } from '../../src/answering/retrieval/fuse';
import { retrieve, scoreCandidates } from '../../src/answering/retrieval/retrieve';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
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

const docs = {
  'falcon.md': '# Falcon\n\nThe falcon dives at 300 km/h. A falcon falcon falcon hunts birds in flight.',
  'heron.md': '# Heron\n\nThe heron waits in shallow water and hunts fish. Herons nest in colonies.',
  'owl.md': "# Owl\n\nThe owl hunts at night. Owls' feathers make their flight silent.\n\n## Diet\n\nMice, voles and sometimes fish.",
};

async function setUp() {
  const { api_key } = await createOrgWithKey(t.deps);
  const api = restClient(t.app, api_key);
  const kbId = (await api.post('/api/kbs', { name: 'Birds' })).body.kb.id as KbId;
  const ids: Record<string, string> = {};
  for (const [name, bytes] of Object.entries(docs)) ids[name] = (await uploadFile(t.app, api_key, kbId, { name, bytes })).body.document.id;
  await runQueuedJobs(t);
  return { api, kbId, ids };
}

/** kb_lexicon and kb_lexicon_totals as stored, and as recounted from the chunks. */
async function statistics(kbId: KbId) {
  const stored = await sql<{ lexeme: string; df: number }>`
    select lexeme, df from kb_lexicon where kb_id = ${kbId} and df > 0 order by lexeme`.execute(t.db);
  const recount = await sql<{ lexeme: string; df: number }>`
    select u.lexeme, count(*)::int as df from chunks c cross join unnest(c.tsv) u where c.kb_id = ${kbId} group by 1 order by 1`.execute(t.db);
  const totals = await t.db.selectFrom('kb_lexicon_totals').select(['chunks', 'tokens']).where('kb_id', '=', kbId).executeTakeFirst();
  const counted = await sql<{ chunks: number; tokens: number }>`
    select count(*)::int as chunks, coalesce(sum(lexeme_count), 0)::int as tokens from chunks where kb_id = ${kbId}`.execute(t.db);
  return { stored: stored.rows, recount: recount.rows, totals: totals && { chunks: Number(totals.chunks), tokens: Number(totals.tokens) }, counted: counted.rows[0] };
}

describe('term statistics', () => {
  it('stay equal to a recount from the chunks through ingestion, re-ingestion and deletes', async () => {
    const { api, kbId, ids } = await setUp();
    let s = await statistics(kbId);
    expect(s.recount.length).toBeGreaterThan(20);
    expect(s.stored).toEqual(s.recount);
    expect(s.totals).toEqual(s.counted);
    expect(s.stored.find((r) => r.lexeme === 'hunt')?.df).toBeGreaterThanOrEqual(3);

    expect((await api.post(`/api/kbs/${kbId}/documents/${ids['owl.md']}/reingest`, {})).status).toBe(202);
    await runQueuedJobs(t);
    s = await statistics(kbId);
    expect(s.stored).toEqual(s.recount);
    expect(s.totals).toEqual(s.counted);

    expect((await api.delete(`/api/kbs/${kbId}/documents/${ids['falcon.md']}`)).status).toBe(200);
    s = await statistics(kbId);
    expect(s.stored).toEqual(s.recount);
    expect(s.totals).toEqual(s.counted);
    expect(s.stored.find((r) => r.lexeme === 'falcon')).toBeUndefined();

    expect((await api.delete(`/api/kbs/${kbId}`)).status).toBe(200);
    const left = await t.db.selectFrom('kb_lexicon').select('lexeme').where('kb_id', '=', kbId).execute();
    expect(left).toEqual([]);
  });

  it('refuses to edit a chunk in place, which would skew them', async () => {
    const { kbId } = await setUp();
    const chunk = await t.db.selectFrom('chunks').select('id').where('kb_id', '=', kbId).executeTakeFirstOrThrow();
    await expect(sql`update chunks set tsv = to_tsvector('english', 'something else') where id = ${chunk.id}`.execute(t.db)).rejects.toThrow(/replaced, not edited/);
  });
});

describe('BM25 scores', () => {
  it('equal BM25 computed in TypeScript from the chunks, repeated words included', async () => {
    const { kbId } = await setUp();
    const query = 'Which falcon hunts birds in flight?';
    const chunks = await sql<{ id: string; lexeme: string; tf: number }>`
      select c.id, u.lexeme, coalesce(array_length(u.positions, 1), 1) as tf from chunks c cross join unnest(c.tsv) u where c.kb_id = ${kbId}`.execute(t.db);
    const terms = (await sql<{ lexeme: string }>`select lexeme from unnest(to_tsvector('english', ${query}))`.execute(t.db)).rows.map((r) => r.lexeme);
    const tf = new Map<string, Map<string, number>>();
    for (const r of chunks.rows) tf.set(r.id, (tf.get(r.id) ?? new Map()).set(r.lexeme, r.tf));
    const n = tf.size;
    const length = (id: string) => [...tf.get(id)!.values()].reduce((a, b) => a + b, 0);
    const avgdl = [...tf.keys()].reduce((a, id) => a + length(id), 0) / n;
    const bm25 = (id: string) =>
      terms.reduce((sum, term) => {
        const df = [...tf.values()].filter((m) => m.has(term)).length;
        const f = tf.get(id)!.get(term) ?? 0;
        if (df === 0 || f === 0) return sum;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        return sum + (idf * f * (BM25.k1 + 1)) / (f + BM25.k1 * (1 - BM25.b + (BM25.b * length(id)) / avgdl));
      }, 0);

    const { candidates, lexicalHits } = await scoreCandidates(t.db, kbId, query, null, { pool: 50, lexical: true });
    expect(lexicalHits).toBeGreaterThan(0);
    for (const c of candidates) expect(c.lexical).toBeCloseTo(bm25(c.id), 9);
    // Repeats count: the chunk that says "falcon" most often ranks first.
    const best = candidates.sort((a, b) => b.lexical - a.lexical)[0]!;
    expect(tf.get(best.id)!.get('falcon')).toBe(Math.max(...[...tf.values()].map((m) => m.get('falcon') ?? 0)));
    expect(tf.get(best.id)!.get('falcon')).toBeGreaterThanOrEqual(4);
  });
});

describe('lexical ceiling', () => {
  it('is the BM25 of a chunk holding every query word, a word the KB lacks at the IDF of a word in no chunk', async () => {
    const { kbId } = await setUp();
    const query = 'Which falcon hunts penguins?';
    const terms = (await sql<{ lexeme: string }>`select lexeme from unnest(to_tsvector('english', ${query}))`.execute(t.db)).rows.map((r) => r.lexeme);
    expect(terms).toContain('penguin');
    const chunks = await sql<{ tsv: string }>`select tsv::text as tsv from chunks where kb_id = ${kbId}`.execute(t.db);
    const n = chunks.rows.length;
    const df = (term: string) => chunks.rows.filter((c) => c.tsv.includes(`'${term}'`)).length;
    expect(df('penguin')).toBe(0);
    const idf = (d: number) => Math.log(1 + (n - d + 0.5) / (d + 0.5));
    const kb = await t.db.selectFrom('knowledge_bases').select(['id', 'embedding_model']).where('id', '=', kbId).executeTakeFirstOrThrow();
    const retrieval = await retrieve(t.deps, kb, query, { topK: 3 });
    expect(retrieval.lexicalCeiling).toBeCloseTo((BM25.k1 + 1) * terms.reduce((sum, term) => sum + idf(df(term)), 0), 9);
    for (const c of retrieval.chunks) expect(c.lexical).toBeLessThan(retrieval.lexicalCeiling!);
  });
});

describe('fusion in SQL', () => {
  it('ranks and scores exactly as fuse() does over the same candidates', async () => {
    const { kbId } = await setUp();
    const kb = await t.db.selectFrom('knowledge_bases').selectAll().where('id', '=', kbId).executeTakeFirstOrThrow();
    const provider = t.deps.embeddings.get(kb.embedding_model)!;
    const query = 'Which bird hunts fish in the water?';
    const vector = { model: provider.id, embedding: await provider.embedQuery(query) };
    const { candidates } = await scoreCandidates(t.db, kbId, query, vector, { pool: 50, lexical: true });
    expect(candidates.length).toBeGreaterThanOrEqual(3);
    expect(new Set(candidates.map((c) => c.lexical)).size).toBeGreaterThan(1);
    expect(new Set(candidates.map((c) => c.dense)).size).toBeGreaterThan(1);

    const expected = fuse(candidates, DEFAULT_FUSION);
    const { chunks } = await retrieve(t.deps, kb, query, { topK: candidates.length });
    expect(chunks.map((c) => c.chunk_id)).toEqual(expected.map((c) => c.id));
    chunks.forEach((c, i) => expect(c.score).toBeCloseTo(expected[i]!.score, 9));
  });
});

describe('cached plans', () => {
  it('answer as plans made for each execution do', async () => {
    const { kbId } = await setUp();
    // One connection, so the statement is prepared once and executed by name over and over.
    const pool = createPool(t.database.connectionString, 1, { embedded: t.database.mode === 'embedded' });
    const deps = { ...t.deps, db: createDb(pool) };
    try {
      const kb = await deps.db.selectFrom('knowledge_bases').selectAll().where('id', '=', kbId).executeTakeFirstOrThrow();
      const ask = async (query: string) => (await retrieve(deps, kb, query, { topK: 3 })).chunks.map((c) => [c.chunk_id, c.score]);
      // Same number of words (so one statement of each kind), different words, repeated past the five
      // executions after which Postgres may switch to a cached plan.
      const queries = ['hunting birds', 'heron nests', 'owl feathers'];
      const first = await Promise.all(queries.map(ask));
      expect(first.every((r) => r.length > 0)).toBe(true);
      for (let round = 0; round < 5; round++) for (const [i, q] of queries.entries()) expect(await ask(q)).toEqual(first[i]);
      if (t.database.mode === 'postgres') {
        // Two statements: one for the questions naming a document of the KB, one (without the
        // named documents' parts, so that PostgreSQL can keep a generic plan) for the others.
        const { rows } = await sql<{ generic_plans: number; statement: string }>`
          select generic_plans, statement from pg_prepared_statements where statement like '%lex as materialized%'`.execute(deps.db);
        expect(rows.map((r) => r.statement.includes('= any(')).sort()).toEqual([false, true]);
        for (const r of rows) expect(r.generic_plans).toBeGreaterThan(0);
      }
    } finally {
      await deps.db.destroy();
    }
  });
});
