/**
 * Fuses the lexical (BM25) and dense (cosine) evidence of each candidate chunk. Every candidate has
 * both scores computed exactly (not "missing from one list"), each score is z-normalised over the
 * candidate set, and the two are mixed with fixed weights. Reciprocal rank fusion was measured to be
 * worse than BM25 alone here, because it gives the weaker dense ranking an equal say; the weights
 * are calibrated (calibration.ts DEFAULT_FUSION).
 *
 * Two evaluations of one formula: `fusedScoreSql` ranks inside the retrieval statement, so only the
 * top_k rows (with their texts) leave the database; `fuse` re-ranks candidate lists in process for
 * weight tuning. A test holds them equal.
 */
import { sql, type RawBuilder } from 'kysely';
import { DEFAULT_FUSION } from '../calibration';

export type FusionWeights = { lexical: number; dense: number };

export type Candidate<Id> = { id: Id; lexical: number; dense: number };
export type Scored<Id> = Candidate<Id> & { fused: number; score: number };

/** Published score: a logistic of the fused z-score, in (0, 1), higher is better. */
export const publishedScore = (fused: number) => 1 / (1 + Math.exp(-fused));

function zScorer(values: number[]): (v: number) => number {
  const mean = values.reduce((a, b) => a + b, 0) / (values.length || 1);
  const sd = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length || 1));
  return sd > 0 ? (v) => (v - mean) / sd : () => 0;
}

export function fuse<Id>(candidates: Candidate<Id>[], weights: FusionWeights = DEFAULT_FUSION): Scored<Id>[] {
  const zl = zScorer(candidates.map((c) => c.lexical));
  const zd = zScorer(candidates.map((c) => c.dense));
  return candidates
    .map((c) => {
      const fused = weights.lexical * zl(c.lexical) + weights.dense * zd(c.dense);
      return { ...c, fused, score: publishedScore(fused) };
    })
    .sort((a, b) => b.fused - a.fused);
}

/** `fuse` as a window expression over the rows of one query (columns `lexical` and `dense`). */
export function fusedScoreSql(weights: FusionWeights): RawBuilder<number> {
  const z = (column: string) =>
    sql`coalesce((${sql.ref(column)} - avg(${sql.ref(column)}) over ()) / nullif(stddev_pop(${sql.ref(column)}) over (), 0), 0)`;
  return sql<number>`(${sql.lit(weights.lexical)}::float8 * ${z('lexical')} + ${sql.lit(weights.dense)}::float8 * ${z('dense')})`;
}
