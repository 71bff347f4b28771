/**
 * Figure questions: "What was capital expenditure in FY2018?", "the daily meal allowance", "How
 * many hours of flight time did the pilot have?". Such a question is answered by a sentence or table
 * row that holds a number for the measure (a table row, indexed as "Header: value" cells by
 * src/ingest/tables.ts, carries its row and column labels), not by a certification or boilerplate
 * sentence that names the same measure and period without giving one. The answerer asks this module
 * how to adjust a sentence's score.
 *
 * What counts as a measure is read from the passages, in any language and domain, not from a list
 * of one kind of document's terms: a question word is a measure where the passages write a figure
 * right after it ("Capital expenditures: 1,577", "Total flight time: 2,319 hours", "revenue was
 * $5.2 billion"). A question is a figure question when measures make up at least half of the words
 * it asks about beyond the names it gives, and it does not ask who, when, where or why.
 *
 * A figure is a number that is not a period: years, quarters and fiscal years ("FY2018", "Q3 2023")
 * and numbered names ("Form 10-Q", "Rule 13a-14") do not count.
 */
import { findPeriods, withoutPeriods } from '../../text/periods';
import type { Token } from '../../text/tokens';
import { FIGURE_BONUS, MEASURE_REACH, MEASURE_SHARE, NO_FIGURE_PENALTY } from '../calibration';

const NOT_A_FIGURE_QUESTION = /^\s*(?:who|whom|whose|when|where|why)\b/i;
// A standalone number: currency, thousands separators, decimals, percent; not glued to letters or
// hyphens, nor a part of an outline number ("1.3.6") or a page number after leader dots ("...15").
const NUMBER = /(?<![\p{L}\d.-])[$€£¥]?\d[\d,]*(?:\.\d+)?\s?%?(?![\p{L}\d-]|\.\d)/u;

/** Whether a sentence gives a number beyond the periods it names. */
export function holdsFigure(sentence: string): boolean {
  return NUMBER.test(withoutPeriods(sentence, findPeriods(sentence, { lenient: true })));
}

/**
 * The question's measures: of `terms` (the stems of the words it asks about, its names aside), those
 * some sentence writes a figure after, within MEASURE_REACH words. Empty when the question is not a
 * figure question (fewer than MEASURE_SHARE of `terms`, or it asks who, when, where or why).
 */
export function figureMeasures(question: string, terms: readonly string[], sentences: ReadonlyArray<{ text: string; tokens: readonly Token[] }>): string[] {
  if (terms.length === 0 || NOT_A_FIGURE_QUESTION.test(question)) return [];
  const wanted = new Set(terms);
  const found = new Set<string>();
  for (const s of sentences)
    s.tokens.forEach((t, i) => {
      if (!wanted.has(t.stem) || found.has(t.stem) || i === s.tokens.length - 1) return;
      const end = s.tokens[Math.min(i + MEASURE_REACH, s.tokens.length - 1)]!.end;
      if (holdsFigure(s.text.slice(t.end, end))) found.add(t.stem);
    });
  const measures = terms.filter((t) => found.has(t));
  return measures.length >= MEASURE_SHARE * terms.length ? measures : [];
}

/** Score adjustment per sentence: for a figure question (it has measures), a bonus with a figure and a penalty without. */
export function figureAdjustment(measures: readonly string[]): (sentence: string) => number {
  if (measures.length === 0) return () => 0;
  return (sentence) => (holdsFigure(sentence) ? FIGURE_BONUS : -NO_FIGURE_PENALTY);
}

/**
 * For a figure question, the first of the ranked sentences (best first) that answers it with a
 * figure: it holds every measure (`stemsOf`) and a number. Undefined when the question has no
 * measures, or no sentence qualifies (the answerer then keeps its usual choice).
 */
export function pickFigureSentence<S extends { text: string }>(
  measures: readonly string[],
  ranked: S[],
  stemsOf: (s: S) => ReadonlySet<string>,
  qualifies: (s: S) => boolean,
): S | undefined {
  if (measures.length === 0) return undefined;
  return ranked.find((s) => qualifies(s) && holdsFigure(s.text) && measures.every((m) => stemsOf(s).has(m)));
}
