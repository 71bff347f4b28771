/**
 * Figure questions: "What was capital expenditure in FY2018?", "gross margin for the latest
 * quarter". Such a question is answered by a sentence or table row that holds a number for the
 * measure (a table row, indexed as "Header: value" cells by src/ingest/tables.ts, carries its row and
 * column labels), not by a certification or boilerplate sentence that names the same measure and
 * period without giving one. The answerer asks this module how to adjust a sentence's score.
 *
 * A figure is a number that is not a period: years, quarters and fiscal years ("FY2018", "Q3 2023")
 * and numbered names ("Form 10-Q", "Rule 13a-14") do not count.
 */
import { findPeriods, withoutPeriods } from '../../text/periods';
import { FIGURE_BONUS, NO_FIGURE_PENALTY } from '../calibration';

// Words that name a measured quantity in any organisation's documents (money, counts, shares).
const MEASURE =
  /\b(?:revenues?|sales|income|profits?|loss(?:es)?|margins?|expenditures?|expenses?|costs?|capex|cash\s+flows?|eps|earnings\s+per\s+share|dividends?|debt|assets|liabilities|equity|prices?|amount|total|budget|spending|turnover|ebitda|ratio|rate|percentage|headcount|growth|backlog|bookings|billings|obligations|inventor(?:y|ies))\b/i;
const NOT_A_FIGURE_QUESTION = /^\s*(?:who|whom|whose|when|where|why)\b/i;
// A standalone number: currency, thousands separators, decimals, percent; not glued to letters or hyphens.
const NUMBER = /(?<![\p{L}\d-])[$€£¥]?\d[\d,]*(?:\.\d+)?\s?%?(?![\p{L}\d-])/u;


export function isFigureQuestion(question: string): boolean {
  return MEASURE.test(question) && !NOT_A_FIGURE_QUESTION.test(question);
}

/** Whether a sentence gives a number beyond the periods it names. */
export function holdsFigure(sentence: string): boolean {
  return NUMBER.test(withoutPeriods(sentence, findPeriods(sentence, { lenient: true })));
}

/** Score adjustment per sentence: for a figure question, a bonus with a figure and a penalty without. */
export function figureAdjustment(question: string): (sentence: string) => number {
  if (!isFigureQuestion(question)) return () => 0;
  return (sentence) => (holdsFigure(sentence) ? FIGURE_BONUS : -NO_FIGURE_PENALTY);
}

/** The question's measure words ("capital expenditure" -> "expenditure"), lower-cased. */
function measureWords(question: string): string[] {
  return [...question.matchAll(new RegExp(MEASURE.source, 'gi'))].map((m) => m[0].toLowerCase().replace(/s$/, ''));
}

/**
 * For a figure question, the first of the ranked sentences (best first) that answers it with a
 * figure: it names the question's measure and holds a number. Undefined when the question is not
 * one, or no sentence qualifies (the answerer then keeps its usual choice).
 */
export function pickFigureSentence<S extends { text: string }>(question: string, ranked: S[], qualifies: (s: S) => boolean): S | undefined {
  if (!isFigureQuestion(question)) return undefined;
  const measures = measureWords(question);
  return ranked.find((s) => qualifies(s) && holdsFigure(s.text) && measures.every((m) => s.text.toLowerCase().includes(m)));
}
