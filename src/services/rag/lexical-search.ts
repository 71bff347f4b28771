/**
 * BM25 over a KB's chunks, in SQL. Postgres' ts_rank is not BM25 (no inverse document frequency,
 * no length saturation) and measured clearly worse, so we score it ourselves from the tsvectors:
 * term frequencies come from each chunk's tsvector positions, document frequencies from the GIN
 * index, and chunk lengths from `lexeme_count`, stored at ingestion.
 */
import { sql } from 'kysely';
import type { Db } from '../../../db/connect';
import type { ChunkId, KbId } from '../../ids';

// Tuned on half of SQuAD dev (research in bench/research/): a plateau around k1 0.4-0.9, b 0.75-1.0.
export const BM25 = { k1: 0.6, b: 0.9 } as const;

export type LexicalHit = { id: ChunkId; bm25: number };

/** Top `limit` chunks by BM25; with `onlyIds`, the exact BM25 of just those chunks (absent = no match). */
export async function lexicalSearch(db: Db, kbId: KbId, query: string, limit: number, onlyIds?: ChunkId[]): Promise<LexicalHit[]> {
  const k1 = sql.lit(BM25.k1);
  const b = sql.lit(BM25.b);
  const { rows } = await sql<LexicalHit>`
    with terms as (
      select distinct t.lexeme, to_tsquery('simple', quote_literal(t.lexeme)) as tsq
      from unnest(to_tsvector('english', ${query})) t
    ),
    stats as (
      select count(*)::float8 as n, greatest(avg(lexeme_count), 1)::float8 as avgdl from chunks where kb_id = ${kbId}
    ),
    df as (
      select terms.lexeme,
             (select count(*) from chunks c where c.kb_id = ${kbId} and c.tsv @@ terms.tsq)::float8 as df
      from terms
    ),
    idf as (
      select df.lexeme, ln(1 + (stats.n - df.df + 0.5) / (df.df + 0.5)) as idf
      from df, stats where df.df > 0
    ),
    candidates as (
      select c.id, c.tsv, c.lexeme_count
      from chunks c
      where c.kb_id = ${kbId}
        ${onlyIds ? sql`and c.id = any(${onlyIds})` : sql``}
        and c.tsv @@ (select coalesce(string_agg(quote_literal(lexeme), ' | '), '')::tsquery from idf)
    )
    select cand.id,
           sum(idf.idf * (tf.n * (${k1} + 1)) /
               (tf.n + ${k1} * (1 - ${b} + ${b} * cand.lexeme_count / stats.avgdl)))::float8 as bm25
    from candidates cand
    cross join stats
    cross join lateral (
      select u.lexeme, coalesce(array_length(u.positions, 1), 1)::float8 as n from unnest(cand.tsv) u
    ) tf
    join idf on idf.lexeme = tf.lexeme
    group by cand.id
    order by bm25 desc
    limit ${limit}`.execute(db);
  return rows;
}
