/**
 * The scoring of eval runs, pure functions over what a run stored: where an expected document or
 * page ranks among the retrieved passages, whether an answer contains the expected answer, and the
 * summary figures of a run. The product's runs and the project's reports bench (bench/reports.ts)
 * score through this one module, so a customer's figures and the project's mean the same thing.
 */
import type { EvalExpectation, EvalPassage, EvalSummary } from '../../../db/json-columns';

/**
 * Text as compared for "contains": Unicode-compatible forms, case and whitespace folded, thousands
 * separators dropped between digits ("1,234.5" reads "1234.5", also with a no-break space) and trailing decimal
 * zeros dropped ("47.50" reads "47.5"), so a figure matches however the answer formats it.
 */
export function normaliseAnswerText(text: string): string {
  let t = text.normalize('NFKC').toLowerCase().replace(/[\u2018\u2019]/g, "'").replace(/[\u201c\u201d]/g, '"');
  // A separator counts only between a digit and exactly three digits (not "1,2" or "2024, 12").
  for (let prev = ''; prev !== t; ) {
    prev = t;
    t = t.replace(/(\d)[,\u00a0\u202f](\d{3})(?!\d)/g, '$1$2');
  }
  t = t.replace(/(\d+\.\d*?)0+(?!\d)/g, (_, kept: string) => (kept.endsWith('.') ? kept.slice(0, -1) : kept));
  return t.replace(/\s+/g, ' ').trim();
}

const isWordChar = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}]/u.test(c);

/**
 * Whether `answer` contains `expected` after normalisation, as whole words: "12" is not found in
 * "1234" nor "cat" in "category", while "47 minutes" is found in "about 47 minutes.". A trailing
 * full stop of the expected text is not required.
 */
export function answerContains(answer: string, expected: string): boolean {
  const e = normaliseAnswerText(expected).replace(/[.。]+$/, '');
  if (!e) return false;
  const a = normaliseAnswerText(answer);
  for (let i = a.indexOf(e); i !== -1; i = a.indexOf(e, i + 1)) {
    const before = a[i - 1];
    const after = a[i + e.length];
    const startsWord = !isWordChar(e[0]) || !isWordChar(before);
    const endsWord = !isWordChar(e[e.length - 1]) || !isWordChar(after);
    // "1234.5" must not match inside "1234.56".
    const decimalContinues = /\d/.test(e[e.length - 1]!) && after === '.' && /\d/.test(a[i + e.length + 1] ?? '');
    if (startsWord && endsWord && !decimalContinues) return true;
  }
  return false;
}

const nameKey = (name: string) => name.normalize('NFKC').trim().toLowerCase();
const withoutExtension = (name: string) => name.replace(/\.[a-z0-9]{1,5}$/, '');

/** Whether a passage comes from a document named `expected`: its file name (with or without extension) or its page URL. */
export function isExpectedDocument(passage: Pick<EvalPassage, 'document_name' | 'url'>, expected: string[]): boolean {
  const names = [passage.document_name, passage.url].filter((n): n is string => !!n).map(nameKey);
  return expected.some((raw) => {
    const want = nameKey(raw);
    return names.some((n) => n === want || withoutExtension(n) === withoutExtension(want) || n.replace(/\/+$/, '') === want.replace(/\/+$/, ''));
  });
}

/** Rank (from 1) of the first passage of an expected document; null when none is expected or none was retrieved. */
export function documentHitRank(passages: EvalPassage[], expected: EvalExpectation): number | null {
  if (expected.documents.length === 0) return null;
  return passages.find((p) => isExpectedDocument(p, expected.documents))?.rank ?? null;
}

/** Rank of the first passage on an expected page (of an expected document, when documents are expected too). */
export function pageHitRank(passages: EvalPassage[], expected: EvalExpectation): number | null {
  if (expected.pages.length === 0) return null;
  const hit = passages.find(
    (p) => p.page !== null && expected.pages.includes(p.page) && (expected.documents.length === 0 || isExpectedDocument(p, expected.documents)),
  );
  return hit?.rank ?? null;
}

/** What the summary needs of one result. */
export type ScoredResult = {
  expected: EvalExpectation;
  doc_hit_rank: number | null;
  page_hit_rank: number | null;
  answer_contains: boolean | null;
  refused: boolean;
  latency_ms: number;
  judge: 'pass' | 'fail' | 'error' | null;
  error: string | null;
};

/** The value at quantile q (0..1) of sorted values, nearest rank. */
export function percentile(sorted: number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index]!;
}

const ratio = (hits: number, of: number): number | null => (of === 0 ? null : Number((hits / of).toFixed(4)));

