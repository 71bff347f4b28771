/**
 * Pages of figures within the chosen document. A question asking for an amount of something the
 * first-ranked document holds ("the daily meal allowance in Zurich", "capital expenditure in 2018")
 * is answered on a page of figures (a table, a schedule, a statement), whose passages rarely repeat
 * the question's words: the table row says "Per diem: CHF 95" where the question says "meal
 * allowance", and the prose pages that repeat the question's words win on BM25. What those pages
 * share is that they are pages of figures: many standalone numbers per word.
 *
 * So, within the first-ranked document only, and only when the question names that document (its
 * title or identity: retrieve.ts `named`), each page's figure density (figures per word over all of
 * its passages) is z-scored over the document's pages, and a passage on a page above the mean
 * density that matches the question better than the document's average passage moves up by
 * FIGURE_PAGE_WEIGHT x that z. A question for a person, a time, a place or a reason gets none.
 *
 * What this changes is the order of the passages retrieval returns (`Retrieval.chunks`, which the
 * answer reads and every transport sends; offline, when they leave the extractive answerer nothing
 * to answer from, it reads the ranking without this order: answer-stream.ts `readRetrieval`). The
 * places the chosen document holds in the top k are refilled in the new order; every other
 * document's passage keeps its place, so which documents are retrieved, and which comes first,
 * never change. The bonus stays out of the fused candidate set: put into it, it shifted every
 * candidate's normalisation.
 *
 * Within that order, each page's best passage comes before any page's second (onePassagePerPageFirst),
 * so the document's places show as many of its pages as they can: measured on a set of annual and quarterly filings, three
 * of 68 questions had their evidence page sixth or seventh, behind a second and third passage
 * of one page (docs/retrieval.md, pages of figures). Every other list retrieval shows follows the same rule
 * over all its documents (retrieve.ts onePassagePerPage).
 *
 * A table of contents is a page of numbers too, but of page numbers: they go up as the page is read,
 * where a table's rows go up and down (isIndexPage). Such a page gets no bonus: on those filings the
 * contents pages of plans and agreements filed as exhibits stood above the evidence page
 * (docs/retrieval.md, pages of figures).
 *
 * A figure is a number standing alone: not glued to letters or a hyphen ("A3", "10-K", "FY2018",
 * "A4"). A document without page numbers (Markdown, plain text) has one page: no bonus.
 */
import { sql } from 'kysely';
import type { AnsweringDeps } from '../deps';
import type { DocumentId, KbId } from '../../ids';
import type { QuestionAnalysis } from '../question';
import { bm25Sql, lengthNormSql, type LexicalQuery } from './lexical-search';
import { enabledChunkSql, queryVectorSql, similaritySql, type QueryVector } from './vector-search';
import type { FusionWeights } from './fuse';
import { FIGURE_PAGE_WEIGHT } from '../calibration';

/** A standalone number, in PostgreSQL's regular expression syntax: currency sign, separators, decimals, percent. */
const FIGURE_PATTERN = String.raw`(?<![[:alnum:]-])[$€£¥]?[0-9][0-9,]*(?:\.[0-9]+)?%?(?![[:alnum:]-])`;

/** Whether a question asks for something a page of figures can hold: not who, when, where or why. */
export function asksForFigures(question: QuestionAnalysis): boolean {
  const type = question.asking.type;
  return type !== 'person' && type !== 'date' && type !== 'place' && type !== 'reason';
}

/** The mean and standard deviation of each score over the fused candidate set (fuse.ts normalises by them). */
export type CandidateStats = { lexicalMean: number; lexicalSd: number; denseMean: number; denseSd: number };

/**
 * A small whole number standing alone (1 to 3 digits; not a decimal, an amount in brackets, a
 * percentage or a grouped thousand): what a table of contents points to pages and sections with.
 */
const SMALL_NUMBER_PATTERN = String.raw`(?<![[:alnum:](.,$€£¥-])([0-9]{1,3})(?![[:alnum:]%)-]|[.,][0-9])`;

/** At least this many different small numbers on a page before their order says anything. */
const INDEX_MIN_DISTINCT = 8;
/** The share of a page's steps between different small numbers that go up, above which the page is an index. */
const INDEX_RISING_SHARE = 0.8;

export type DocumentPassage = {
  id: string;
  page: number | null;
  /** The passage's place in its document (reading order). */
  position: number;
  lexical: number;
  dense: number;
  figures: number;
  words: number;
  /** The passage's small numbers in reading order (SMALL_NUMBER_PATTERN). */
  smallNumbers: number[];
};

/**
 * Whether a page's small numbers, read in order, mostly go up where they change: the page numbers of
 * a table of contents or an index ("General 1 ... Purpose 1 ... Vesting 20 ... Forfeiture 21"). Such
 * a page is dense in numbers but holds no figures; the rows of a table go up and down. A number
 * repeated ("December 31" on every row) says nothing either way.
 */
export function isIndexPage(smallNumbers: number[]): boolean {
  if (new Set(smallNumbers).size < INDEX_MIN_DISTINCT) return false;
  let up = 0;
  let down = 0;
  for (let i = 1; i < smallNumbers.length; i++) {
    if (smallNumbers[i]! > smallNumbers[i - 1]!) up++;
    else if (smallNumbers[i]! < smallNumbers[i - 1]!) down++;
  }
  return up / (up + down) >= INDEX_RISING_SHARE;
}

