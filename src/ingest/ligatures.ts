/**
 * Ligatures a PDF's producer lost. Some generators (the shared earnings-call transcripts were
 * printed to PDF by a browser) map a ligature glyph (fi, fl, ff, ffi, ffl) to U+0000 in the font's
 * ToUnicode CMap, so pdf.js faithfully yields "Snow\0ake" and "\0nancial", and dropping the NUL as
 * a control character stored "Snowake" and "nancial": words no search could find. The subset font
 * keeps no glyph names and the ligatures have the same width, so the glyph cannot tell which
 * ligature it was; the word can: the ligature that makes an English word (word-list's 275,000) is
 * chosen, and "fi", by far the most frequent one, when none does.
 */
import { readFileSync } from 'node:fs';
import wordListPath from 'word-list';

const LIGATURES = ['fi', 'fl', 'ff', 'ffi', 'ffl'];
// A run of letters holding a NUL; more than two lost ligatures in one word is not a word.
const WORD_WITH_NUL = /[\p{L}\u0000]*\u0000[\p{L}\u0000]*/gu;
const MAX_LOST_PER_WORD = 2;

let englishWords: Set<string> | undefined;

/** Loaded on the first NUL met (~0.1 s, ~20 MB): most documents never need it. */
function isEnglishWord(word: string): boolean {
  englishWords ??= new Set(readFileSync(wordListPath, 'utf8').split('\n'));
  return englishWords.has(word.toLowerCase());
}

function candidates(word: string): string[] {
  const [head, ...rest] = word.split('\u0000');
  let out = [head!];
  for (const part of rest) out = out.flatMap((prefix) => LIGATURES.map((l) => prefix + l + part));
  return out;
}

/** `text` with every NUL inside or at the edge of a word replaced by the ligature it stood for. */
export function restoreLostLigatures(text: string): string {
  if (!text.includes('\u0000')) return text;
  return text.replace(WORD_WITH_NUL, (word) => {
    const lost = word.split('\u0000').length - 1;
    if (!/\p{L}/u.test(word) || lost > MAX_LOST_PER_WORD) return word;
    const options = candidates(word);
    return options.find(isEnglishWord) ?? word.replaceAll('\u0000', 'fi');
  });
}
