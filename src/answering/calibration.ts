/**
 * The answering path's tuned numbers, by stage, each with what it does and how it was chosen. They
 * were measured with the offline embeddings; the benches named re-measure them. Structural values
 * (statement sizes, caches, what a heading or an index page looks like) stay with their code.
 *
 * Imports nothing: every stage reads it, so it can never be part of an import cycle.
 */

// ---- Candidates (retrieval/lexical-search.ts, fuse.ts, retrieve.ts) ----

/**
 * BM25's term saturation (k1) and length normalisation (b). Tuned on one half of a set of
 * general-knowledge questions, the other half reported: a plateau around k1 0.4-0.9, b 0.75-1.0
 * (`npm run bench -- quality`).
 */
export const BM25 = { k1: 0.6, b: 0.9 } as const;

/**
 * A query term picks lexical candidates when its document frequency is at most this share of the
 * KB (never under 50 chunks, never above RARE_TERM_MAX_DF). Chosen for speed at the same answers:
 * with a share alone the chunks scored per question grew with the KB (mean 306 at 50,000 chunks,
 * 1,275 at 200,000); with the ceiling and two-of-three, 200 and 536, for the same answers in the
 * top 5 (`npm run bench -- candidates-at-scale`, docs/scaling.md).
 */
export const RARE_TERM_SHARE = 0.005;
export const RARE_TERM_MAX_DF = 250;

/**
 * Weights of the z-scored BM25 and cosine in the fused score. Tuned on one half of the
 * general-knowledge questions, checked on the other (`npm run bench -- quality --tune`): BM25
 * carries most of the signal.
 */
export const DEFAULT_FUSION: { lexical: number; dense: number } = { lexical: 0.8, dense: 0.2 };

/**
 * How many of the documents the question names best (title-boost.ts) have their passages searched
 * besides the KB-wide candidates; also the document-id parameters the statement always takes, so
 * that it stays one prepared statement. No sweep of the value is recorded.
 */
export const NAMED_DOCUMENTS = 3;

// ---- Re-ranking (retrieval/title-boost.ts, document-evidence.ts, figure-pages.ts) ----

/**
 * In fused z-score units: the passages of the document whose title and identity best match the
 * question move up this much (TITLE_BOOST), and a document of the period it names by PERIOD_BOOST
 * (scaled by the subject match when the question names a subject). Set when the title and period
 * re-ranking came in and measured as a whole on earnings-call questions; no sweep of the values is
 * recorded (`npm run bench -- reports`).
 */
export const TITLE_BOOST = 1.0;
export const PERIOD_BOOST = 2.0;

/** How much a title word the question writes in lower case counts beside one it writes as a name. Set by hand; no sweep recorded. */
export const ORDINARY_WORD_WEIGHT = 0.5;

/**
 * In fused z-score units: the passages of the document with the most evidence among the best
 * EVIDENCE_CANDIDATES candidates move up by DOCUMENT_EVIDENCE. 5 candidates measured better than 10
 * (docs/retrieval.md); no sweep of the weight is recorded.
 */
export const DOCUMENT_EVIDENCE = 0.5;
export const EVIDENCE_CANDIDATES = 5;

/**
 * In fused z-score units per standard deviation of page figure density, within the chosen
 * document. 1.0 chosen on the tuning half of a set of annual and quarterly filings; 1.5 and 2
 * measured worse (`npm run bench -- reports`).
 */
export const FIGURE_PAGE_WEIGHT = 1.0;

// ---- Answerability gate (retrieval/retrieve.ts `confident`, offline/support.ts) ----

/** Below this best cosine, with no keyword match at all, nothing in the KB is about the question. No measurement recorded. */
export const MIN_DENSE_WITHOUT_LEXICAL = 0.45;

/**
 * Offline, a passage's support is coverage + DENSE_WEIGHT × cosine + BM25 share of the question's
 * ceiling; the question is covered from MIN_SUPPORT. Calibrated on earnings-call questions, a
 * sample of the general-knowledge questions and 25 off-topic questions over four corpora, checked
 * on 25 held-out off-topic questions (`npm run bench -- reports`). Another embedding model's cosines
 * are on another scale, so the gate is for the offline answerer only.
 */
export const MIN_SUPPORT = 1.75;
export const DENSE_WEIGHT = 2;

/**
 * The share of the rest of a question that the passages of a document it names must hold. On the
 * tuning half of a set of annual and quarterly filings 0.3-0.6 answer the same questions; 0.3 also
 * answers one more earnings-call question rightly, while that set's unanswerable question stays
 * refused.
 */
export const MIN_NAMED_DOCUMENT_COVERAGE = 0.3;

/**
 * Passages read in a language other than English are judged on words alone: coverage +
 * WORDS_ONLY_LEXICAL_WEIGHT × BM25 share, covered from WORDS_ONLY_MIN_SUPPORT. Chosen on the tuning
 * halves of general-knowledge questions in Chinese, German and Spanish and their tuning off-topic
 * lists, over weights 1-6, as the threshold that refuses fewest answerable questions while
 * answering at most 1 of 25 off-topic ones per language; the other halves and held-out off-topic
 * lists report it (`npm run bench -- languages`).
 */
export const WORDS_ONLY_MIN_SUPPORT = 1.4;
export const WORDS_ONLY_LEXICAL_WEIGHT = 4;

// ---- Offline answer (offline/answerer.ts) ----

/**
 * The extractive answer's shape (AnswerOptions): least question coverage to quote a sentence, the
 * share of the best sentence's score a further one needs, at most this many sentences and words.
 * `leadDocumentBonus` favours sentences of the first passage's document, which retrieval's document
 * ranking gets right more often than the sentence matcher can tell: 0.05-0.15 measured alike on
 * earnings-call questions. No sweep of the others is recorded.
 */
export const ANSWER_DEFAULTS = { minCoverage: 0.22, secondSentenceRatio: 0.8, maxSentences: 3, maxWords: 90, leadDocumentBonus: 0.1 };

/** The shape of an answer asked as a list or in several parts: more, longer sentences. No sweep recorded. */
export const LIST_ANSWER = { secondSentenceRatio: 0.6, maxSentences: 5, maxWords: 170 };

/** How much of a question word in the previous sentence counts for this one. No sweep recorded. */
export const PREVIOUS_CARRY = 0.35;

/**
 * The same, for a sentence opening with a pronoun or demonstrative, which continues its
 * predecessor's subject. On 500 general-knowledge questions: 0.35 (as for any sentence) 357
 * answered, 0.5 358, 0.7 360, 0.8-0.9 361, 1.0 360 (`npm run bench -- quality`).
 */
export const ANAPHORIC_CARRY = 0.8;

/**
 * For a figure question (offline/figures.ts), a sentence holding a figure gains FIGURE_BONUS and
 * one without loses NO_FIGURE_PENALTY. Set on a set of annual and quarterly filings; no sweep
 * recorded (`npm run bench -- reports`).
 */
export const FIGURE_BONUS = 0.1;
export const NO_FIGURE_PENALTY = 0.35;

/** A heading's score is lowered this much: below a sentence of its passage that covers the question as well. Set by hand. */
export const HEADING_PENALTY = 0.3;

// ---- Follow-ups (offline/already-said.ts) ----

/** Subtracted from a sentence a previous answer quoted, when the follow-up asks for something else. Set by hand. */
export const ALREADY_SAID_PENALTY = 0.5;
