/**
 * Whether retrieved passages hold what a question asks about, judged before the extractive
 * answerer picks sentences: it can only match words, so a passage sharing one word with an
 * off-topic question ("days" in "How many days of leave do new employees get?") would otherwise
 * be quoted as the answer.
 *
 * Support of a passage = the share of the question's content (IDF-weighted over the passages'
 * sentences, so a word no passage has weighs most) found in the passage or its source line
 * (title, headings), plus half its cosine similarity to the question. The question is covered when
 * the best passage reaches MIN_SUPPORT. Calibrated on the earnings-call questions, a SQuAD sample
 * and off-topic questions against four corpora with the offline embeddings
 * (bench/research/tune-answerer.ts, docs/answers.md); the scale of another embedding model's
 * cosines differs, so the gate is only for the offline answerer (an LLM judges relevance itself).
 */
import { splitSentences, tokenize } from './text';

export const MIN_SUPPORT = 0.65;
const DENSE_WEIGHT = 0.5;

export function passageSupport(question: string, passages: Array<{ text: string; source?: string; dense?: number }>): number[] {
  const qTerms = [...new Set(tokenize(question).filter((t) => !t.stop).map((t) => t.stem))];
  if (qTerms.length === 0) return passages.map(() => 0);
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
  return passages.map((p, i) => {
    const covered = qTerms.reduce((a, t, k) => a + (passageStems[i]!.has(t) ? weight[k]! : 0), 0) / total;
    return covered + DENSE_WEIGHT * Math.max(0, p.dense ?? 0);
  });
}

export function passagesCoverQuestion(question: string, passages: Array<{ text: string; source?: string; dense?: number }>): boolean {
  return Math.max(0, ...passageSupport(question, passages)) >= MIN_SUPPORT;
}
