/**
 * Hybrid retrieval over ONE knowledge base: BM25 and vector candidates, fused, top_k returned with
 * what a citation needs. The KB id comes from a KB already checked to belong to the caller, so
 * retrieval can never reach another organisation's chunks.
 */
import { sql } from 'kysely';
import type { AnsweringDeps } from '../deps';
import { PREPARED } from '../../../db/connect';
import type { KnowledgeBase } from '../../../db/types';
import type { ChunkId, DocumentId, KbId } from '../../ids';
import { fusedScoreSql, publishedScore, type Candidate, type FusionWeights } from './fuse';
import { bm25Sql, candidateSql, generatorQuery, kbLanguages, lengthNormSql, lexicalQuery, type LexicalQuery } from './lexical-search';
import { questionLanguage, type Language } from '../../text/language';
import { analyseQuestion } from '../analyse-question';
import type { QuestionAnalysis } from '../question';
import { documentEvidence } from './document-evidence';
import { aboutDocument, titleBoosts } from './title-boost';
import type { DocumentIdentity } from '../../ingest/document-identity';
import { asksForFigures, documentPassages, figurePageBonuses, onePassagePerPageFirst, withinChosenDocument } from './figure-pages';
import { enabledChunkSql, nearestSql, queryVectorSql, similaritySql, type QueryVector } from './vector-search';
import { retrievalDuration } from '../../metrics';
import { DEFAULT_FUSION, FIGURE_PAGE_WEIGHT, MIN_DENSE_WITHOUT_LEXICAL, NAMED_DOCUMENTS } from '../calibration';

export type RetrievalMode = 'hybrid' | 'lexical' | 'dense';

export type RetrievedChunk = {
  chunk_id: ChunkId;
  doc_id: DocumentId;
  filename: string;
  /** The title the document is indexed under (document-title.ts); null before migration 0501. */
  title: string | null;
  /** What the document is about (document-identity.ts); null before migration 0801 or re-ingestion. */
  identity: DocumentIdentity | null;
  source: 'upload' | 'url';
  text: string;
  heading_path: string[];
  page: number | null;
  url: string | null;
  score: number;
  lexical: number;
  dense: number;
};

/**
 * `lexicalCeiling`: the BM25 score of a chunk holding every question word (LexicalQuery.ceiling), 0
 * when no question word is in the KB, read by the offline refusal gate (src/answering/offline/support.ts);
 * absent where a retrieval is built by hand.
 */
export type Retrieval = {
  chunks: RetrievedChunk[];
  confident: boolean;
  lexicalCeiling?: number;
  /** The question's language (text/language.ts), which its words were stemmed in; absent where a retrieval is built by hand. */
  language?: Language;
  /** The question retrieval searched, analysed (question.ts), for the gate and the answerer to read on; absent where a retrieval is built by hand. */
  question?: QuestionAnalysis;
  /**
   * The top k as ranked, when the order `chunks` shows changed it (the figure-page order within the
   * chosen document, each page once before any page twice: figure-pages.ts). The offline answerer
   * quotes sentences; when it finds none to quote in `chunks`, the answer (and what is sent with it)
   * is made from these instead (answer-stream.ts `readRetrieval`). A language model reads `chunks`.
   */
  ranked?: RetrievedChunk[];
  /**
   * The ranking's next passages after those `chunks` shows, best first: a language model reads
   * `chunks` and then as many of these as its prompt budget holds (answer-stream.ts
   * `promptChunks`), so the passage that answers is in its prompt more often than in the top k.
   */
  following?: RetrievedChunk[];
};

/**
 * The statement's text varies with the KB, the number of query words and the candidate pool (those
 * are literals, for its cached plan; every other value is a parameter). Up to this many words it is
 * prepared per connection (db/connect.ts); the rare longer query runs unprepared, as its text is
 * unlikely to come again before it is evicted.
 */
const MAX_PREPARED_TERMS = 12;

/** The candidate pool grows in steps of this many, so that few statement texts exist. */
const CANDIDATE_STEP = 30;

/**
 * Candidates taken from each side: 4 x top_k, at least CANDIDATE_STEP, in steps of it. Up to
 * HNSW_EF_SEARCH of them, the vector side's come in one pass of the index.
 */
