/**
 * Questions compared with questions (Unanswered grouping, curated answers): each embedded once by
 * the KB's embedding model (else the default) and stored as Float32 bytes beside its text, so a
 * comparison is a dot product of unit vectors (cosine similarity).
 */
import type { AnsweringDeps } from '../deps';
import type { EmbeddingProvider } from '../../ai/embeddings/types';

export const toBytes = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

export function toVector(b: Uint8Array): Float32Array {
  const copy = new Uint8Array(b); // aligned, whatever the driver handed back
  return new Float32Array(copy.buffer, 0, copy.byteLength / 4);
}

export const cosine = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

/** The model a KB's questions are compared with: its own, else the process default. */
export function questionModel(deps: Pick<AnsweringDeps, 'embeddings'>, kb: { embedding_model: string | null }): EmbeddingProvider {
  return deps.embeddings.get(kb.embedding_model) ?? deps.embeddings.default;
}

/** Two wordings of one question, compared as text before any vector: case, spacing and end punctuation aside. */
export const sameWording = (a: string, b: string) => normalise(a) === normalise(b);
const normalise = (s: string) => s.toLowerCase().replace(/[\s\p{P}]+/gu, ' ').trim();
