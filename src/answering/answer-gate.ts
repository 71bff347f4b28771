/**
 * The answer path's one gate: whether the retrieved passages are good enough to answer from, and
 * why not. Every transport's answer (answerStream) and any view of the decision (the dashboard's
 * sandbox, the benches) read this structured result, so there is a single place that says no.
 *
 * Rules, in order: no passage retrieved; retrieval not confident (retrieve.ts: no lexical hit and a
 * weak best cosine); for the offline extractive answerer only, no passage holds the question's
 * content (src/answering/offline/support.ts: a passage's support, every word in one passage, or the passages
 * of a document the question names holding the rest of it). A request of several sentences is
 * judged on the sentence that asks (support.ts askingPart), not on how it says to answer. An LLM judges the passages' relevance itself, so online the
 * third rule is skipped and the model may still refuse in words (reported as `model_refused`).
 */
import { supportVerdict } from './offline/support';
import type { AnswerPassage } from '../ai/prompts';
import type { QuestionAnalysis } from './question';
import type { Retrieval } from './retrieval/retrieve';

/** `annotation`: a curated answer matched the question (match-annotation.ts); no passage was read. */
export type GateReason = 'answered' | 'no_passages' | 'not_confident' | 'not_covered' | 'model_refused' | 'annotation';

export interface AnswerGate {
  /** Whether the passages went to the answer model. */
  pass: boolean;
  reason: GateReason;
  confident: boolean;
  /** Offline support of the best passage (null when the offline gate did not run). */
  support: number | null;
  /** The support a passage needs (null when the offline gate did not run). */
  minSupport: number | null;
  /** Some passage holds every content word of the question (offline gate only). */
  fullCoverage: boolean | null;
  /** What the passages of a document the question names hold of the rest of it (offline gate only; 0 when it names none). */
  namedCoverage: number | null;
}

export function decideAnswerGate(input: { question: QuestionAnalysis; retrieval: Retrieval; passages: AnswerPassage[]; offline: boolean }): AnswerGate {
  const { retrieval, passages, offline } = input;
  const base = { confident: retrieval.confident, support: null, minSupport: null, fullCoverage: null, namedCoverage: null };
  if (retrieval.chunks.length === 0) return { ...base, pass: false, reason: 'no_passages' };
  if (!offline) return { ...base, pass: retrieval.confident, reason: retrieval.confident ? 'answered' : 'not_confident' };
  // The extractive offline answerer matches words, so it is told no when no passage holds the
  // question's content; the verdict is computed even when retrieval is not confident so its scores show.
  const verdict = supportVerdict(
    input.question,
    passages.map((p, i) => ({ ...p, dense: retrieval.chunks[i]!.dense, lexical: retrieval.chunks[i]!.lexical })),
    retrieval.lexicalCeiling,
  );
  const scores = {
    confident: retrieval.confident,
    support: Number(verdict.bestSupport.toFixed(4)),
    minSupport: verdict.minSupport,
    fullCoverage: verdict.fullCoverage,
    namedCoverage: verdict.namedCoverage,
  };
  if (!retrieval.confident) return { ...scores, pass: false, reason: 'not_confident' };
  return { ...scores, pass: verdict.covered, reason: verdict.covered ? 'answered' : 'not_covered' };
}