export const candidatePool = (topK: number) => Math.ceil((topK * 4) / CANDIDATE_STEP) * CANDIDATE_STEP;

type SearchRow = {
  id: ChunkId;
  lexical: number;
  dense: number;
  fused: number;
  lexical_hits: number;
  best_similarity: number;
  /** The fused candidate set's score statistics (figure-pages.ts scores passages outside it on its scale). */
  lexical_mean: number;
  lexical_sd: number;
  dense_mean: number;
  dense_sd: number;
  document_id: DocumentId;
  text: string;
  heading_path: string[];
  page: number | null;
  position: number;
  url: string | null;
  filename: string;
  title: string | null;
  identity: DocumentIdentity | null;
  source: 'upload' | 'url';
};

/**
 * One query against one KB, in one statement (after the lexicon lookup):
 *   - `lex`: the BM25 top `pool`, whose vectors are read afterwards for the cosine similarity (carried
 *     through the top-N sort they cost 1.7 ms on a question with 2,300 candidates);
 *   - `vec`: the HNSW top `pool`, each with its BM25 score;
 *   - a chunk found by one side has its real score from the other (or 0), then both are fused
 *     (fuse.ts) over the candidate set and the best `limit` rows leave the database with their texts.
 * `lexical_hits` and `best_similarity` describe the whole candidate set (for the refusal decision).
 * Rows are read again by heap tuple id (`heap_tid`, the ctid, stable within the statement's
 * snapshot): a TID scan instead of a primary-key descent, which perf put at 8% of database time.
 */