/**
 * A run's figures. Each is measured over the cases it applies to, and is null when none does:
 *   - hit_at_1 / hit_at_k: answerable cases with expected documents, whose document ranks first /
 *     is among the passages retrieved (top k); page_hit_*: the same over cases with expected pages;
 *   - answer_contains: answerable cases with an expected answer, whose answer contains it;
 *   - refusal_precision: refused cases that are not answerable; refusal_recall: not answerable
 *     cases that were refused;
 *   - judge_pass: judged cases the judge passed (a judge error counts as not judged);
 *   - latency: p50 and p95 of every case's time through the answer path.
 * A case whose answer path failed counts in `errors` and in no figure.
 */
export function summariseResults(results: ScoredResult[]): EvalSummary {
  const ok = results.filter((r) => r.error === null);
  const withDocs = ok.filter((r) => r.expected.answerable && r.expected.documents.length > 0);
  const withPages = ok.filter((r) => r.expected.answerable && r.expected.pages.length > 0);
  const withAnswer = ok.filter((r) => r.expected.answerable && r.answer_contains !== null);
  const refused = ok.filter((r) => r.refused);
  const unanswerable = ok.filter((r) => !r.expected.answerable);
  const judged = ok.filter((r) => r.judge === 'pass' || r.judge === 'fail');
  const latencies = ok.map((r) => r.latency_ms).sort((a, b) => a - b);
  return {
    cases: results.length,
    hit_at_1: ratio(withDocs.filter((r) => r.doc_hit_rank === 1).length, withDocs.length),
    hit_at_k: ratio(withDocs.filter((r) => r.doc_hit_rank !== null).length, withDocs.length),
    page_hit_at_1: ratio(withPages.filter((r) => r.page_hit_rank === 1).length, withPages.length),
    page_hit_at_k: ratio(withPages.filter((r) => r.page_hit_rank !== null).length, withPages.length),
    answer_contains: ratio(withAnswer.filter((r) => r.answer_contains === true).length, withAnswer.length),
    refusal_precision: ratio(refused.filter((r) => !r.expected.answerable).length, refused.length),
    refusal_recall: ratio(unanswerable.filter((r) => r.refused).length, unanswerable.length),
    judge_pass: ratio(judged.filter((r) => r.judge === 'pass').length, judged.length),
    latency_p50_ms: percentile(latencies, 0.5),
    latency_p95_ms: percentile(latencies, 0.95),
    errors: results.length - ok.length,
  };
}

/**
 * Whether one case did well: its expectations met (document among the top k, page too, answer
 * contains the expected text, refused exactly when not answerable). Comparing two runs case by case
 * counts a case better or worse by this score, and by the expected document's rank on a tie.
 */
export function caseScore(r: ScoredResult): number {
  if (r.error !== null) return 0;
  if (!r.expected.answerable) return r.refused ? 1 : 0;
  const parts: number[] = [r.refused ? 0 : 1];
  if (r.expected.documents.length > 0) parts.push(r.doc_hit_rank !== null ? 1 : 0);
  if (r.expected.pages.length > 0) parts.push(r.page_hit_rank !== null ? 1 : 0);
  if (r.answer_contains !== null) parts.push(r.answer_contains ? 1 : 0);
  return parts.reduce((a, b) => a + b, 0) / parts.length;
}

export type CaseChange = 'better' | 'worse' | 'same';

export function compareCase(before: ScoredResult, after: ScoredResult): CaseChange {
  const a = caseScore(before);
  const b = caseScore(after);
  if (b > a) return 'better';
  if (b < a) return 'worse';
  const ra = before.doc_hit_rank ?? Number.POSITIVE_INFINITY;
  const rb = after.doc_hit_rank ?? Number.POSITIVE_INFINITY;
  if (rb < ra) return 'better';
  if (rb > ra) return 'worse';
  return 'same';
}

/** A drop beyond this (absolute, on a 0..1 figure) against the previous completed run flags a regression. */
export const REGRESSION_THRESHOLD = 0.05;
/** The figures a regression is judged on. */
export const REGRESSION_FIGURES = ['hit_at_k', 'answer_contains'] as const;

/** The figures that dropped by more than the threshold from `previous` to `current`. */
export function regressionDrops(previous: EvalSummary, current: EvalSummary, threshold = REGRESSION_THRESHOLD): Record<string, [number, number]> {
  const drops: Record<string, [number, number]> = {};
  for (const figure of REGRESSION_FIGURES) {
    const before = previous[figure];
    const now = current[figure];
    if (before === null || now === null) continue;
    // Rounded so that 0.8 -> 0.75 (exactly the threshold, in floating point 0.05000000000000004) is not a drop.
    if (Number((before - now).toFixed(6)) > threshold) drops[figure] = [before, now];
  }
  return drops;
}