/**
 * Each passage's fused score (on the candidate set's scale, as if it had been a candidate) and its
 * figure-page bonus (0 for most), for the passages of one document.
 */
export function figurePageBonuses(
  passages: DocumentPassage[],
  stats: CandidateStats,
  weights: FusionWeights,
  weight = FIGURE_PAGE_WEIGHT,
): Map<string, { fused: number; bonus: number }> {
  const z = (v: number, mean: number, sd: number) => (sd > 0 ? (v - mean) / sd : 0);
  const fused = passages.map((p) => weights.lexical * z(p.lexical, stats.lexicalMean, stats.lexicalSd) + weights.dense * z(p.dense, stats.denseMean, stats.denseSd));
  const pages = new Map<number, { figures: number; words: number; smallNumbers: number[] }>();
  for (const p of [...passages].sort((a, b) => a.position - b.position)) {
    if (p.page === null) continue;
    const at = pages.get(p.page) ?? { figures: 0, words: 0, smallNumbers: [] };
    at.figures += p.figures;
    at.words += p.words;
    at.smallNumbers.push(...p.smallNumbers);
    pages.set(p.page, at);
  }
  const density = new Map([...pages].filter(([, v]) => v.words > 0).map(([page, v]) => [page, v.figures / v.words]));
  const indexPages = new Set([...pages].filter(([, v]) => isIndexPage(v.smallNumbers)).map(([page]) => page));
  const values = [...density.values()];
  const mean = values.reduce((a, b) => a + b, 0) / (values.length || 1);
  const sd = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length || 1));
  const relevance = fused.reduce((a, b) => a + b, 0) / (fused.length || 1);
  const out = new Map<string, { fused: number; bonus: number }>();
  passages.forEach((p, i) => {
    const d = p.page === null ? undefined : density.get(p.page);
    const pageZ = d === undefined || sd === 0 || indexPages.has(p.page!) ? 0 : (d - mean) / sd;
    const bonus = pageZ > 0 && fused[i]! > relevance ? weight * pageZ : 0;
    out.set(p.id, { fused: fused[i]!, bonus });
  });
  return out;
}

/** Every enabled passage of one document with its BM25, cosine, figure and word counts (no texts). */
export async function documentPassages(
  db: AnsweringDeps['db'],
  kbId: KbId,
  documentId: DocumentId,
  lexical: LexicalQuery | null,
  vector: QueryVector | null,
): Promise<DocumentPassage[]> {
  const dense = vector
    ? sql<number>`case when c.embedding_model = ${vector.model} and c.embedding_dimensions = ${vector.embedding.length} then ${similaritySql(vector, 'c')} end`
    : sql<number>`null::float8`;
  const bm25 = lexical ? bm25Sql(lexical, { tsv: sql.ref('c.tsv'), k: lengthNormSql(lexical, 'c') }) : sql<number>`null::float8`;
  const { rows } = await sql<DocumentPassage>`
    with ${vector ? sql`query_vector as (${queryVectorSql(vector)}),` : sql``} doc as (
      select c.id, c.page, c.position, coalesce(${bm25}, 0)::float8 as lexical, coalesce(${dense}, 0)::float8 as dense,
             (select count(*) from regexp_matches(c.text, ${FIGURE_PATTERN}, 'g'))::int as figures,
             (select count(*) from regexp_matches(c.text, ${String.raw`\S+`}, 'g'))::int as words,
             array(select m.match[1]::int from regexp_matches(c.text, ${SMALL_NUMBER_PATTERN}, 'g') with ordinality as m(match, n)
                   order by m.n) as "smallNumbers"
      from chunks c
      where c.kb_id = ${sql.lit(kbId)} and c.document_id = ${documentId} and ${enabledChunkSql('c')})
    select * from doc order by id`.execute(db);
  return rows;
}

/**
 * `order` with each page's first passage before any page's second, stable otherwise: the places a
 * list holds go to as many pages as they can, as a search engine shows at most a result or two per
 * site. A second passage of a page shown already is a second look at the same place, while another
 * page that matches waits below it. `pageOf` names a passage's page (null: a passage without one,
 * from Markdown, plain text or a web page, stands for itself).
 */
export function onePassagePerPageFirst<R>(order: R[], pageOf: (r: R) => string | number | null): R[] {
  const seen = new Set<string | number>();
  const firsts: R[] = [];
  const repeats: R[] = [];
  for (const r of order) {
    const page = pageOf(r);
    if (page !== null && seen.has(page)) repeats.push(r);
    else firsts.push(r);
    if (page !== null) seen.add(page);
  }
  return [...firsts, ...repeats];
}

/**
 * The top k re-ranked within one document: the places `documentId` holds in `top` are refilled
 * with that document's passages in the order of `order` (best first); every other passage keeps its
 * place. `order` holds `top`'s passages of the document and may hold more.
 */
export function withinChosenDocument<R extends { id: string; document_id: string }>(top: R[], documentId: string, order: R[]): R[] {
  const queue = order.filter((r) => r.document_id === documentId);
  return top.map((r) => (r.document_id === documentId ? (queue.shift() ?? r) : r));
}
