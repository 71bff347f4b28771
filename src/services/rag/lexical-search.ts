/**
 * BM25 over a KB's chunks, in SQL. Postgres' ts_rank is not BM25 (no inverse document frequency,
 * no length saturation) and measured clearly worse, so we score it ourselves from the tsvectors:
 * term frequencies come from each chunk's tsvector positions, document frequencies from the GIN
 * index, and chunk lengths from `lexeme_count`, stored at ingestion.
 *
 * Speed on large KBs: candidates are the chunks containing at least one of the query's *rarer*
 * terms (document frequency up to 0.5% of the KB or 50 chunks, or the rarest term when all are common). A chunk
 * that matches only very common words cannot outscore one that matches a rare word by enough to
 * matter for the top 50, and skipping them keeps a 50,000-chunk KB from scoring thousands of rows.
 * Every candidate is still scored on all query terms.
 */
import { sql } from 'kysely';
import type { Db } from '../../../db/connect';
import type { ChunkId, KbId } from '../../ids';

// Tuned on half of SQuAD dev (research in bench/research/): a plateau around k1 0.4-0.9, b 0.75-1.0.
export const BM25 = { k1: 0.6, b: 0.9 } as const;
const RARE_TERM_SHARE = 0.005;

export type LexicalHit = { id: ChunkId; bm25: number };

type KbStats = { n: number; avgdl: number };
const STATS_TTL_MS = 30_000;
/** Counting a big KB's chunks costs tens of ms; its size barely moves in 30 s. Small KBs are not cached. */
const statsCache = new Map<KbId, { at: number; stats: KbStats }>();

async function kbStats(db: Db, kbId: KbId): Promise<KbStats> {
  const hit = statsCache.get(kbId);
  if (hit && Date.now() - hit.at < STATS_TTL_MS) return hit.stats;
  const { rows } = await sql<KbStats>`
    select count(*)::float8 as n, greatest(coalesce(avg(lexeme_count), 1), 1)::float8 as avgdl from chunks where kb_id = ${kbId}`.execute(db);
  const stats = rows[0]!;
  if (stats.n >= 5_000) {
    if (statsCache.size > 1_000) statsCache.clear();
    statsCache.set(kbId, { at: Date.now(), stats });
  } else statsCache.delete(kbId);
  return stats;
}

/** A lexeme quoted for tsquery syntax (quotes and backslashes escaped). */
const tsqueryLiteral = (lexeme: string) => `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/**
 * Document frequency of each query lexeme. On big KBs the counts of common words (thousands of
 * index entries each) are cached like the KB size; rare words, whose counts matter most, are
 * always counted fresh.
 */
const dfCache = new Map<string, { at: number; df: number }>();
async function termFrequencies(db: Db, kbId: KbId, query: string, stats: KbStats): Promise<Array<{ lexeme: string; df: number }>> {
  const { rows: lexemes } = await sql<{ lexeme: string }>`select distinct lexeme from unnest(to_tsvector('english', ${query}))`.execute(db);
  const now = Date.now();
  const cached = new Map<string, number>();
  for (const { lexeme } of lexemes) {
    const hit = dfCache.get(`${kbId}\u0000${lexeme}`);
    if (hit && now - hit.at < STATS_TTL_MS) cached.set(lexeme, hit.df);
  }
  const missing = lexemes.map((l) => l.lexeme).filter((l) => !cached.has(l));
  if (missing.length > 0) {
    const { rows } = await sql<{ lexeme: string; df: number }>`
      select t.lexeme,
             (select count(*) from chunks c where c.kb_id = ${kbId} and c.tsv @@ to_tsquery('simple', quote_literal(t.lexeme)))::float8 as df
      from unnest(${missing}::text[]) as t(lexeme)`.execute(db);
    for (const r of rows) {
      cached.set(r.lexeme, r.df);
      if (stats.n >= 5_000 && r.df >= 500) {
        if (dfCache.size > 100_000) dfCache.clear();
        dfCache.set(`${kbId}\u0000${r.lexeme}`, { at: now, df: r.df });
      }
    }
  }
  return [...cached].map(([lexeme, df]) => ({ lexeme, df }));
}

/** Top `limit` chunks by BM25; with `onlyIds`, the exact BM25 of just those chunks (absent = no match). */
export async function lexicalSearch(db: Db, kbId: KbId, query: string, limit: number, onlyIds?: ChunkId[]): Promise<LexicalHit[]> {
  const stats = await kbStats(db, kbId);
  if (stats.n === 0) return [];
  const terms = await termFrequencies(db, kbId, query, stats);
  const present = terms.filter((t) => t.df > 0).sort((a, b) => a.df - b.df);
  if (present.length === 0) return [];
  const rare = present.filter((t) => t.df <= Math.max(50, stats.n * RARE_TERM_SHARE));
  const generators = onlyIds ? present : rare.length > 0 ? rare : present.slice(0, 1);
  const idf = present.map((t) => Math.log(1 + (stats.n - t.df + 0.5) / (t.df + 0.5)));
  const k1 = sql.lit(BM25.k1);
  const b = sql.lit(BM25.b);
  const { rows } = await sql<LexicalHit>`
    with q as (
      select unnest(${present.map((t) => t.lexeme)}::text[]) as lexeme, unnest(${idf}::float8[]) as idf
    ),
    candidates as (
      select c.id, c.tsv, c.lexeme_count
      from chunks c
      where c.kb_id = ${kbId}
        ${onlyIds ? sql`and c.id = any(${onlyIds})` : sql``}
        and c.tsv @@ ${generators.map((t) => tsqueryLiteral(t.lexeme)).join(' | ')}::tsquery
    )
    select cand.id,
           sum(q.idf * (tf.n * (${k1} + 1)) /
               (tf.n + ${k1} * (1 - ${b} + ${b} * cand.lexeme_count / ${stats.avgdl}::float8)))::float8 as bm25
    from candidates cand
    cross join lateral (
      select u.lexeme, coalesce(array_length(u.positions, 1), 1)::float8 as n from unnest(cand.tsv) u
    ) tf
    join q on q.lexeme = tf.lexeme
    group by cand.id
    order by bm25 desc
    limit ${limit}`.execute(db);
  return rows;
}
