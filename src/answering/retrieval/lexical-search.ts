/**
 * BM25 over a KB's chunks, in SQL. Postgres' ts_rank is not BM25 (no inverse document frequency,
 * no length saturation) and measured clearly worse, so we score it ourselves:
 *   - document frequencies and the KB's size come from kb_lexicon / kb_lexicon_totals, which
 *     triggers keep exact (migration 0004): one index probe per query term;
 *   - term frequencies come from each chunk's tsvector (see `termFrequencySql`);
 *   - chunk lengths from the generated column `lexeme_count`.
 *
 * Speed on large KBs: candidates are the chunks containing at least one of the query's *rarer*
 * terms (document frequency up to 0.5% of the KB or 50 chunks, and never above RARE_TERM_MAX_DF).
 * A chunk that matches only very common words cannot outscore one that matches a rare word by
 * enough to matter for the candidate pool, and skipping them keeps a large KB from scoring thousands
 * of rows. When every term is common, the candidates are the chunks holding two of its three
 * rarest terms (or the rarest alone, if it is not that common or is the only term). Every candidate
 * is still scored on all query terms, and the vector side's candidates on BM25 too.
 *
 * Why: with a share of the KB alone, the chunks scored per question grew with the KB (up to 17,000
 * for a question of common words only), and the retrieval's CPU time with them; the measurement
 * that chose the share and the ceiling is in calibration.ts.
 */
import { sql, type RawBuilder } from 'kysely';
import { PREPARED, type Db } from '../../../db/connect';
import type { KbId } from '../../ids';
import { searchConfig, type Language } from '../../text/language';
import { searchText } from '../../text/words';
import { BM25, RARE_TERM_MAX_DF, RARE_TERM_SHARE } from '../calibration';

export type QueryTerm = { lexeme: string; df: number; idf: number };

/**
 * What BM25 needs to know about one query in one KB; null when no query term occurs in the KB.
 * Candidates hold any of `generators`, or all of them when `together`. `ceiling` is the score of a
 * chunk holding every query word many times over, the words the KB lacks counted at the IDF of a
 * word in no chunk: what a chunk's score is measured against when judging whether the KB holds
 * the question at all (the offline refusal gate), not used for ranking.
 */
export type LexicalQuery = { terms: QueryTerm[]; generators: QueryTerm[]; together: boolean; avgdl: number; ceiling: number };

const idfOf = (df: number, chunks: number) => Math.log(1 + (chunks - df + 0.5) / (df + 0.5));

/**
 * The languages of a KB's ready documents, most documents first; a document from before languages
 * were detected counts as English, the configuration its chunks were indexed with.
 */
export async function kbLanguages(db: Db, kbId: KbId): Promise<Array<{ language: Language; documents: number }>> {
  const rows = await db
    .selectFrom('documents')
    .select((eb) => [eb.fn.coalesce('language', sql.lit('en')).as('language'), eb.fn.countAll<number>().as('n')])
    .where('kb_id', '=', kbId)
    .where('status', '=', 'ready')
    .groupBy(sql`1`)
    .orderBy(sql`2`, 'desc')
    .execute();
  return rows.map((r) => ({ language: r.language as Language, documents: Number(r.n) }));
}

/** `language`: the question's (text/language.ts questionLanguage), whose stemmer reads its words as the KB's chunks of that language were read. */
export async function lexicalQuery(db: Db, kbId: KbId, query: string, language: Language | null): Promise<LexicalQuery | null> {
  // The KB id is a literal for the plan Postgres may cache (PREPARED in db/connect.ts).
  const { rows } = await sql<{ lexeme: string; df: number | null; chunks: number; tokens: number }>`${sql.raw(PREPARED)}
    select u.lexeme, l.df, t.chunks::float8 as chunks, t.tokens::float8 as tokens
    from unnest(to_tsvector(${searchConfig(language)}::regconfig, ${searchText(query)})) u
    join kb_lexicon_totals t on t.kb_id = ${sql.lit(kbId)}
    left join kb_lexicon l on l.kb_id = ${sql.lit(kbId)} and l.lexeme = u.lexeme
    where t.chunks > 0`.execute(db);
  const found = rows.filter((r): r is typeof r & { df: number } => r.df !== null && r.df > 0);
  if (found.length === 0) return null;
  const n = rows[0]!.chunks;
  const terms = found.map((r) => ({ lexeme: r.lexeme, df: r.df, idf: idfOf(r.df, n) })).sort((a, b) => a.df - b.df);
  const ceiling = (BM25.k1 + 1) * rows.reduce((sum, r) => sum + idfOf(r.df ?? 0, n), 0);
  return { terms, ...candidateGenerators(terms, n), avgdl: Math.max(1, rows[0]!.tokens / n), ceiling };
}

