/**
 * Document-level evidence: a question that names what a document's title holds ("in the Q2 2023
 * call", "Microsoft's") should rank that document's passages first, although the passages rarely
 * repeat it and every document of a series says "product revenue" alike. The title is indexed with
 * every chunk (document-title.ts), which brings those chunks into the candidates; this re-ranks the
 * candidates by how specifically the question matches their document's title.
 *
 * Specificity is judged among the candidates' documents: a title word shared by all of them
 * ("Snowflake" in every call of Snowflake) tells nothing, one shared by few ("Q2", "2022") tells a
 * lot. No title, or no title word in the question, leaves the ranking exactly as fused.
 */
import { contentStems } from '../../ai/offline/text';

/** In fused z-score units: the best-matching title's passages move up by this much. */
export const TITLE_BOOST = 1.0;

export function titleBoosts(query: string, titles: Array<string | null>): number[] {
  const q = new Set(contentStems(query));
  const distinct = [...new Set(titles.filter((t): t is string => !!t))];
  if (q.size === 0 || distinct.length < 2) return titles.map(() => 0);
  const stemsOf = new Map(distinct.map((t) => [t, new Set(contentStems(t))]));
  const df = new Map<string, number>();
  for (const stems of stemsOf.values()) for (const s of stems) if (q.has(s)) df.set(s, (df.get(s) ?? 0) + 1);
  const n = distinct.length;
  const score = new Map<string, number>();
  for (const [t, stems] of stemsOf) {
    let sum = 0;
    for (const s of stems) if (df.has(s)) sum += Math.log(n / df.get(s)!);
    score.set(t, sum);
  }
  const best = Math.max(...score.values());
  if (best <= 0) return titles.map(() => 0);
  return titles.map((t) => (t ? (TITLE_BOOST * score.get(t)!) / best : 0));
}