async function searchChunks(
  db: AnsweringDeps['db'],
  kbId: KbId,
  lexical: LexicalQuery | null,
  vector: QueryVector | null,
  opts: { pool: number; weights: FusionWeights; limit: number; documents?: DocumentId[] },
): Promise<SearchRow[]> {
  if (!lexical && !vector) return [];
  // A chunk embedded by another model (mid re-embedding) has no comparable vector: dense 0.
  const dense = (chunk: string) =>
    vector
      ? sql<number>`case when ${sql.ref(`${chunk}.embedding_model`)} = ${vector.model} and ${sql.ref(`${chunk}.embedding_dimensions`)} = ${vector.embedding.length}
          then ${similaritySql(vector, chunk)} end`
      : sql<number>`null::float8`;
  const none = sql`select null::text as id, null::tid as heap_tid, null::float8 as lexical, null::float8 as dense where false`;
  // `offset 0` keeps the subquery: its `k` is computed once per candidate, not once per use.
  const lexTop = lexical
    ? sql`select top.id, top.heap_tid, top.lexical, ${dense('e')} as dense from (
            select m.id, m.heap_tid, ${bm25Sql(lexical, { tsv: sql.ref('m.tsv'), k: sql.ref('m.k') })} as lexical from (
              select c.id, c.ctid as heap_tid, c.tsv, ${lengthNormSql(lexical, 'c')} as k from chunks c
              where c.kb_id = ${sql.lit(kbId)} and ${candidateSql(lexical, 'c')} and ${enabledChunkSql('c')} offset 0) m
            order by lexical desc limit ${sql.lit(opts.pool)}) top
          join chunks e on e.ctid = top.heap_tid`
    : none;
  const vecTop = vector
    ? sql`select near.id, near.ctid as heap_tid, ${lexical ? bm25Sql(lexical, { tsv: sql.ref('near.tsv'), k: lengthNormSql(lexical, 'near') }) : sql`null::float8`} as lexical, near.score as dense
          from (${nearestSql(kbId, vector, opts.pool, ['id', 'ctid', 'tsv', 'lexeme_count'])}) near`
    : none;
  // The documents the question names (their identity): their best passages join the candidates even
  // when other documents' passages fill both top lists, scored on every question word (not only the
  // rare ones) since only these documents' chunks are read. They are neither side's candidates for
  // the refusal statistics below.
  // The ids are parameters, so the statement's text, and with it the prepared statement, is the same
  // for every question of a shape. PostgreSQL keeps a generic plan only when it is costed no higher
  // than the custom plans of the first executions; otherwise it plans every execution again, ~2 ms
  // at 50,000 chunks (docs/retrieval.md, prepared statements). So when the question names no document the
  // two parts are left out (a custom plan costs them at nothing, a generic one cannot), and when it
  // names some, the ids are always NAMED_DOCUMENTS parameters, padded with '' (no document's id):
  // a generic plan expects as many documents as a custom one then.
  const documents = opts.documents ?? [];
  const padded = [...documents, ...Array<string>(NAMED_DOCUMENTS).fill('')].slice(0, Math.max(NAMED_DOCUMENTS, documents.length));
  const named = sql`array[${sql.join(padded.map((id) => sql.val(id)))}]::text[]`;
  const inNamed = (chunk: string) => sql`${sql.ref(`${chunk}.kb_id`)} = ${sql.lit(kbId)} and ${sql.ref(`${chunk}.document_id`)} = any(${named}) and ${enabledChunkSql(chunk)}`;
  // The named documents' chunks are read by document (`offset 0` keeps the word match out of that
  // scan): ANDed with the full-text index, a question's common words made the index read thousands
  // of entries, 2.6 of the 4.8 ms this part took at 50,000 chunks (measured with titled documents).
  const docLex = lexical && documents.length > 0
    ? sql`select m.id, m.heap_tid, m.lexical, ${dense('e')} as dense from (
            select c.id, c.heap_tid, ${bm25Sql(lexical, { tsv: sql.ref('c.tsv'), k: lengthNormSql(lexical, 'c') })} as lexical from (
              select c.id, c.ctid as heap_tid, c.tsv, c.lexeme_count from chunks c where ${inNamed('c')} offset 0) c
            where c.tsv @@ ${generatorQuery({ generators: lexical.terms, together: false })}::tsquery
            order by lexical desc limit ${sql.lit(opts.pool)}) m
          join chunks e on e.ctid = m.heap_tid`
    : none;
  const docVec = vector && documents.length > 0
    ? sql`select c.id, c.ctid as heap_tid, ${lexical ? bm25Sql(lexical, { tsv: sql.ref('c.tsv'), k: lengthNormSql(lexical, 'c') }) : sql`null::float8`} as lexical, ${dense('c')} as dense
          from chunks c where ${inNamed('c')} order by dense desc nulls last limit ${sql.lit(opts.pool)}`
    : none;
  const prepared = sql.raw(lexical && lexical.terms.length > MAX_PREPARED_TERMS ? '' : PREPARED);
  const { rows } = await sql<SearchRow>`${prepared}
    with ${vector ? sql`query_vector as (${queryVectorSql(vector)}),` : sql``}
         lex as materialized (${lexTop}),
         vec as materialized (${vecTop}),
         doc_lex as materialized (${docLex}),
         doc_vec as materialized (${docVec}),
         candidates as (
           select id, heap_tid, coalesce(max(lexical), 0)::float8 as lexical, coalesce(max(dense), 0)::float8 as dense,
                  bool_or(from_lex) as from_lex, bool_or(from_vec) as from_vec
           from (select id, heap_tid, lexical, dense, true as from_lex, false as from_vec from lex
                 union all select id, heap_tid, lexical, dense, false, true from vec
                 union all select id, heap_tid, lexical, dense, false, false from doc_lex
                 union all select id, heap_tid, lexical, dense, false, false from doc_vec) found
           group by id, heap_tid),
         fused as (
           select id, heap_tid, lexical, dense, ${fusedScoreSql(opts.weights)} as fused,
                  (count(*) filter (where from_lex) over ())::int as lexical_hits,
                  coalesce(max(dense) filter (where from_vec) over (), 0)::float8 as best_similarity,
                  avg(lexical) over () as lexical_mean, coalesce(stddev_pop(lexical) over (), 0) as lexical_sd,
                  avg(dense) over () as dense_mean, coalesce(stddev_pop(dense) over (), 0) as dense_sd
           from candidates)
    select f.id, f.lexical, f.dense, f.fused, f.lexical_hits, f.best_similarity, f.lexical_mean, f.lexical_sd, f.dense_mean, f.dense_sd,
           c.document_id, c.text, c.heading_path, c.page, c.position, c.url, d.filename, d.title, d.identity, d.source
    from (select * from fused order by fused desc, id limit ${opts.limit}) f
    join chunks c on c.ctid = f.heap_tid and c.kb_id = ${sql.lit(kbId)}
    join documents d on d.id = c.document_id
    order by f.fused desc, f.id`.execute(db);
  return rows;
}

