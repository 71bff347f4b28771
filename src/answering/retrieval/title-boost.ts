/**
 * Document-level evidence: a question that names what a document's title holds ("in the Q2 2023
 * call", "Acme's") should rank that document's passages first, although the passages rarely
 * repeat it and every document of a series says "product revenue" alike. The title is indexed with
 * every chunk (document-title.ts), which brings those chunks into the candidates; this re-ranks the
 * candidates by how well the question matches their document's title, in two parts:
 *
 *   - periods, matched as periods (periods.ts): "Q1 Fiscal 2023" is the "Q1 2023" call, "Q4 2021"
 *     is not half of the "Q4 2022" call, "the most recent call" is the latest one, and "the
 *     expected margin for the full year 2023" is also the Q4 2022 call's (where that outlook is given);
 *   - the title's other words by specificity among the candidates' documents: a word shared by all
 *     of them ("Acme" in every call of Acme) tells nothing, one shared by few tells a lot.
 *
 * No title, or nothing of the question in any title, leaves the ranking exactly as fused.
 */
import { contentStems } from '../../text/tokens';
import { identityContext, type DocumentIdentity } from '../../ingest/document-identity';
import { findPeriods, latestPeriod, periodMatch, resolveRelative, withoutPeriods, type Period, type QuestionPeriods } from '../../text/periods';
import type { QuestionAnalysis } from '../question';
import { ORDINARY_WORD_WEIGHT, PERIOD_BOOST, TITLE_BOOST } from '../calibration';

/**
 * What a question is matched against for a document: its title, and its identity's subject, kind
 * and period (not the headline or running headers, whose dates and numbers are not the period).
 */
export function aboutDocument(title: string | null, identity: DocumentIdentity | null | undefined): string | null {
  if (!identity) return title;
  const about = identityContext({ ...identity, running: [] }, { besides: title });
  if (!about) return title;
  return title ? `${title} · ${about}` : about;
}

/**
 * Per title, how much its passages move up for `question`. `universe`: every document title of the KB
 * (each document once), over which a word's specificity is counted; without it, the distinct
 * titles given. Counting over the whole KB, not over the candidates only, is what keeps a word that
 * every document shares (cover-page boilerplate, the one company of a KB of its calls) at no weight
 * although the few candidates happen to disagree on it.
 *
 * `cover`, beside `universe`: per document, the other lines of its cover (identity headlines). A word
 * printed on many covers ("United States", "Securities and Exchange Commission") names no document
 * even where ingestion took it for one's subject; counting covers in a word's spread keeps it from
 * outweighing the real name ("… then state 0" matched a filing whose subject read "UNITED STATES").
 *
 * `periods`, beside `universe`: per document, the period it states about itself (its identity's), which
 * is then its only period; a document without one is of the periods its title and identity write.
 *
 * When the question's words name some documents (their subject), a period counts in proportion to
 * how well a document matches those words: "Acme's FY2018 capital expenditure" is Acme's 2018 report,
 * and another company's report of 2018 is no better than Acme's report of another year. When the
 * words name none (every call of one company), the period alone decides, as before.
 */
export function titleBoosts(
  question: QuestionAnalysis,
  titles: Array<string | null>,
  opts: { universe?: Array<string | null>; cover?: Array<string | null>; periods?: Array<string | null> } = {},
): number[] {
  const universe = opts.universe ?? titles;
  const distinct = [...new Set(universe.filter((t): t is string => !!t))];
  if (distinct.length < 2) return titles.map(() => 0);
  const coverOf = new Map<string, string>();
  opts.cover?.forEach((c, i) => {
    const t = universe[i];
    if (t && c) coverOf.set(t, `${coverOf.get(t) ?? ''}\n${c}`);
  });
  const statedOf = new Map<string, string>();
  opts.periods?.forEach((p, i) => {
    const t = universe[i];
    if (t && p && !statedOf.has(t)) statedOf.set(t, p);
  });
  const asked = question.periods;
  const writtenOf = new Map(distinct.map((t) => [t, findPeriods(t, { lenient: true })]));
  // A document that states its period (the cover's "for the fiscal year ended December 31, 2022")
  // is of that period only; the other dates of its title are as often when it was filed ("Form
  // 10-K filed 02/09/2023" is the 2022 report, not a 2023 one).
  const periodsOf = new Map(distinct.map((t) => [t, statedOf.has(t) ? findPeriods(statedOf.get(t)!, { lenient: true }) : writtenOf.get(t)!]));
  const words = wordBoosts(
    withoutPeriods(question.text, asked.named),
    distinct.map((t) => ({ title: t, words: withoutPeriods(t, writtenOf.get(t)!), cover: coverOf.get(t) ?? '' })),
  );
  const periods = periodBoosts(asked, periodsOf);
  const named = words.size > 0;
  return titles.map((t) => {
    if (!t) return 0;
    const w = words.get(t) ?? 0;
    const p = periods.get(t) ?? 0;
    return w + (named ? (p * w) / TITLE_BOOST : p);
  });
}

