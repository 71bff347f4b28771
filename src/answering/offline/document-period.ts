/**
 * Which passages come from a document of the period a question asks about. Reports of one
 * organisation look alike from one period to the next, and the retrieved passages often mix two of
 * its reports ("Is Acme capital-intensive based on FY2022 data?" over passages of Acme's 2018 and
 * 2022 annual reports): the report's period is said by its source line's title (title, identity),
 * rarely by the passage, and "FY2022" is no word any passage holds. Periods are matched as periods
 * (periods.ts), as retrieval's title boost matches them, so that the answerer quotes the report
 * retrieval chose for the period, not a look-alike sentence of another year's report.
 */
import { sourceDocument } from '../../ai/prompts';
import { findPeriods, latestPeriod, periodMatch, resolveRelative, type Period } from '../../text/periods';
import type { QuestionAnalysis } from '../question';

const order = (p: Period) => (p.year ?? 0) * 10 + (p.quarter ?? 0);

/**
 * The title (with identity) of a source line, where retrieval's title boost reads a document's
 * period too; not its file name, whose numbers are as often counters or ids ("notes-2015.txt",
 * "0000950170-19-000123.pdf") as years.
 */
function documentTitle(source: string | undefined): string {
  return /“([^”]*)”/.exec(sourceDocument((source ?? '').replace(/\s+/g, ' ').trim()))?.[1] ?? '';
}

/**
 * Per passage, how well its document's period answers for the periods the question names (1 that
 * period, 0.5 the year of a quarter asked, 0 another: periodMatch), or null where that is unknown:
 * for a passage whose document names no period (it is of no other period either), and for every
 * passage when the question names no period, no document names one, or the question asks for "the
 * latest" while some document's period is unknown (that one may be the latest).
 */
export function documentPeriodFit(question: QuestionAnalysis, sources: ReadonlyArray<string | undefined>): Array<number | null> {
  const none = sources.map(() => null);
  const periodsOf = sources.map((s) => findPeriods(documentTitle(s), { lenient: true }));
  if (periodsOf.every((ps) => ps.length === 0)) return none;
  const asked = question.periods;
  let wanted: Period[] = [...asked.named, ...asked.guidedBy];
  if (wanted.length === 0 && asked.relative.length > 0) {
    if (periodsOf.some((ps) => ps.length === 0)) return none;
    const latest = latestPeriod(periodsOf.flat());
    wanted = latest ? asked.relative.map((r) => resolveRelative(r, latest)) : [];
  }
  if (wanted.length === 0) return none;
  // "From FY2020 to FY2022": the report of the latest period gives the earlier ones too (reports
  // compare with the periods before), so it fits best; a report of an earlier named period fits less.
  const latest = latestPeriod(asked.named);
  const fit = (w: Period, p: Period) => periodMatch(w, p) * (latest && asked.named.length > 1 && order(w) < order(latest) ? 0.5 : 1);
  return periodsOf.map((ps) => (ps.length === 0 ? null : Math.max(0, ...wanted.flatMap((w) => ps.map((p) => fit(w, p))))));
}
