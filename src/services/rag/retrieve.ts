/**
 * Hybrid retrieval over ONE knowledge base: BM25 and vector candidates, fused, top_k returned with
 * what a citation needs. The KB id comes from a KB already checked to belong to the caller, so
 * retrieval can never reach another organisation's chunks.
 */
import type { AppDeps } from '../../context';
import type { KnowledgeBase } from '../../../db/types';
import type { ChunkId, DocumentId, KbId } from '../../ids';
import { DEFAULT_FUSION, fuse, type Candidate, type FusionWeights } from './fuse';
import { lexicalSearch } from './lexical-search';
import { vectorSearch, vectorSimilarities } from './vector-search';

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
 * The candidate pool of one query: the BM25 top `pool` and the vector top `pool`, each candidate then
 * scored exactly on both (a chunk found by one side gets its real score from the other, or 0).
 */
export async function scoreCandidates(
  db: AppDeps['db'],
  kbId: KbId,
  query: string,
  vector: { model: string; embedding: Float32Array } | null,
  opts: { pool: number; lexical: boolean },
): Promise<CandidateScores> {
  const [lexical, dense] = await Promise.all([
    opts.lexical ? lexicalSearch(db, kbId, query, opts.pool) : [],
    vector ? vectorSearch(db, kbId, vector.model, vector.embedding, opts.pool) : [],
  ]);
  const lexScore = new Map(lexical.map((h) => [h.id, h.bm25]));
  const denseScore = new Map(dense.map((h) => [h.id, h.similarity]));
  const needDense = lexical.filter((h) => !denseScore.has(h.id)).map((h) => h.id);
  const needLex = dense.filter((h) => !lexScore.has(h.id)).map((h) => h.id);
  const [moreDense, moreLex] = await Promise.all([
    vector ? vectorSimilarities(db, kbId, vector.model, vector.embedding, needDense) : [],
    opts.lexical && needLex.length ? lexicalSearch(db, kbId, query, needLex.length, needLex) : [],
  ]);
  for (const h of moreDense) denseScore.set(h.id, h.similarity);
  for (const h of moreLex) lexScore.set(h.id, h.bm25);
  const ids = new Set([...lexScore.keys(), ...denseScore.keys()]);
  return {
    candidates: [...ids].map((id) => ({ id, lexical: lexScore.get(id) ?? 0, dense: denseScore.get(id) ?? 0 })),
    lexicalHits: lexical.length,
    bestSimilarity: dense[0]?.similarity ?? 0,
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
