/**
 * Text that costs far more to ingest than it is worth: a 20 MB file of one character repeated became
 * 17,477 chunks and 20 minutes of worker time (issue 26). Any unit of up to 8 characters repeated 16
 * times or more in a row ("aaaa…", "ab ab ab…", "=====…") is collapsed to three repeats before
 * chunking, and text left with no word at all (a run of 2–40 letters or digits that is not one
 * character repeated) is refused: retrieval could never find anything in it.
 */
import { PermanentIngestError } from './errors';
import type { ParsedDocument } from './types';

const MAX_UNIT = 8;
const MIN_REPEATS = 16;
const WORD = /(?<![\p{L}\p{N}])[\p{L}\p{N}]{2,40}(?![\p{L}\p{N}])/gu;

/** One linear pass (a backreference regex overflows V8's stack on 20 MB of one character). */
export function collapseRepeats(text: string): string {
  const n = text.length;
  const out: string[] = [];
  let flushed = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    let unit = 0;
    let end = 0;
    // The shortest unit that repeats wins: a run of one character is also a run of every longer unit.
    for (let p = 1; p <= MAX_UNIT && i + MIN_REPEATS * p <= n; p++) {
      if (text.charCodeAt(i + p) !== c) continue;
      let j = i + p + 1;
      while (j < n && text.charCodeAt(j) === text.charCodeAt(j - p)) j++;
      if (j - i >= MIN_REPEATS * p) {
        unit = p;
        end = j;
        break;
      }
    }
    if (unit === 0) {
      i++;
      continue;
    }
    out.push(text.slice(flushed, i), text.slice(i, i + 3 * unit));
    i = end;
    flushed = i;
  }
  if (flushed === 0) return text;
  out.push(text.slice(flushed));
  return out.join('');
}

function hasWord(text: string): boolean {
  for (const m of text.matchAll(WORD)) {
    const w = m[0];
    if (!w.split('').every((c) => c === w[0])) return true;
  }
  return false;
}

/** The document with repeats collapsed; throws no_text when nothing word-like is left. */
export function collapseDegenerateText(parsed: ParsedDocument): ParsedDocument {
  const sections = parsed.sections.map((s) => ({ ...s, text: collapseRepeats(s.text) }));
  if (!sections.some((s) => hasWord(s.text))) {
    throw new PermanentIngestError('no_text', 'The file has no words, only repeated characters or symbols, so there is nothing to answer from');
  }
  return { ...parsed, sections };
}
