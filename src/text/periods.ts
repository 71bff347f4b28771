/**
 * Reporting periods named in text: "Q3 2019", "Q3 FY23", "3Q19", "third quarter of fiscal 2020",
 * "fiscal year 2023", "FY2023", "full year 2023", "in 2021", "last year's fourth quarter".
 *
 * Reports of one company look alike from one period to the next, so the period a question names is
 * often the only thing that tells which report answers it, and a report's period is usually only in
 * its title or file name. Matching periods as periods (rather than as the words "Q4" and "2021")
 * keeps "customers landed in Q4 2021 ... revenue in Q1 2022" from favouring the Q4 2022 report,
 * and lets "Q1 Fiscal 2023" and "Q1 2023" name the same quarter.
 *
 * Years are labels as written: a fiscal year and the calendar year of the same number are not told
 * apart (reports of one company use one convention throughout).
 */

/** A quarter of a year, a whole year, or a quarter of an unnamed year. */
export type Period = { year: number | null; quarter: number | null };
export type PeriodMention = Period & { start: number; end: number };

/** A period named relative to the latest one the documents hold ("the most recent call", "last year's Q4"). */
export type RelativePeriod = { latest: true } | { latest: false; yearOffset: number; quarter: number | null };

const ORDINAL_QUARTER: Record<string, number> = { first: 1, '1st': 1, second: 2, '2nd': 2, third: 3, '3rd': 3, fourth: 4, '4th': 4 };

