/**
 * Where words are, in any script: ICU's word boundaries (Intl.Segmenter, built into Node with its
 * dictionaries for Chinese, Japanese, Thai, Lao, Khmer and Burmese), the one word splitter that
 * indexing, querying, the answerer's term matching and the refusal gate share.
 *
 * Two facts shape it:
 *   - V8's segmenter slows down more than linearly on long strings (a 160,000-character text took a
 *     minute where its 2,000-character pieces take milliseconds), so text is segmented in pieces cut
 *     at white space (`pieces`);
 *   - ICU never breaks inside a run of ASCII letters and digits, so an all-ASCII piece needs no
 *     segmenter: the fast path for English, with the same words.
 */

const WORDS = new Intl.Segmenter(undefined, { granularity: 'word' });

/** Longest piece handed to the segmenter. */
const PIECE_CHARS = 2000;

// eslint-disable-next-line no-control-regex
const ASCII = /^[\x00-\x7f]*$/;
export const isAscii = (text: string) => ASCII.test(text);
// eslint-disable-next-line no-control-regex
const NON_ASCII_WORDISH = /(?![\x00-\x7f])[\p{L}\p{M}\p{N}]/u;
// eslint-disable-next-line no-control-regex
const NON_ASCII_ALL = /[^\x00-\x7f]/g;

/**
 * [start, end) pieces of at most `max` characters, each cut after white space where there is some in
 * its second half, else at `max` (never inside a surrogate pair).
 */
export function pieces(text: string, max = PIECE_CHARS): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let start = 0;
  while (text.length - start > max) {
    let cut = -1;
    for (let i = start + max; i > start + max / 2; i--) {
      if (/\s/.test(text[i - 1]!)) {
        cut = i;
        break;
      }
    }
    if (cut < 0) {
      cut = start + max;
      const code = text.charCodeAt(cut - 1);
      if (code >= 0xd800 && code <= 0xdbff) cut--;
    }
    out.push([start, cut]);
    start = cut;
  }
  if (start < text.length || text.length === 0) out.push([start, text.length]);
  return out;
}

export type Span = { start: number; end: number };

/** ICU's word-like segments of `text` (letters, digits, ideographs; not spaces or punctuation). */
export function wordSegments(text: string): Span[] {
  const out: Span[] = [];
  for (const [from, to] of pieces(text)) {
    const piece = from === 0 && to === text.length ? text : text.slice(from, to);
    for (const s of WORDS.segment(piece)) if (s.isWordLike) out.push({ start: from + s.index, end: from + s.index + s.segment.length });
  }
  return out;
}

/**
 * The text as PostgreSQL's full-text parser should read it, for the index and for a query alike:
 * the parser knows no word boundaries in scripts written without spaces (a Chinese sentence was
 * one "word"), and in a database with the C locale it takes every non-ASCII character for a letter
 * (so "“quoted”" and "word—word" were single words). So every ICU word boundary between two word
 * segments becomes a space, and every non-word segment holding a non-ASCII character (CJK
 * punctuation, curly quotes, dashes) becomes spaces. ASCII punctuation stays for the parser, which
 * reads hyphenated words, decimals and addresses as it always has. The typographic apostrophe
 * inside a word becomes the ASCII one, which the parser splits on as in "company's".
 */
export function searchText(text: string): string {
  if (isAscii(text)) return text;
  let out = '';
  for (const [from, to] of pieces(text)) {
    const piece = text.slice(from, to);
    if (isAscii(piece)) {
      out += piece;
      continue;
    }
    // Only punctuation and symbols beyond ASCII (curly quotes, dashes, bullets): no word boundary
    // for ICU to find, so each such character becomes a space, as its segment would.
    if (!NON_ASCII_WORDISH.test(piece)) {
      out += piece.replace(/[’‘]/g, "'").replace(NON_ASCII_ALL, ' ');
      continue;
    }
    let previousWord = false;
    for (const s of WORDS.segment(piece)) {
      if (s.isWordLike) {
        if (previousWord) out += ' ';
        out += s.segment.replace(/[’‘]/g, "'");
        previousWord = true;
      } else {
        out += isAscii(s.segment) ? s.segment : ' ';
        previousWord = false;
      }
    }
  }
  return out;
}

/**
 * `text` cut to at most `max` characters at a word boundary (ICU's), without the partial word:
 * a snippet in Chinese ends between two words as an English one ends at a space.
 */
export function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max + 1);
  let end = 0;
  for (const s of WORDS.segment(head)) {
    const segEnd = s.index + s.segment.length;
    if (segEnd > max) break;
    if (s.isWordLike) end = segEnd;
  }
  return text.slice(0, end > 0 ? end : max).trimEnd();
}
