/**
 * The dump `npm run bench -- reports --dump FILE` writes (every question with the passages
 * retrieval gave it), read back by the tuning scripts in bench/research/: the answerer and the
 * refusal gate re-run over it in seconds instead of a quarter of an hour of ingestion.
 */
import { readFileSync } from 'node:fs';
import type { AnswerPassage } from '../../src/ai/prompts';

export type DumpedQuestion = {
  kind: 'answerable' | 'unanswerable' | 'off-topic' | 'held-out' | 'squad';
  corpus: string;
  question: string;
  want?: string;
  answers?: string[];
  confident: boolean;
  passages: AnswerPassage[];
  files: string[];
  /** Each passage's BM25, cosine and published score, as retrieval returned them. */
  scores: Array<{ lexical: number; dense: number; score: number }>;
  /** The fused candidate pool, best first (retrieve.ts scoreCandidates, then fuse). */
  pool: Array<{ lexical: number; dense: number; fused: number }>;
  lexicalCeiling: number;
  /** The question's lexemes with their chunk frequency in the KB (0: absent), and the KB's chunk count. */
  lexicon: { chunks: number; terms: Array<{ lexeme: string; df: number }> };
};

/** Dumps written before the refusal gate read BM25 carry no retrieval scores. */
export type ReadQuestion = Omit<DumpedQuestion, 'scores' | 'pool' | 'lexicalCeiling' | 'lexicon'> &
  Partial<Pick<DumpedQuestion, 'scores' | 'pool' | 'lexicalCeiling' | 'lexicon'>>;

/** The dump's questions, each passage with its document (older dumps name it only in `files`). */
export function readReportsDump(file: string): DumpedQuestion[] {
  const rows = JSON.parse(readFileSync(file, 'utf8')) as DumpedQuestion[];
  return rows.map((r) => ({ ...r, passages: r.passages.map((p, i) => ({ ...p, document: p.document ?? r.files[i] })) }));
}

export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) (dot += a[i]! * b[i]!), (aa += a[i]! ** 2), (bb += b[i]! ** 2);
  return dot / Math.sqrt(aa * bb);
}
