/**
 * In-process stand-ins for what the database does: exhaustive dense scoring (the exact
 * answer HNSW approximates), top-k, score fusion over a candidate set, and recall.
 */
import { tf } from '../../../src/ai/embeddings/distill/tf';

/** Row-major [n x dim] matrix from a list of vectors. */
export function stack(vectors: ArrayLike<number>[], dim: number): Float32Array {
  const m = new Float32Array(vectors.length * dim);
  vectors.forEach((v, i) => m.set(v, i * dim));
  return m;
}

/**
 * For every query, the best cosine per group: docs are rows of `docs` ([n x dim],
 * L2-normalised), `group[i]` says which paragraph row i belongs to (identity for
 * one-vector-per-paragraph). Returns [queries x groups] scores.
 */
export async function denseScores(
  queries: Float32Array,
  docs: Float32Array,
  dim: number,
  group: Int32Array,
  groups: number,
): Promise<Float32Array[]> {
  await tf.ready();
  const nq = queries.length / dim;
  const nd = docs.length / dim;
  const D = tf.tensor2d(docs, [nd, dim]);
  const out: Float32Array[] = [];
  const BLOCK = 512;
  for (let q0 = 0; q0 < nq; q0 += BLOCK) {
    const q1 = Math.min(nq, q0 + BLOCK);
    const Q = tf.tensor2d(queries.subarray(q0 * dim, q1 * dim), [q1 - q0, dim]);
    const S = tf.matMul(Q, D, false, true);
    const s = S.dataSync() as Float32Array;
    Q.dispose();
    S.dispose();
    for (let r = 0; r < q1 - q0; r++) {
      const best = new Float32Array(groups).fill(-Infinity);
      const row = r * nd;
      for (let i = 0; i < nd; i++) {
        const g = group[i]!;
        const v = s[row + i]!;
        if (v > best[g]!) best[g] = v;
      }
      out.push(best);
    }
  }
  D.dispose();
  return out;
}

/** Indices of the k highest scores, best first (ties by lower index, deterministic). */
export function topK(scores: ArrayLike<number>, k: number): number[] {
  const idx: number[] = [];
  for (let i = 0; i < scores.length; i++) {
    const v = scores[i]!;
    if (idx.length === k && v <= scores[idx[k - 1]!]!) continue;
    let pos = idx.length === k ? k - 1 : idx.length;
    if (idx.length < k) idx.push(i);
    while (pos > 0 && scores[idx[pos - 1]!]! < v) {
      idx[pos] = idx[pos - 1]!;
      pos--;
    }
    idx[pos] = i;
  }
  return idx;
}

export interface Recall {
  r1: number;
  r5: number;
  r10: number;
  mrr10: number;
}

export function recall(rankings: number[][], gold: number[]): Recall {
  let r1 = 0, r5 = 0, r10 = 0, mrr = 0;
  rankings.forEach((ranked, i) => {
    const pos = ranked.indexOf(gold[i]!);
    if (pos === 0) r1++;
    if (pos >= 0 && pos < 5) r5++;
    if (pos >= 0 && pos < 10) {
      r10++;
      mrr += 1 / (pos + 1);
    }
  });
  const n = rankings.length;
  return { r1: r1 / n, r5: r5 / n, r10: r10 / n, mrr10: mrr / n };
}

export type Fusion =
  | { kind: 'rrf'; k: number; wLex: number }
  | { kind: 'zscore'; wLex: number }
  | { kind: 'minmax'; wLex: number }
  | { kind: 'raw'; wLex: number };

export function describeFusion(f: Fusion): string {
  switch (f.kind) {
    case 'rrf':
      return `RRF k=${f.k} wLex=${f.wLex}`;
    case 'raw':
      return `raw cos + ${f.wLex}*bm25`;
    default:
      return `${f.kind} wLex=${f.wLex}`;
  }
}

/** One query's candidate set: the union of each retriever's top `depth`. */
export interface Candidates {
  ids: number[];
  lex: number[];
  dense: number[];
  /** 1-based rank in that retriever's list, 0 when not in it (or, for BM25, no match). */
  lexRank: number[];
  denseRank: number[];
}

/**
 * The way the SQL will do it: candidates are the union of the BM25 top `depth` and the
 * vector top `depth`; both scores are known exactly for every candidate (SQL can compute
 * BM25 from the tsvector and `<=>` for any row); normalisation statistics are taken over
 * that candidate set.
 */
export function candidates(lex: Float32Array, dense: Float32Array, depth: number): Candidates {
  const lexTop = topK(lex, depth).filter((d) => lex[d]! > 0);
  const denseTop = topK(dense, depth);
  const ids = [...new Set([...lexTop, ...denseTop])];
  const lexRank = new Map(lexTop.map((d, r) => [d, r + 1]));
  const denseRank = new Map(denseTop.map((d, r) => [d, r + 1]));
  return {
    ids,
    lex: ids.map((d) => lex[d]!),
    dense: ids.map((d) => dense[d]!),
    lexRank: ids.map((d) => lexRank.get(d) ?? 0),
    denseRank: ids.map((d) => denseRank.get(d) ?? 0),
  };
}

/** Fused ranking (top 10 ids) of one query's candidates. */
export function fuse(c: Candidates, f: Fusion): number[] {
  const n = c.ids.length;
  const score = new Float64Array(n);
  if (f.kind === 'rrf') {
    for (let i = 0; i < n; i++) {
      if (c.lexRank[i]) score[i]! += f.wLex / (f.k + c.lexRank[i]!);
      if (c.denseRank[i]) score[i]! += (1 - f.wLex) / (f.k + c.denseRank[i]!);
    }
  } else {
    const [nl, nv] =
      f.kind === 'zscore' ? [zscore(c.lex), zscore(c.dense)] : f.kind === 'minmax' ? [minmax(c.lex), minmax(c.dense)] : [c.lex, c.dense];
    const wDense = f.kind === 'raw' ? 1 : 1 - f.wLex;
    for (let i = 0; i < n; i++) score[i] = f.wLex * nl[i]! + wDense * nv[i]!;
  }
  return topK(score, 10).map((i) => c.ids[i]!);
}

function zscore(x: number[]): number[] {
  const mean = x.reduce((a, b) => a + b, 0) / x.length;
  const sd = Math.sqrt(x.reduce((a, b) => a + (b - mean) ** 2, 0) / x.length) || 1;
  return x.map((v) => (v - mean) / sd);
}

function minmax(x: number[]): number[] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of x) {
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  return x.map((v) => (hi > lo ? (v - lo) / (hi - lo) : 0));
}