/** Up to this many documents' titles and identities are read per question (one index scan); past it, only the candidates' are. */
const MAX_ABOUT_DOCUMENTS = 2000;

/** What each document of the KB is about (aboutDocument), for the documents that have a title or an identity; null past MAX_ABOUT_DOCUMENTS. */
async function documentsAbout(
  db: AnsweringDeps['db'],
  kbId: KbId,
): Promise<Array<{ id: string; about: string | null; cover: string | null; period: string | null }> | null> {
  const rows = await db
    .selectFrom('documents')
    .select(['id', 'title', 'identity'])
    .where('kb_id', '=', kbId)
    .where('status', '=', 'ready')
    .where('enabled', '=', true)
    .where((eb) => eb.or([eb('title', 'is not', null), eb('identity', 'is not', null)]))
    .limit(MAX_ABOUT_DOCUMENTS + 1)
    .execute();
  if (rows.length > MAX_ABOUT_DOCUMENTS) return null;
  return rows.map((r) => ({ id: r.id, about: aboutDocument(r.title, r.identity), cover: r.identity?.headline.join('\n') ?? null, period: r.identity?.period ?? null }));
}

export type CandidateScores = { candidates: Candidate<ChunkId>[]; lexicalHits: number; bestSimilarity: number };

/**
 * Every candidate of one query with both of its scores, unfused: for tuning the fusion weights on
 * the same lists (`npm run bench -- quality --tune`) and for tests.
 */
export async function scoreCandidates(
  db: AnsweringDeps['db'],
  kbId: KbId,
  query: string,
  vector: QueryVector | null,
  opts: { pool: number; lexical: boolean },
): Promise<CandidateScores> {
  const lexical = opts.lexical ? await lexicalQuery(db, kbId, query, questionLanguage(query, await kbLanguages(db, kbId))) : null;
  const rows = await searchChunks(db, kbId, lexical, vector, { pool: opts.pool, weights: DEFAULT_FUSION, limit: 2 * opts.pool });
  return {
    candidates: rows.map((r) => ({ id: r.id, lexical: r.lexical, dense: r.dense })),
    lexicalHits: rows[0]?.lexical_hits ?? 0,
    bestSimilarity: rows[0]?.best_similarity ?? 0,
  };
}

