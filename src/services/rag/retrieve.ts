/**
 * Hybrid retrieval over ONE knowledge base: BM25 and vector candidates, fused, top_k returned with
 * what a citation needs. The KB id comes from a KB already checked to belong to the caller, so
 * retrieval can never reach another organisation's chunks.
 */
import { sql } from 'kysely';
import type { AppDeps } from '../../context';
import type { KnowledgeBase } from '../../../db/types';
import type { ChunkId, DocumentId, KbId } from '../../ids';
import { DEFAULT_FUSION, fuse, type Candidate, type FusionWeights } from './fuse';
import { bm25Sql, candidateSql, lexicalQuery } from './lexical-search';
import { nearestSql, queryVectorSql, similaritySql, type QueryVector } from './vector-search';

export type RetrievalMode = 'hybrid' | 'lexical' | 'dense';

export type RetrievedChunk = {
  chunk_id: ChunkId;
  doc_id: DocumentId;
  filename: string;
  source: 'upload' | 'url';
  text: string;
  heading_path: string[];
  page: number | null;
  url: string | null;
  score: number;
  lexical: number;
  dense: number;
};

export type Retrieval = { chunks: RetrievedChunk[]; confident: boolean; timings: { embedMs: number; searchMs: number } };

/** Below this cosine similarity, with no keyword match at all, nothing in the KB is about the question. */
const MIN_DENSE_WITHOUT_LEXICAL = 0.45;

export type CandidateScores = { candidates: Candidate<ChunkId>[]; lexicalHits: number; bestSimilarity: number };

/**
 * The candidate pool of one query, in one statement: the BM25 top `pool` and the vector top `pool`,
 * each candidate then scored exactly on both sides (a chunk found by one side gets its real score
 * from the other, or 0).
 */
export async function scoreCandidates(
  db: AppDeps['db'],
  kbId: KbId,
  query: string,
  vector: QueryVector | null,
  opts: { pool: number; lexical: boolean },
): Promise<CandidateScores> {
  const lexical = opts.lexical ? await lexicalQuery(db, kbId, query) : null;
  if (!lexical && !vector) return { candidates: [], lexicalHits: 0, bestSimilarity: 0 };
  const none = sql`select null::text as id, null::float8 as score where false`;
  const lexTop = lexical
    ? sql`select c.id, ${bm25Sql(lexical, 'c')} as score from chunks c
          where c.kb_id = ${kbId} and ${candidateSql(lexical, 'c')} order by score desc limit ${opts.pool}`
    : none;
  const vecTop = vector ? nearestSql(kbId, vector, opts.pool) : none;
  // A chunk embedded by another model (mid re-embedding) has no comparable vector: dense 0.
  const dense = vector
    ? sql`case when c.embedding_model = ${vector.model} and c.embedding_dimensions = ${vector.embedding.length} then ${similaritySql(vector, 'c')} end`
    : sql`null`;
  const { rows } = await sql<{ id: ChunkId; lexical: number; dense: number; from_lex: boolean; from_vec: boolean }>`
    with ${vector ? sql`query_vector as (${queryVectorSql(vector)}),` : sql``}
         lex as materialized (${lexTop}),
         vec as materialized (${vecTop})
    select c.id,
           coalesce(lex.score, ${lexical ? bm25Sql(lexical, 'c') : sql`null`}, 0)::float8 as lexical,
           coalesce(vec.score, ${dense}, 0)::float8 as dense,
           lex.id is not null as from_lex,
           vec.id is not null as from_vec
    from chunks c
    left join lex on lex.id = c.id
    left join vec on vec.id = c.id
    where c.kb_id = ${kbId} and c.id in (select id from lex union select id from vec)`.execute(db);
  return {
    candidates: rows.map((r) => ({ id: r.id, lexical: r.lexical, dense: r.dense })),
    lexicalHits: rows.filter((r) => r.from_lex).length,
    bestSimilarity: Math.max(0, ...rows.filter((r) => r.from_vec).map((r) => r.dense)),
  };
}

export async function retrieve(
  deps: Pick<AppDeps, 'db' | 'embeddings' | 'logger'>,
  kb: Pick<KnowledgeBase, 'id' | 'embedding_model'>,
  query: string,
  opts: { topK: number; mode?: RetrievalMode; weights?: FusionWeights },
): Promise<Retrieval> {
  const mode = opts.mode ?? 'hybrid';
  const provider = mode === 'lexical' ? null : deps.embeddings.get(kb.embedding_model);

  const t0 = performance.now();
  // If the embedding service fails, full-text search alone still answers: degrade, don't fail.
  const embedding = provider ? await provider.embedQuery(query).catch((err) => (deps.logger.warn({ err }, 'query embedding failed; full-text only'), null)) : null;
  const t1 = performance.now();
  const scored = await scoreCandidates(deps.db, kb.id, query, provider && embedding ? { model: provider.id, embedding } : null, {
    pool: Math.max(50, opts.topK * 4),
    lexical: mode !== 'dense',
  });
  const weights = mode === 'lexical' ? { lexical: 1, dense: 0 } : mode === 'dense' ? { lexical: 0, dense: 1 } : (opts.weights ?? DEFAULT_FUSION);
  const ranked = fuse(scored.candidates, weights).slice(0, opts.topK);
  const t2 = performance.now();

  const confident = scored.lexicalHits > 0 || scored.bestSimilarity >= MIN_DENSE_WITHOUT_LEXICAL;
  if (ranked.length === 0) return { chunks: [], confident: false, timings: { embedMs: t1 - t0, searchMs: t2 - t1 } };

  const rows = await deps.db
    .selectFrom('chunks')
    .innerJoin('documents', 'documents.id', 'chunks.document_id')
    .select([
      'chunks.id',
      'chunks.document_id',
      'chunks.text',
      'chunks.heading_path',
      'chunks.page',
      'chunks.url',
      'documents.filename',
      'documents.source',
    ])
    .where('chunks.kb_id', '=', kb.id)
    .where(
      'chunks.id',
      'in',
      ranked.map((r) => r.id),
    )
    .execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  const chunks = ranked.flatMap((r) => {
    const row = byId.get(r.id);
    if (!row) return []; // deleted between the two queries
    return [
      {
        chunk_id: row.id,
        doc_id: row.document_id,
        filename: row.filename,
        source: row.source,
        text: row.text,
        heading_path: row.heading_path,
        page: row.page,
        url: row.url,
        score: r.score,
        lexical: r.lexical,
        dense: r.dense,
      },
    ];
  });
  return { chunks, confident, timings: { embedMs: t1 - t0, searchMs: performance.now() - t1 } };
}