/** Which of a query's terms (sorted rarest first) pick the candidates, in a KB of `kbChunks` chunks. */
export function candidateGenerators(terms: QueryTerm[], kbChunks: number): Pick<LexicalQuery, 'generators' | 'together'> {
  const rare = terms.filter((t) => t.df <= Math.max(50, Math.min(kbChunks * RARE_TERM_SHARE, RARE_TERM_MAX_DF)));
  if (rare.length > 0) return { generators: rare, together: false };
  const common = terms.length > 1 && terms[0]!.df > RARE_TERM_MAX_DF;
  return { generators: terms.slice(0, common ? 3 : 1), together: common };
}

/** A lexeme as a tsquery literal (quotes and backslashes escaped): never re-parsed into other words. */
const tsqueryLiteral = (lexeme: string) => `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/** Any generator; or, `together`, any two of them (all of them when there are only two). */
export function generatorQuery(q: Pick<LexicalQuery, 'generators' | 'together'>): string {
  const words = q.generators.map((t) => tsqueryLiteral(t.lexeme));
  if (!q.together) return words.join(' | ');
  if (words.length < 3) return words.join(' & ');
  return words.flatMap((a, i) => words.slice(i + 1).map((b) => `(${a} & ${b})`)).join(' | ');
}

/** Condition (GIN-indexed) for the chunks worth scoring: those containing a generator term (or all of them). */
export function candidateSql(q: LexicalQuery, chunk: string): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(`${chunk}.tsv`)} @@ ${generatorQuery(q)}::tsquery`;
}

/** sum of 1/i^2 for i = 1, 2, ... */
const H_INFINITY = Math.PI ** 2 / 6;

/**
 * How many times `lexeme` occurs in a chunk, recovered exactly from ts_rank: with all weights 1 and
 * a one-word query, ts_rank is H(tf)/H(inf) with H(n) = sum of 1/i^2 for i <= n (calc_rank_or in
 * tsrank.c), and 1/(H(inf) - H(n)) lies within 0.1 of n + 0.5. It is 0 when the word is absent.
 * One C call per term instead of unnesting every lexeme of every candidate: several times faster.
 */
function termFrequencySql(tsv: RawBuilder<unknown>, lexeme: string): RawBuilder<number> {
  return sql<number>`round(${1 / H_INFINITY}::float8 / (1 - ts_rank('{1,1,1,1}', ${tsv}, ${tsqueryLiteral(lexeme)}::tsquery, 0)) - 0.5)`;
}

/**
 * BM25's length normalisation K = k1 * (1 - b + b * length / avgdl) of the chunk aliased `chunk`.
 * Evaluate it once per chunk (a column of a subquery) when scoring many: every term uses it twice.
 */
export function lengthNormSql(q: LexicalQuery, chunk: string): RawBuilder<number> {
  const { k1, b } = BM25;
  return sql<number>`(${k1 * (1 - b)}::float8 + ${(k1 * b) / q.avgdl}::float8 * ${sql.ref(`${chunk}.lexeme_count`)})`;
}

/**
 * BM25 of a chunk, as a SQL expression over its `tsv` and its length normalisation `k`
 * (lengthNormSql). Each term adds idf * tf * (k1 + 1) / (tf + K), written as
 * idf * (k1 + 1) * (1 - K / (tf + K)) so tf, the costly part, is computed once.
 */
export function bm25Sql(q: LexicalQuery, chunk: { tsv: RawBuilder<unknown>; k: RawBuilder<number> }): RawBuilder<number> {
  const perTerm = q.terms.map((t) => sql`${t.idf * (BM25.k1 + 1)}::float8 * (1 - ${chunk.k} / (${termFrequencySql(chunk.tsv, t.lexeme)} + ${chunk.k}))`);
  return sql<number>`(${sql.join(perTerm, sql` + `)})`;
}
