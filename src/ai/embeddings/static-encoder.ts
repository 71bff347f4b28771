/**
 * A static ("bag of pieces") approximation of a sentence encoder:
 *
 *   z      = sum_t w[id_t] * table[id_t] / sum_t w[id_t] + bias     over the text's pieces
 *   vector = l2normalise(activation(z))
 *
 * USE-lite ends with mean-pool -> dense(512x512) -> tanh -> L2; a dense layer commutes
 * with a mean, so folding its weights into the table (table = pieceState . W) keeps the
 * model's own head while making inference one lookup-add per piece: no mat-vec at run
 * time. The generator then fine-tunes the table so the output matches the full model on
 * real sentences.
 *
 * Unlike the full model (which silently keeps only the first 128 pieces), every piece
 * of a long text is pooled.
 */
import type { PieceTokenizer } from './tokenizer';
import { UNKNOWN_ID } from './tokenizer';

export interface StaticEncoderParams {
  tokenizer: PieceTokenizer;
  /** Row-major [vocabulary x dimensions]. */
  table: Float32Array;
  dimensions: number;
  /** Added after pooling; zero when absent. */
  bias?: Float32Array;
  activation?: 'tanh' | 'none';
  /** Optional per-piece pooling weight (e.g. SIF); uniform when absent. */
  pieceWeights?: Float32Array;
}

export class StaticEncoder {
  readonly dimensions: number;
  private readonly z: Float64Array;

  readonly tokenizer: PieceTokenizer;

  constructor(private readonly p: StaticEncoderParams) {
    this.dimensions = p.dimensions;
    this.tokenizer = p.tokenizer;
    this.z = new Float64Array(p.dimensions);
    if (p.table.length !== p.tokenizer.size * p.dimensions) {
      throw new Error(`static table has ${p.table.length} values, expected ${p.tokenizer.size} x ${p.dimensions}`);
    }
  }

  /** Piece ids that contribute to the pooled vector (the unknown id carries no meaning). */
  pieces(text: string): number[] {
    return this.p.tokenizer.encode(normalizeWhitespace(text)).filter((id) => id !== UNKNOWN_ID);
  }

  embed(text: string): Float32Array {
    return this.embedPieces(this.pieces(text));
  }

  embedPieces(ids: readonly number[]): Float32Array {
    const { table, dimensions: D, pieceWeights, bias, activation } = this.p;
    const z = this.z.fill(0);
    let total = 0;
    for (const id of ids) {
      const w = pieceWeights ? pieceWeights[id]! : 1;
      total += w;
      const row = id * D;
      for (let d = 0; d < D; d++) z[d]! += w * table[row + d]!;
    }
    const out = new Float32Array(D);
    for (let d = 0; d < D; d++) {
      const v = (total > 0 ? z[d]! / total : 0) + (bias ? bias[d]! : 0);
      out[d] = activation === 'tanh' ? Math.tanh(v) : v;
    }
    return l2normalize(out);
  }
}

/**
 * PDF/DOCX text carries newlines, tabs and runs of spaces; the tokenizer would turn each
 * into unknown ids or extra separators, so collapse them to single spaces first.
 */
export function normalizeWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export function l2normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}