export async function retrieve(
  deps: Pick<AnsweringDeps, 'db' | 'embeddings' | 'logger'>,
  kb: Pick<KnowledgeBase, 'id' | 'embedding_model'>,
  query: string,
  /** `figurePageWeight`: FIGURE_PAGE_WEIGHT unless given (0 switches the figure-page order off; tests). */
  opts: { topK: number; mode?: RetrievalMode; weights?: FusionWeights; figurePageWeight?: number },
): Promise<Retrieval> {
  const timer = retrievalDuration.startTimer();
  const mode = opts.mode ?? 'hybrid';
  const provider = mode === 'lexical' ? null : deps.embeddings.get(kb.embedding_model);
  // The KB's documents, the question's words in its lexicon and the question's vector do not depend
  // on one another: asked for at once, the two round trips overlap the embedding.
  // If the embedding service fails, full-text search alone still answers: degrade, don't fail.
  const embedded = provider ? provider.embedQuery(query).catch((err) => (deps.logger.warn({ err }, 'query embedding failed; full-text only'), null)) : null;
  // The question's words are read in its language, chosen among the KB's documents' languages.
  const language = questionLanguage(query, await kbLanguages(deps.db, kb.id));
  const question = analyseQuestion(query);
  const [about, lexical, embedding] = await Promise.all([
    documentsAbout(deps.db, kb.id),
    mode === 'dense' ? null : lexicalQuery(deps.db, kb.id, query, language),
    embedded,
  ]);
  const weights = mode === 'lexical' ? { lexical: 1, dense: 0 } : mode === 'dense' ? { lexical: 0, dense: 1 } : (opts.weights ?? DEFAULT_FUSION);
  const pool = candidatePool(opts.topK);
  // Stage one: which documents the question names, by their titles and identities over the whole KB.
  const docBoost = new Map<string, number>();
  if (about) {
    const boosts = titleBoosts(question, about.map((d) => d.about), {
      universe: about.map((d) => d.about),
      cover: about.map((d) => d.cover),
      periods: about.map((d) => d.period),
    });
    about.forEach((d, i) => boosts[i]! > 0 && docBoost.set(d.id, boosts[i]!));
  }
  const named = [...docBoost.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, NAMED_DOCUMENTS)
    .map(([id]) => id as DocumentId);
  // Stage two: the fused top `pool` (not only top_k), with the named documents' best passages, leave
  // the database so that the document boosts and the document-level evidence can re-rank them.
  const vector = provider && embedding ? { model: provider.id, embedding } : null;
  const fusedRows = await searchChunks(deps.db, kb.id, lexical, vector, {
    pool,
    weights,
    limit: pool + (named.length > 0 ? pool : 0),
    documents: named,
  });
  // A question naming whose document or which period prefers the documents whose title or
  // identity says so (title-boost.ts), the same for every transport. Without the KB's document list
  // (a KB of very many documents), among the candidates' documents.
  const boosts = about
    ? fusedRows.map((r) => docBoost.get(r.document_id) ?? 0)
    : titleBoosts(question, fusedRows.map((r) => aboutDocument(r.title, r.identity)), { periods: fusedRows.map((r) => r.identity?.period ?? null) });
  const titled = fusedRows.map((r, i) => ({ ...r, fused: r.fused + boosts[i]! }));
  const evidence = documentEvidence(titled);
  const ranked = titled
    .map((r, i) => ({ ...r, fused: r.fused + evidence[i]!, offset: boosts[i]! + evidence[i]! }))
    .sort((a, b) => b.fused - a.fused || (a.id < b.id ? -1 : 1));
  const first = ranked[0];
  const confident = first !== undefined && (first.lexical_hits > 0 || first.best_similarity >= MIN_DENSE_WITHOUT_LEXICAL);
  const figures = first !== undefined && named.includes(first.document_id) && asksForFigures(question);
  const shown = figures
    ? await withFigurePages(deps.db, kb.id, { ranked, topK: opts.topK, lexical, vector, weights, weight: opts.figurePageWeight ?? FIGURE_PAGE_WEIGHT })
    : onePassagePerPage(ranked, opts.topK);
  const chunks = shown.map(toRetrievedChunk);
  const plain = ranked.slice(0, opts.topK);
  const reordered = shown.length !== plain.length || shown.some((r, i) => r.id !== plain[i]!.id);
  // Each page once before any page twice, counting the pages shown, as the shown list is chosen.
  const shownIds = new Set(shown.map((r) => r.id));
  const following = onePassagePerPageFirst([...shown, ...ranked.filter((r) => !shownIds.has(r.id))], pageKey)
    .filter((r) => !shownIds.has(r.id))
    .map(toRetrievedChunk);
  timer();
  return { chunks, confident, lexicalCeiling: lexical?.ceiling ?? 0, language, question, following, ...(reordered ? { ranked: plain.map(toRetrievedChunk) } : {}) };
}

type RankedRow = SearchRow & { offset: number };

const pageKey = (r: SearchRow) => (r.page === null ? null : `${r.document_id}:${r.page}`);

function toRetrievedChunk(r: SearchRow): RetrievedChunk {
  return {
    chunk_id: r.id,
    doc_id: r.document_id,
    filename: r.filename,
    title: r.title,
    identity: r.identity,
    source: r.source,
    text: r.text,
    heading_path: r.heading_path,
    page: r.page,
    url: r.url,
    score: publishedScore(r.fused),
    lexical: r.lexical,
    dense: r.dense,
  };
}

/**
 * The top k with the first-ranked document's places refilled in the order of its passages' fused
 * score plus their figure-page bonus (figure-pages.ts); its passages beyond the candidates are
 * scored on the candidate set's scale, with the same document boosts as its candidates. Published
 * scores are kept non-increasing down the list: a passage moved up shows at most the score of the
 * one above it.
 */
