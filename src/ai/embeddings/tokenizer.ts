/**
 * SentencePiece (unigram) tokenizer for the Universal Sentence Encoder lite vocabulary.
 *
 * Guarantees: for any input string, `encode()` returns exactly the ids that
 * `@energetic-ai/embeddings`' Tokenizer returns (verified on ~100k sentences by
 * `npm run bench -- tokenizer-parity`), including its quirks: NFKC, no lower-casing,
 * spaces become U+2581, ties go to the later start position, runs of unknown
 * characters collapse to one id 0. The distilled table was built from that
 * tokenization, so matching it exactly is what keeps the table's rows meaningful.
 *
 * It is a re-implementation rather than a re-use because the reference slices the
 * remaining input at every position (quadratic) and is ~10x slower, which matters
 * when a 600-page PDF is tokenized at ingest.
 */

export type Vocabulary = ReadonlyArray<readonly [piece: string, score: number]>;

const SEPARATOR = '\u2581';
/** Ids 0..5 are `<unk>`, `<s>`, `</s>` and three extra ids: never produced by a match. */
const RESERVED_SYMBOLS = 6;
export const UNKNOWN_ID = 0;

interface TrieNode {
  children: Map<number, TrieNode>;
  /** Vocabulary id if a piece ends here, else -1. */
  id: number;
}

export class PieceTokenizer {
  private readonly root: TrieNode = { children: new Map(), id: -1 };
  private readonly scores: Float64Array;
  /** Piece length in UTF-16 units: the reference backtracks by `piece.length`. */
  private readonly lengths: Int32Array;
  /** Piece length in code points: how far a match advances. */
  private readonly symbolLengths: Int32Array;

  constructor(readonly vocabulary: Vocabulary) {
    this.scores = new Float64Array(vocabulary.length);
    this.lengths = new Int32Array(vocabulary.length);
    this.symbolLengths = new Int32Array(vocabulary.length);
    for (let id = 0; id < vocabulary.length; id++) {
      const [piece, score] = vocabulary[id]!;
      this.scores[id] = score;
      this.lengths[id] = piece.length;
      this.symbolLengths[id] = [...piece].length;
      if (id < RESERVED_SYMBOLS) continue;
      let node = this.root;
      for (const ch of piece) {
        const cp = ch.codePointAt(0)!;
        let next = node.children.get(cp);
        if (!next) {
          next = { children: new Map(), id: -1 };
          node.children.set(cp, next);
        }
        node = next;
      }
      node.id = id;
    }
  }

  get size(): number {
    return this.vocabulary.length;
  }

  encode(input: string): number[] {
    const normalized = input.normalize('NFKC');
    if (normalized.length === 0) return [];
    const text = SEPARATOR + normalized.replaceAll(' ', SEPARATOR);
    const symbols: number[] = [];
    for (const ch of text) symbols.push(ch.codePointAt(0)!);
    const n = symbols.length;

    // Viterbi over the piece lattice, relaxing forward from each start position. Starts
    // are visited in ascending order, so every end position sees its candidate edges in
    // the reference's order (ascending start), and the same update rule (`>=`, and the
    // "0 means unset" test the reference uses) picks the same winner.
    const best = new Float64Array(n + 1);
    const words = new Int32Array(n + 1);
    const relax = (start: number, end: number, id: number) => {
      const score = this.scores[id]! + best[start]!;
      if (best[end] === 0 || score >= best[end]!) {
        best[end] = score;
        words[end] = id;
      }
    };
    for (let i = 0; i < n; i++) {
      let node: TrieNode | undefined = this.root.children.get(symbols[i]!);
      let matched = false;
      for (let j = i; node; ) {
        if (node.id >= 0) {
          relax(i, i + this.symbolLengths[node.id]!, node.id);
          matched = true;
        }
        j++;
        node = j < n ? node.children.get(symbols[j]!) : undefined;
      }
      // A character no piece starts with becomes one unknown piece.
      if (!matched) relax(i, i + 1, UNKNOWN_ID);
    }

    const reversed: number[] = [];
    // The reference steps back by the piece's UTF-16 length (not its code-point length);
    // the two agree for every piece of this vocabulary.
    for (let iter = n; iter > 0; iter -= this.lengths[words[iter]!]!) reversed.push(words[iter]!);
    const out: number[] = [];
    let previousUnknown = false;
    for (const id of reversed) {
      if (!(previousUnknown && id === UNKNOWN_ID)) out.push(id);
      previousUnknown = id === UNKNOWN_ID;
    }
    return out.reverse();
  }

  /**
   * Log-probability of a text under the vocabulary's unigram model (its best segmentation): a
   * small language model, used to tell which spelling of a word is a real one (pdf-ligatures.ts).
   */
  logProbability(input: string): number {
    return this.encode(input).reduce((sum, id) => sum + (id === UNKNOWN_ID ? UNKNOWN_LOG_PROBABILITY : this.scores[id]!), 0);
  }
}

/** Below any piece of the vocabulary: an unknown character makes a spelling very unlikely. */
const UNKNOWN_LOG_PROBABILITY = -20;
