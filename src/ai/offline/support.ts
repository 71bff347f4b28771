/**
 * Whether retrieved passages hold what a question asks about, judged before the extractive
 * answerer picks sentences: it can only match words, so a passage sharing one word with an
 * off-topic question ("days" in "How many days of leave do new employees get?") would otherwise
 * be quoted as the answer.
 *
 * Support of a passage = the share of the question's content (IDF-weighted over the passages'
 * sentences, so a word no passage has weighs most) found in the passage or its source line
 * (title, headings), plus twice its cosine similarity to the question, plus its BM25 score as a
 * share of the question's ceiling (the score of a chunk holding every question word, where a word
 * the whole KB lacks counts at full IDF: retrieve.ts `lexicalCeiling`). The three disagree on
 * off-topic questions: the passage words that match are the KB's common ones ("new", "days"),
 * the rare words that say what the question is about ("leave", "maternity", "fertiliser") are
 * missing or absent from the KB, and the passage means something else. The question is covered
 * when the best passage reaches MIN_SUPPORT.
 *
 * Calibrated on the earnings-call questions, a SQuAD sample and 25 off-topic questions against
 * four corpora with the offline embeddings, checked on 25 held-out off-topic questions
 * (bench/research/offtopic-gate.ts, docs/answers.md); the scale of another embedding model's
 * cosines differs, so the gate is only for the offline answerer (an LLM judges relevance itself).
 */
import { questionContent, splitSentences, tokenize } from './text';

export const MIN_SUPPORT = 1.75;
const DENSE_WEIGHT = 2;

export type SupportPassage = {
  text: string;
  source?: string;
  /** Cosine similarity to the question. */
  dense?: number;
  /** BM25 score (retrieve.ts), read against the question's lexical ceiling. */
  lexical?: number;
};

type SupportParts = { terms: number; passages: Array<{ coverage: number; support: number }> };

function supportParts(question: string, passages: SupportPassage[], lexicalCeiling: number): SupportParts {
  const qTerms = [...new Set(questionContent(tokenize(question)).map((t) => t.stem))];
  if (qTerms.length === 0) return { terms: 0, passages: passages.map(() => ({ coverage: 0, support: 0 })) };
  const sentenceStems: Array<Set<string>> = [];
  const passageStems = passages.map((p) => {
    const all = new Set<string>();
    for (const s of splitSentences(p.text)) {
      const stems = new Set(tokenize(s.text).map((t) => t.stem));
      sentenceStems.push(stems);
      for (const x of stems) all.add(x);
    }
    const source = (p.source ?? '').replace(/\.(?:pdf|docx?|md|txt|html?)\b/gi, ' ').replace(/\bpage \d+\b/gi, ' ');
    for (const t of tokenize(source)) if (!t.stop) all.add(t.stem);
    return all;
  });
  const n = Math.max(1, sentenceStems.length);
  const weight = qTerms.map((term) => {
    let df = 0;
    for (const s of sentenceStems) if (s.has(term)) df++;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  });
  const total = weight.reduce((a, b) => a + b, 0);
  return {
    terms: qTerms.length,
    passages: passages.map((p, i) => {
      const coverage = qTerms.reduce((a, t, k) => a + (passageStems[i]!.has(t) ? weight[k]! : 0), 0) / total;
      const lexicalShare = lexicalCeiling > 0 ? Math.max(0, p.lexical ?? 0) / lexicalCeiling : 0;
      return { coverage, support: coverage + DENSE_WEIGHT * Math.max(0, p.dense ?? 0) + lexicalShare };
    }),
  };
}

export function passageSupport(question: string, passages: SupportPassage[], lexicalCeiling = 0): number[] {
  return supportParts(question, passages, lexicalCeiling).passages.map((p) => p.support);
}

export interface SupportVerdict {
  covered: boolean;
  /** The best passage's support (compare with MIN_SUPPORT). */
  bestSupport: number;
  /** Some passage holds every content word of the question (two or more). */
  fullCoverage: boolean;
}

/**
 * Covered when the best passage reaches MIN_SUPPORT, or when one passage holds every word the
 * question asks about (two or more): "How much leave do I get?" over a handbook's "New employees
 * get 25 days of paid leave per year" (support 1.71: the offline embedding's cosine of a short
 * question is low). No question of the benchmarks' dumps that the threshold refuses has such a
 * passage, off-topic or answerable, so this answers small KBs without letting off-topic through.
 */
export function supportVerdict(question: string, passages: SupportPassage[], lexicalCeiling = 0): SupportVerdict {
  const { terms, passages: parts } = supportParts(question, passages, lexicalCeiling);
  const fullCoverage = terms >= 2 && parts.some((p) => p.coverage >= 1 - 1e-9);
  const bestSupport = Math.max(0, ...parts.map((p) => p.support));
  return { covered: fullCoverage || bestSupport >= MIN_SUPPORT, bestSupport, fullCoverage };
}

export function passagesCoverQuestion(question: string, passages: SupportPassage[], lexicalCeiling = 0): boolean {
  return supportVerdict(question, passages, lexicalCeiling).covered;
}
