/**
 * Ligature glyphs that a PDF maps to no character. Some generators draw "fi", "fl", "ffi"… as one
 * glyph and give it no Unicode value; pdf.js then reports U+0000 and the word loses letters
 * ("Wildower", "scal year", "cash ow"), so neither BM25 nor the embedding can match "Wildflower",
 * "fiscal" or "flow" in a question.
 *
 * Such a glyph is one ligature everywhere it occurs in a document, so it is decoded once per
 * document: while pages are read, each unmapped glyph (one font, one advance width for its size)
 * gets a private-use placeholder; at the end, every distinct word it occurs in votes for the
 * ligature under which that word is most probable by the unigram language model of the offline
 * embedding's SentencePiece vocabulary ("flow" beats "fiow" by far; a close call such as
 * "Wildflower" vs "Wildffower" is outvoted by the glyph's other words). A glyph rarely followed by a
 * letter is not a ligature and is dropped, as before.
 */
import { loadLocalEncoder } from '../ai/embeddings/local';

const CANDIDATES = ['fi', 'fl', 'ff', 'ffi', 'ffl'] as const;
const FIRST_PLACEHOLDER = 0xe000;
/** Distinct unmapped glyphs tracked per document; others are dropped as before. */
const MAX_GLYPHS = 64;
/** Distinct words that vote per glyph: plenty to decide, bounded work on a huge document. */
const MAX_VOTERS = 300;
const PLACEHOLDERS = /[\uE000-\uE03F]/g;
const LETTER = /\p{L}/u;

interface GlyphRun {
  str: string;
  width: number;
  transform: number[];
  fontName?: string;
}

export class UnmappedGlyphs {
  private readonly keys = new Map<string, string>();

  /** Replaces U+0000 in a page's text runs by a placeholder per glyph (font + relative width). */
  mark(items: unknown[]): void {
    for (const item of items as GlyphRun[]) {
      if (typeof item?.str !== 'string' || !item.str.includes('\u0000')) continue;
      const size = Math.hypot(item.transform?.[0] ?? 0, item.transform?.[1] ?? 0) || 1;
      // A run of one glyph tells its width; inside a longer run only the font is known.
      const key = item.str === '\u0000' ? `${item.fontName}:${(item.width / size).toFixed(2)}` : `${item.fontName}:?`;
      item.str = item.str.replaceAll('\u0000', this.placeholder(key));
    }
  }

  get found(): boolean {
    return this.keys.size > 0;
  }

  /** Decides every placeholder's ligature from the words of the whole document. */
  async decoder(texts: string[]): Promise<(text: string) => string> {
    if (!this.found) return (text) => text;
    const { encoder } = await loadLocalEncoder();
    const choice = chooseLigatures(texts, (word) => encoder.tokenizer.logProbability(word));
    return (text) => text.replace(PLACEHOLDERS, (p) => choice.get(p) ?? '');
  }

  private placeholder(key: string): string {
    let p = this.keys.get(key);
    if (p === undefined) {
      p = this.keys.size < MAX_GLYPHS ? String.fromCharCode(FIRST_PLACEHOLDER + this.keys.size) : '';
      this.keys.set(key, p);
    }
    return p;
  }
}

/** Exported for tests: placeholder -> ligature ('' when the glyph is not one). */
export function chooseLigatures(texts: string[], logProbability: (word: string) => number): Map<string, string> {
  const words = new Map<string, Set<string>>();
  const followedByLetter = new Map<string, [yes: number, all: number]>();
  for (const text of texts) {
    for (const match of text.matchAll(/[\p{L}\uE000-\uE03F]*[\uE000-\uE03F][\p{L}\uE000-\uE03F]*/gu)) {
      const word = match[0];
      for (let i = 0; i < word.length; i++) {
        const ch = word[i]!;
        if (!isPlaceholder(ch)) continue;
        const seen = followedByLetter.get(ch) ?? [0, 0];
        seen[0] += LETTER.test(word[i + 1] ?? '') ? 1 : 0;
        seen[1]++;
        followedByLetter.set(ch, seen);
        const voters = words.get(ch) ?? new Set<string>();
        if (voters.size < MAX_VOTERS) voters.add(word.toLowerCase());
        words.set(ch, voters);
      }
    }
  }
  const choice = new Map<string, string>();
  for (const [placeholder, voters] of words) {
    const [yes, all] = followedByLetter.get(placeholder)!;
    if (yes * 2 < all) {
      choice.set(placeholder, '');
      continue;
    }
    const votes = new Map<string, number>(CANDIDATES.map((c) => [c, 0]));
    for (const word of voters) {
      // Other placeholders in the same word are left out of its score.
      const ranked = CANDIDATES.map((c) => [c, logProbability(word.replaceAll(placeholder, c).replace(PLACEHOLDERS, ''))] as const).sort(
        (a, b) => b[1] - a[1],
      );
      // A word votes by how clearly it prefers its best reading (capped so no word decides alone).
      votes.set(ranked[0]![0], votes.get(ranked[0]![0])! + Math.min(5, ranked[0]![1] - ranked[1]![1]));
    }
    choice.set(placeholder, [...votes].sort((a, b) => b[1] - a[1])[0]![0]);
  }
  return choice;
}

function isPlaceholder(ch: string): boolean {
  const code = ch.charCodeAt(0);
  return code >= FIRST_PLACEHOLDER && code < FIRST_PLACEHOLDER + MAX_GLYPHS;
}