// One alternation per way of writing a quarter; the groups say which. "Q3'23" and "3Q19" carry their year;
// "FY2023Q1" and "2023Q1" write the year first, with nothing between.
const QUARTER_RE =
  /(?:(?<![\p{L}\p{N}])|(?<=(?:19|20)\d{2}))(?:Q([1-4])(?:['’](\d{2}))?|(?<![\p{L}\p{N}])([1-4])Q['’]?(\d{2}|\d{4})?|(?<![\p{L}\p{N}])(first|second|third|fourth|1st|2nd|3rd|4th)(?:[\s-]+(?:fiscal|financial|calendar))?[\s-]+quarter)(?![\p{L}\p{N}])/giu;
// "FY23", "FY 2023", "fiscal 2023", "fiscal year '23", "full year 2023", "calendar 2022", "'21", "2021".
// Two digits count as a year only after FY/CY or an apostrophe ("fiscal year 10" is more likely a count).
const YEAR_RE =
  /(?:\b(?:FY|CY)[\s-]*['’]?(\d{4}|\d{2})(?:\b|(?=Q[1-4]\b))|\b(?:fiscal(?:\s+year)?|financial\s+year|calendar(?:\s+year)?|full[\s-]+(?:fiscal\s+)?year)[\s-]*(?:['’](\d{2})|((?:19|20)\d{2}))\b|(?<![\p{L}\p{N}])['’](\d{2})\b|\b((?:19|20)\d{2})(?:\b|(?=Q[1-4]\b)))/giu;

// Words after which a bare four-digit number is a year ("in 2021", "as of 2022", "May 2022", "May 26, 2023"), not a
// count or part of a name ("Global 2000 customers", "Fortune 500").
const YEAR_CUE =
  /\b(?:in|of|for|during|since|between|and|or|from|to|until|through|by|than|vs|versus|year|years|january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)(?:[\s.]+\d{1,2}(?:st|nd|rd|th)?)?[\s,.]*$/i;

const toYear = (digits: string) => {
  const n = Number(digits);
  return digits.length === 4 ? n : n < 70 ? 2000 + n : 1900 + n;
};

type Span<T> = T & { start: number; end: number };

function quarters(text: string): Span<{ quarter: number; year: number | null }>[] {
  return [...text.matchAll(QUARTER_RE)].map((m) => {
    const attached = m[2] ?? m[4];
    return {
      quarter: m[1] ? Number(m[1]) : m[3] ? Number(m[3]) : ORDINAL_QUARTER[m[5]!.toLowerCase()]!,
      year: attached ? toYear(attached) : null,
      start: m.index!,
      end: m.index! + m[0].length,
    };
  });
}

function years(text: string, lenient: boolean): Span<{ year: number; cued: boolean }>[] {
  const out: Span<{ year: number; cued: boolean }>[] = [];
  for (const m of text.matchAll(YEAR_RE)) {
    const start = m.index!;
    const end = start + m[0].length;
    const written = m[1] ?? m[2] ?? m[3] ?? m[4];
    if (written) out.push({ year: toYear(written), cued: true, start, end });
    else {
      const year = Number(m[5]);
      if (year < 1990 || year > 2099) continue;
      // "2022's", "2022 results" after a cue word, or anywhere in a title.
      const cued = lenient || YEAR_CUE.test(text.slice(Math.max(0, start - 20), start)) || /^['’]s\b/.test(text.slice(end));
      out.push({ year, cued, start, end });
    }
  }
  return out;
}

// What may stand between a quarter and its year: "Q3 2019", "Q3-FY23", "third quarter of fiscal 2020", "Q1, 2022".
const QUARTER_THEN_YEAR = /^[\s,/–-]*(?:(?:of|in)\s+(?:the\s+)?)?$/i;
// ... and between a year and its quarter: "FY23 Q3", "2019's third quarter", "fiscal 2020 fourth quarter".
const YEAR_THEN_QUARTER = /^(?:['’]s)?[\s,/–-]*(?:the\s+)?$/i;

/**
 * Every period the text names, in order. `lenient` (for titles and file names) takes any
 * four-digit number from 1990 to 2099 as a year; otherwise a bare number needs a word before it
 * that makes it one ("in 2021"). A quarter named without a year takes the year when the text names
 * exactly one ("In 2021, how did Q3 RPO affect Q4?" is about Q3 and Q4 of 2021).
 */
export function findPeriods(text: string, opts: { lenient?: boolean } = {}): PeriodMention[] {
  const qs = quarters(text);
  const ys = years(text, opts.lenient ?? false).filter((y) => !qs.some((q) => y.start < q.end && q.start < y.end));
  const usedYears = new Set<number>();
  const out: PeriodMention[] = [];
  for (const q of qs) {
    if (q.year !== null) {
      out.push({ quarter: q.quarter, year: q.year, start: q.start, end: q.end });
      continue;
    }
    const after = ys.find((y, i) => !usedYears.has(i) && y.start >= q.end && QUARTER_THEN_YEAR.test(text.slice(q.end, y.start)));
    const before = after ? undefined : ys.find((y, i) => !usedYears.has(i) && y.end <= q.start && YEAR_THEN_QUARTER.test(text.slice(y.end, q.start)));
    const y = after ?? before;
    if (y) usedYears.add(ys.indexOf(y));
    out.push({ quarter: q.quarter, year: y?.year ?? null, start: Math.min(q.start, y?.start ?? q.start), end: Math.max(q.end, y?.end ?? q.end) });
  }
  ys.forEach((y, i) => {
    if (!usedYears.has(i) && y.cued) out.push({ quarter: null, year: y.year, start: y.start, end: y.end });
  });
  const namedYears = new Set(out.filter((p) => p.year !== null).map((p) => p.year));
  if (namedYears.size === 1) {
    const [year] = namedYears;
    for (const p of out) if (p.year === null) p.year = year!;
  }
  return out.sort((a, b) => a.start - b.start);
}

/** A period as the questions of a conversation write it: "Q2 2022", "2021", "Q3". */
export function formatPeriod(p: Period): string {
  return [p.quarter !== null ? `Q${p.quarter}` : null, p.year !== null ? String(p.year) : null].filter(Boolean).join(' ');
}

/** The text with its period mentions blanked out (so their words are not matched a second time, as words). */
export function withoutPeriods(text: string, mentions: PeriodMention[]): string {
  let out = text;
  for (const m of [...mentions].sort((a, b) => b.start - a.start)) out = `${out.slice(0, m.start)} ${out.slice(m.end)}`;
  return out;
}

const LATEST_RE =
  /\b(?:most\s+recent|latest|last|this|current)\s+(?:(?:earnings\s+)?call|quarter|report|document|filing|results)\b|\b(?:most\s+recent(?:ly)?|latest)\b/i;
const ORDINAL = '(first|second|third|fourth|1st|2nd|3rd|4th)';
// "last year's fourth quarter", "the previous year's Q2", "this year", "Q4 of last fiscal year".
const RELATIVE_YEAR_RE = new RegExp(
  `\\b(last|previous|prior|this|current)\\s+(?:fiscal\\s+)?year(?:['’]s)?(?:\\s+${ORDINAL}\\s+quarter|\\s+Q([1-4]))?\\b` +
    `|\\b(?:Q([1-4])|${ORDINAL}\\s+quarter)\\s+of\\s+(?:the\\s+)?(last|previous|prior|this|current)\\s+(?:fiscal\\s+)?year\\b`,
  'i',
);

/**
 * `guidedBy`: the periods whose reports give the outlook a question asks about. "The expected margin
 * for the full year 2023" is first given in the report of the period before it (the fourth quarter
 * of 2022), a quarter's in the report of the quarter before.
 */
export type QuestionPeriods = { named: PeriodMention[]; relative: RelativePeriod[]; guidedBy: Period[] };

// An expectation, then "for (the)" right before the period: "expected margin for the full year 2023",
// "guidance for Q3", "outlook for fiscal 2024". Not "expectations ... as of Q1 2023" (when it was said).
const FORWARD_CUE = /\b(?:expect\w*|guid(?:e|ed|ance)|outlook|forecast\w*|projected|projections?|anticipat\w*)\b/gi;
const FOR_THE = /\bfor\s+(?:the\s+)?$/i;

/** The period just before: the quarter before a quarter, the last quarter of the year before a year. */
export function previousPeriod(p: Period): Period {
  if (p.year === null) return { year: null, quarter: p.quarter === null ? null : p.quarter === 1 ? 4 : p.quarter - 1 };
  if (p.quarter === null || p.quarter === 1) return { year: p.year - 1, quarter: 4 };
  return { year: p.year, quarter: p.quarter - 1 };
}

function guidedBy(text: string, named: PeriodMention[]): Period[] {
  const cues = [...text.matchAll(FORWARD_CUE)].map((m) => m.index!);
  return named
    .filter((p) => FOR_THE.test(text.slice(0, p.start)) && cues.some((c) => c < p.start && !/[,;.?!]/.test(text.slice(c, p.start))))
    .map(previousPeriod);
}

/**
 * The periods a question names outright, and those it names relative to the latest report (used
 * only when it names none outright: in "Q1 2023 cash flow against the previous year's", the
 * previous year is the question's own, not the documents').
 */
export function questionPeriods(text: string): QuestionPeriods {
  const quarterOf = (ordinal?: string, digit?: string) => (digit ? Number(digit) : ordinal ? ORDINAL_QUARTER[ordinal.toLowerCase()]! : null);
  const rel = RELATIVE_YEAR_RE.exec(text);
  if (rel) {
    const which = (rel[1] ?? rel[6])!.toLowerCase();
    const relative: RelativePeriod = {
      latest: false,
      yearOffset: which === 'this' || which === 'current' ? 0 : -1,
      quarter: quarterOf(rel[2] ?? rel[5], rel[3] ?? rel[4]),
    };
    const blanked = text.slice(0, rel.index) + ' '.repeat(rel[0].length) + text.slice(rel.index + rel[0].length);
    const named = findPeriods(blanked);
    return { named, relative: [relative], guidedBy: guidedBy(blanked, named) };
  }
  const named = findPeriods(text);
  return { named, relative: LATEST_RE.test(text) ? [{ latest: true }] : [], guidedBy: guidedBy(text, named) };
}

const order = (p: Period) => (p.year ?? 0) * 10 + (p.quarter ?? 0);

/**
 * The latest of some periods. A year's quarters count as later than the year as a whole: "the most
 * recent quarter" among an annual report and the same year's Q3 call is the call's.
 */
export function latestPeriod(periods: Period[]): Period | null {
  const dated = periods.filter((p) => p.year !== null);
  return dated.length === 0 ? null : dated.reduce((a, b) => (order(b) > order(a) ? b : a));
}

export function resolveRelative(rel: RelativePeriod, latest: Period): Period {
  if (rel.latest) return latest;
  return { year: latest.year === null ? null : latest.year + rel.yearOffset, quarter: rel.quarter };
}

/**
 * How well a document's period answers for the period a question names: 1 when it is that period
 * (or within the year the question names), 0.5 when the document covers the whole year of the
 * quarter asked for (an annual report), 0 otherwise.
 */
export function periodMatch(asked: Period, doc: Period): number {
  if (asked.year !== null && doc.year !== null && asked.year !== doc.year) return 0;
  if (asked.year === null && doc.year === null) return asked.quarter !== null && asked.quarter === doc.quarter ? 1 : 0;
  if (asked.quarter === null || asked.quarter === doc.quarter) return asked.year === null || doc.year !== null ? 1 : 0;
  return doc.quarter === null && asked.year !== null ? 0.5 : 0;
}
