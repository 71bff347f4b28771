/**
 * Cosine nearest neighbours over a KB's chunk vectors. The column is untyped `vector`, so the query
 * casts to vector(N) and filters on embedding_dimensions = N to match the per-dimension partial
 * HNSW index the migration creates.
 */
import { sql } from 'kysely';
import type { Db } from '../../../db/connect';
import type { ChunkId, KbId } from '../../ids';
import { toVectorLiteral } from '../documents/store-chunks';

export type VectorHit = { id: ChunkId; similarity: number };

export async function vectorSearch(db: Db, kbId: KbId, model: string, embedding: Float32Array, limit: number): Promise<VectorHit[]> {
  const dims = sql.raw(String(Math.trunc(embedding.length)));
  const q = toVectorLiteral(embedding);
  // The HNSW index spans all KBs; iterative scanning keeps going until `limit` rows of THIS KB are
  // found instead of filtering one fixed-size candidate list (which can come back short).
  return db.transaction().execute(async (trx) => {
    await sql`set local hnsw.iterative_scan = relaxed_order`.execute(trx);
    await sql`set local hnsw.ef_search = ${sql.raw(String(Math.max(40, Math.min(400, limit * 2))))}`.execute(trx);
    const { rows } = await sql<VectorHit>`
      select id, (1 - (embedding::vector(${dims}) <=> ${q}::vector(${dims})))::float8 as similarity
      from chunks
      where kb_id = ${kbId} and embedding_dimensions = ${embedding.length} and embedding_model = ${model}
      order by embedding::vector(${dims}) <=> ${q}::vector(${dims})
      limit ${limit}`.execute(trx);
    return rows.sort((a, b) => b.similarity - a.similarity);
  });
}

/** Exact cosine similarity of specific chunks (candidates found by full-text search). */
export async function vectorSimilarities(db: Db, kbId: KbId, model: string, embedding: Float32Array, ids: ChunkId[]): Promise<VectorHit[]> {
  if (ids.length === 0) return [];
  const dims = sql.raw(String(Math.trunc(embedding.length)));
  const { rows } = await sql<VectorHit>`
    select id, (1 - (embedding::vector(${dims}) <=> ${toVectorLiteral(embedding)}::vector(${dims})))::float8 as similarity
    from chunks
    where kb_id = ${kbId} and id = any(${ids}) and embedding_dimensions = ${embedding.length} and embedding_model = ${model}`.execute(db);
  return rows;
}