function periodBoosts(asked: QuestionPeriods, periodsOf: Map<string, Period[]>): Map<string, number> {
  // The outlook for a period is given in the report before it: both are the question's.
  let wanted: Period[] = [...asked.named, ...asked.guidedBy];
  if (wanted.length === 0 && asked.relative.length > 0) {
    const latest = latestPeriod([...periodsOf.values()].flat());
    wanted = latest ? asked.relative.map((r) => resolveRelative(r, latest)) : [];
  }
  const out = new Map<string, number>();
  if (wanted.length === 0) return out;
  for (const [title, periods] of periodsOf) {
    const match = Math.max(0, ...wanted.flatMap((w) => periods.map((p) => periodMatch(w, p))));
    out.set(title, PERIOD_BOOST * match);
  }
  return out;
}

function wordBoosts(query: string, titles: Array<{ title: string; words: string; cover: string }>): Map<string, number> {
  const q = new Set([...contentStems(query), ...abbreviationsIn(query).map(abbreviationKey)]);
  const out = new Map<string, number>();
  if (q.size === 0) return out;
  const stemsOf = new Map(titles.map(({ title, words }) => [title, new Set([...contentStems(words), ...abbreviatedBy(words, q)])]));
  const df = new Map<string, number>();
  for (const { title, cover } of titles) {
    const seen = new Set([...stemsOf.get(title)!, ...contentStems(cover)]);
    for (const s of seen) if (q.has(s)) df.set(s, (df.get(s) ?? 0) + 1);
  }
  const n = titles.length;
  // A question that writes some matching word as a name (capitalised inside a sentence, or an
  // abbreviation) names the document by it; its other matching words ("company", "state") are
  // ordinary words that a title happens to share, and count for less. A question written all in
  // lower case says nothing either way: every word counts in full.
  const names = namesIn(query);
  const named = [...df.keys()].some((s) => names.has(s));
  const weightOf = (s: string) => Math.log(n / df.get(s)!) * (named && !names.has(s) ? ORDINARY_WORD_WEIGHT : 1);
  const score = new Map<string, number>();
  for (const [t, stems] of stemsOf) {
    let sum = 0;
    for (const s of stems) if (df.has(s)) sum += weightOf(s);
    score.set(t, sum);
  }
  const best = Math.max(...score.values());
  if (best <= 0) return out;
  for (const [t, s] of score) out.set(t, (TITLE_BOOST * s) / best);
  return out;
}

/** The stems of the words a question writes as names: capitalised but not first in a sentence, and abbreviations. */
function namesIn(query: string): Set<string> {
  const names = new Set(abbreviationsIn(query).map(abbreviationKey));
  for (const m of query.matchAll(/(?<=[\p{L}\p{N},;:)'"’] +)\p{Lu}[\p{L}\p{N}'’&.-]*/gu)) for (const s of contentStems(m[0])) names.add(s);
  return names;
}

/**
 * Names written short in the question: a word of 3–6 capitals ("GLX", "AWW") stands for a name that
 * begins with it ("GLXtronics") or whose words begin with its letters ("Acme Widget Works" for
 * "AWW"). Mixed case ("VaR") and words with digits are not abbreviations here.
 */
function abbreviationsIn(query: string): string[] {
  return [...new Set(query.match(/(?<![\p{L}\p{N}])\p{Lu}{3,6}(?![\p{L}\p{N}])/gu) ?? [])].map((a) => a.toLowerCase());
}

const abbreviationKey = (abbreviation: string) => `abbr:${abbreviation}`;

/** The keys of the question's abbreviations (`asked`) that `words` spells out. */
function abbreviatedBy(words: string, asked: Set<string>): string[] {
  const tokens = words.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const initials = tokens.map((t) => t[0]).join('');
  return [...asked]
    .filter((k) => k.startsWith('abbr:'))
    .filter((k) => {
      const a = k.slice('abbr:'.length);
      return tokens.some((t) => t.length > a.length && t.startsWith(a)) || initials.includes(a);
    });
}
