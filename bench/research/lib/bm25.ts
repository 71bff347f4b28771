/**
 * BM25 over an analyzer that mimics PostgreSQL's `english` text search configuration,
 * so that what we tune here can be reproduced in SQL from `to_tsvector('english', ...)`:
 *  - lower-case words of letters/digits (the default parser's asciiword/word/numword);
 *    hyphenated words yield the whole compound plus its parts (hword/hword_part);
 *    apostrophes split ("don't" -> don, t), as the parser does;
 *  - drop the Snowball English stop words (share/tsearch_data/english.stop, checked
 *    before stemming, as dict_snowball does);
 *  - Snowball English ("Porter2") stemming, which is what the english_stem dictionary runs.
 *
 * Scoring (Lucene/BM25 "plus one" idf, never negative):
 *   idf(t)   = ln(1 + (N - df + 0.5) / (df + 0.5))
 *   score    = sum over DISTINCT query lexemes t present in d of
 *              idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))
 *   dl       = number of non-stop-word tokens of d (sum of tf), avgdl its mean.
 */
import stem from 'wink-porter2-stemmer';

export const POSTGRES_ENGLISH_STOPWORDS = new Set(
  (
    'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers ' +
    'herself it its itself they them their theirs themselves what which who whom this that these those am is are ' +
    'was were be been being have has had having do does did doing a an the and but if or because as until while ' +
    'of at by for with about against between into through during before after above below to from up down in out ' +
    'on off over under again further then once here there when where why how all any both each few more most other ' +
    'some such no nor not only own same so than too very s t can will just don should now'
  ).split(' '),
);

const WORD = /[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*/gu;

export function analyze(text: string): string[] {
  const out: string[] = [];
  const lexeme = (w: string) => {
    if (POSTGRES_ENGLISH_STOPWORDS.has(w)) return;
    out.push(/^\p{N}+$/u.test(w) ? w : stem(w));
  };
  for (const m of text.toLowerCase().matchAll(WORD)) {
    const word = m[0];
    if (word.includes('-')) {
      lexeme(word);
      for (const part of word.split('-')) lexeme(part);
    } else {
      lexeme(word);
    }
  }
  return out;
}

export interface Bm25Params {
  k1: number;
  b: number;
}

export class Bm25Index {
  private readonly postings = new Map<string, { doc: Int32Array; tf: Float32Array }>();
  private readonly docLength: Float32Array;
  private readonly avgdl: number;
  readonly size: number;

  constructor(docs: string[]) {
    this.size = docs.length;
    this.docLength = new Float32Array(docs.length);
    const build = new Map<string, { doc: number[]; tf: number[] }>();
    docs.forEach((text, d) => {
      const terms = analyze(text);
      this.docLength[d] = terms.length;
      const counts = new Map<string, number>();
      for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
      for (const [t, c] of counts) {
        const p = build.get(t) ?? { doc: [], tf: [] };
        p.doc.push(d);
        p.tf.push(c);
        build.set(t, p);
      }
    });
    for (const [t, p] of build) this.postings.set(t, { doc: Int32Array.from(p.doc), tf: Float32Array.from(p.tf) });
    this.avgdl = this.docLength.reduce((a, b) => a + b, 0) / Math.max(1, docs.length);
  }

  /** Scores of every document for the query (0 where no lexeme matches). */
  scoreAll(query: string, { k1, b }: Bm25Params): Float32Array {
    const scores = new Float32Array(this.size);
    for (const term of new Set(analyze(query))) {
      const p = this.postings.get(term);
      if (!p) continue;
      const df = p.doc.length;
      const idf = Math.log(1 + (this.size - df + 0.5) / (df + 0.5));
      for (let i = 0; i < df; i++) {
        const d = p.doc[i]!;
        const tf = p.tf[i]!;
        scores[d]! += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * this.docLength[d]!) / this.avgdl));
      }
    }
    return scores;
  }
}