async function withFigurePages(
  db: AnsweringDeps['db'],
  kbId: KbId,
  input: { ranked: RankedRow[]; topK: number; lexical: LexicalQuery | null; vector: QueryVector | null; weights: FusionWeights; weight: number },
): Promise<SearchRow[]> {
  const { ranked, topK, weights } = input;
  const first = ranked[0]!;
  const top = ranked.slice(0, topK);
  if (input.weight <= 0) return top;
  const passages = await documentPassages(db, kbId, first.document_id, input.lexical, input.vector);
  const stats = { lexicalMean: first.lexical_mean, lexicalSd: first.lexical_sd, denseMean: first.dense_mean, denseSd: first.dense_sd };
  const scored = figurePageBonuses(passages, stats, weights, input.weight);
  const inPool = new Map(ranked.filter((r) => r.document_id === first.document_id).map((r) => [r.id as string, r]));
  const ids = new Set([...inPool.keys(), ...scored.keys()]);
  const pageOf = new Map(passages.map((p) => [p.id, p.page]));
  const order = onePassagePerPageFirst(
    [...ids]
      .map((id) => {
        const s = scored.get(id) ?? { fused: 0, bonus: 0 };
        return { id, key: (inPool.get(id)?.fused ?? s.fused + first.offset) + s.bonus, bonus: s.bonus, page: pageOf.get(id) ?? inPool.get(id)?.page ?? null };
      })
      // Only a passage with a bonus can come from beyond the candidates.
      .filter((o) => inPool.has(o.id) || o.bonus > 0)
      .sort((a, b) => b.key - a.key || (a.id < b.id ? -1 : 1)),
    (o) => o.page,
  );
  const slots = top.filter((r) => r.document_id === first.document_id).length;
  const wanted = order.slice(0, slots);
  const missing = wanted.filter((o) => !inPool.has(o.id)).map((o) => o.id as ChunkId);
  const scores = new Map(passages.map((p) => [p.id, p]));
  const fetched = (missing.length > 0 ? await passageRows(db, kbId, missing, first) : []).map((r) => ({
    ...r,
    lexical: scores.get(r.id)?.lexical ?? 0,
    dense: scores.get(r.id)?.dense ?? 0,
  }));
  const byId = new Map<string, SearchRow>([...inPool, ...fetched.map((r) => [r.id as string, r] as const)]);
  const reordered = wanted.flatMap((o) => {
    const r = byId.get(o.id);
    return r ? [{ ...r, fused: o.key }] : [];
  });
  return nonIncreasing(withinChosenDocument(top, first.document_id, reordered));
}

/**
 * The top k outside the figure-page order: each page's best passage before any page's second, over
 * every document and from the candidates beyond k (onePassagePerPageFirst).
 */
function onePassagePerPage(ranked: SearchRow[], topK: number): SearchRow[] {
  return nonIncreasing(onePassagePerPageFirst(ranked, pageKey).slice(0, topK));
}

/** Published scores kept non-increasing down the list: a passage moved up shows at most the score of the one above it. */
function nonIncreasing(rows: SearchRow[]): SearchRow[] {
  let ceiling = Infinity;
  return rows.map((r) => {
    const fused = Math.min(r.fused, ceiling);
    ceiling = fused;
    return { ...r, fused };
  });
}

/** The rows of passages found beyond the candidates, with the candidate set's statistics of `like`. */
async function passageRows(db: AnsweringDeps['db'], kbId: KbId, ids: ChunkId[], like: SearchRow): Promise<SearchRow[]> {
  const { rows } = await sql<Omit<SearchRow, 'lexical' | 'dense' | 'fused' | 'lexical_hits' | 'best_similarity' | 'lexical_mean' | 'lexical_sd' | 'dense_mean' | 'dense_sd'>>`
    select c.id, c.document_id, c.text, c.heading_path, c.page, c.position, c.url, d.filename, d.title, d.identity, d.source
    from chunks c join documents d on d.id = c.document_id
    where c.kb_id = ${sql.lit(kbId)} and c.id = any(${sql.val(ids)}::text[])`.execute(db);
  return rows.map((r) => ({
    ...r,
    lexical: 0,
    dense: 0,
    fused: 0,
    lexical_hits: like.lexical_hits,
    best_similarity: like.best_similarity,
    lexical_mean: like.lexical_mean,
    lexical_sd: like.lexical_sd,
    dense_mean: like.dense_mean,
    dense_sd: like.dense_sd,
  }));
}
