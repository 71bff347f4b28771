/** SQuAD v1.1 dev as a retrieval benchmark: each paragraph is one document/chunk. */
import { readFileSync } from 'node:fs';
import { splitSentences } from '../../../src/ai/embeddings/sentences';

export const SQUAD_PATH = process.env.SQUAD_PATH ?? '/work/shared/data/squad/dev-v1.1.json';

export interface SquadQuestion {
  text: string;
  /** Index of the paragraph that holds the answer. */
  gold: number;
  /** Position in file order; the tune/test split is by parity of this index. */
  index: number;
}

export interface Squad {
  paragraphs: string[];
  /** Sentences of each paragraph, flattened; `sentenceParagraph[i]` is the owner. */
  sentences: string[];
  sentenceParagraph: Int32Array;
  questions: SquadQuestion[];
}

export function loadSquad(path = SQUAD_PATH): Squad {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as {
    data: { paragraphs: { context: string; qas: { question: string }[] }[] }[];
  };
  const paragraphs: string[] = [];
  const questions: SquadQuestion[] = [];
  for (const article of raw.data) {
    for (const p of article.paragraphs) {
      for (const q of p.qas) questions.push({ text: q.question, gold: paragraphs.length, index: questions.length });
      paragraphs.push(p.context);
    }
  }
  const sentences: string[] = [];
  const owner: number[] = [];
  paragraphs.forEach((p, i) => {
    for (const s of splitSentences(p)) {
      sentences.push(s);
      owner.push(i);
    }
  });
  return { paragraphs, sentences, sentenceParagraph: Int32Array.from(owner), questions };
}
