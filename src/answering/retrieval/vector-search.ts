/**
 * Cosine similarity over a KB's chunk vectors, as SQL fragments for the retrieval statement. The
 * column is untyped `vector`, so queries cast to vector(N) and filter on embedding_dimensions = N to
 * match the per-dimension partial HNSW index the migration creates.
 *
 * The HNSW index spans all KBs. Every pooled connection runs with `hnsw.iterative_scan` on (see
 * db/connect.ts), so a scan keeps going until it has found `limit` rows of THIS KB instead
 * of filtering one fixed-size candidate list, which comes back short for a small KB in a big index.
 */
import { sql, type RawBuilder } from 'kysely';
import { vectorParam } from '../../../db/vector-param';
import type { KbId } from '../../ids';

export type QueryVector = { model: string; embedding: Float32Array };

const dimsOf = (v: QueryVector) => sql.raw(String(Math.trunc(v.embedding.length)));

/**
 * Body of the `query_vector` CTE that the fragments below read: the vector travels (and is parsed)
 * once per statement. The HNSW index still serves `<=> (select v from query_vector)`.
 */
export function queryVectorSql(v: QueryVector): RawBuilder<{ v: string }> {
  return sql`select ${vectorParam(v.embedding)}::vector(${dimsOf(v)}) as v`;
}

const queryVectorRef = sql`(select v from query_vector)`;

/** 1 - cosine distance between the chunk aliased `chunk` and the query vector. */
export function similaritySql(v: QueryVector, chunk: string): RawBuilder<number> {
  return sql<number>`(1 - (${sql.ref(`${chunk}.embedding`)}::vector(${dimsOf(v)}) <=> ${queryVectorRef}))::float8`;
}

/**
 * The `limit` nearest chunks of the KB: their rows as `c` (the columns listed) and `score` (cosine
 * similarity). Indexed vectors come from the HNSW index; vectors stored but not indexed yet
 * (`vector_pending`, migration 1300: a big document on the embedded database, until the
 * `kbs__index_vectors` job has moved them in) by an exact scan of the KB's pending rows, so a
 * document is searchable in full as soon as it is ready. The two lists are merged by score.
 *
 * The KB, the dimensions and the limit are literals, not parameters: a plan cached for the statement
 * (db/connect.ts) must know them. With a parameter instead, the planner could not match the
 * per-dimension partial index, nor tell a few dozen rows from 10% of the table, and chose a
 * sequential scan: 90 ms instead of 1.
 */
export function nearestSql(kbId: KbId, v: QueryVector, limit: number, columns: string[] = ['id']): RawBuilder<{ id: string; score: number }> {
  const cols = sql.join(columns.map((col) => sql.ref(`c.${col}`)));
  const ofKb = sql`c.kb_id = ${sql.lit(kbId)} and c.embedding_dimensions = ${dimsOf(v)} and c.embedding_model = ${v.model} and ${enabledChunkSql('c')}`;
  const top = sql.lit(Math.trunc(limit));
  const distance = sql`c.embedding::vector(${dimsOf(v)}) <=> ${queryVectorRef}`;
  return sql`
    select * from (
      (select ${cols}, ${similaritySql(v, 'c')} as score from chunks c
       where ${ofKb} and not c.vector_pending order by ${distance} limit ${top})
      union all
      (select ${cols}, ${similaritySql(v, 'c')} as score from chunks c
       where ${ofKb} and c.vector_pending order by ${distance} limit ${top})
    ) nearest
    order by score desc
    limit ${top}`;
}

/**
 * Chunk curation (migration 0920): a chunk an administrator switched off is kept but never
 * retrieved, on the lexical side and the vector side alike. Both sides filter with this one
 * condition so they cannot disagree.
 */
export function enabledChunkSql(chunk: string): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref(`${chunk}.disabled_at`)} is null and ${sql.ref(`${chunk}.document_enabled`)})`;
}
