/**
 * Text primitives shared by the offline answerer and condenser: tokenising
 * with character offsets, English stopwords, stemming and sentence splitting.
 */
import { writtenWithoutSpaces, type Language } from './language';
import { stem } from './porter';
import { stemmerFor } from './stem';
import { unaskedWordsFor } from './stopwords';
import { isAscii, pieces, wordSegments } from './words';

export interface Token {
  /** As written. */
  readonly raw: string;
  /** Lower-cased. */
  readonly lower: string;
  /**
   * Stem of `lower` in the text's language (text/stem.ts: Porter for English and unknown, merged with
   * its synonyms, see `concept`; Snowball for other languages; words as they are in Chinese, Japanese, Thai).
   */
  readonly stem: string;
  readonly start: number;
  readonly end: number;
  readonly stop: boolean;
}

// Function words plus the question words: none of them says what a question is about.
export const STOPWORDS = new Set(
  `a about above after again against all also am an and any are aren't as at be because been before being below
  between both but by can cannot could couldn't did didn't do does doesn't doing don't down during each few for from
  further had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself him himself his how
  how's i i'd i'll i'm i've if in into is isn't it it's its itself let's me more most mustn't my myself no nor not of off
  on once only or other ought our ours ourselves out over own same shan't she she'd she'll she's should shouldn't so some
  such than that that's the their theirs them themselves then there there's these they they'd they'll they're they've this
  those through to too under until up very was wasn't we we'd we'll we're we've were weren't what what's when when's where
  where's which while who who's whom why why's with won't would wouldn't you you'd you'll you're you've your yours yourself
  yourselves s t d ll m re ve also may might must shall will just can could would should many much etc ie eg vs via per
  within without upon onto among amongst whose whatever whichever whoever however yes yet still even ever
  one's anyone anything someone something everyone everything nothing thing things way ways kind type sort
  name named called call say said tell give known`
    .split(/\s+/)
    .filter(Boolean),
);

// How a request is put, not what it asks about: "Please list all of the conclusions from the times
// Acme has discussed Roadrunner" is about Acme and Roadrunner, and no passage says "conclusions".
const REQUEST_WORDS = new Set(
  `please list summarize summarise summary overview outline describe described explain conclusion conclusions
  discuss discussed discusses mention mentioned mentions times status`.split(/\s+/),
);

const HOW_ADJECTIVES = new Set(
  'long many much old far big large tall high deep wide heavy fast often few small expensive soon late early'.split(' '),
);

/**
 * The words of a question that say what it asks about: not function words, not the request's
 * framing, and not the adjective of "how long/many/much...", which belongs to the wh-phrase.
 */
export function questionContent(tokens: readonly Token[]): Token[] {
  return tokens.filter((t, i) => !t.stop && !REQUEST_WORDS.has(t.lower) && !(tokens[i - 1]?.lower === 'how' && HOW_ADJECTIVES.has(t.lower)));
}

const WORD_RE = /[\p{L}\p{N}]+(?:[-‐][\p{L}\p{N}]+)*(?:['’][\p{L}]+)?/gu;

function makeToken(raw: string, start: number, stemOf: (lower: string) => string, stops: ReadonlySet<string> | null): Token {
  let lower = raw.toLowerCase().replace(/’/g, "'").replace(/‐/g, '-');
  if (lower.endsWith("'s")) lower = lower.slice(0, -2);
  const stemmed = stemOf(lower);
  const stop = STOPWORDS.has(lower) || (stops?.has(lower) ?? false);
  return { raw, lower, stem: stops ? stemmed : concept(stemmed), start, end: start + raw.length, stop };
}

/**
 * The language passages and questions are read in while `fn` runs (synchronously): the answerer and
 * the refusal gate read one answer's question and passages in the passages' language
 * (text/language.ts answerLanguage), and every tokenize() call below them, however deep, stems
 * and stops words in it. English (null) outside.
 */
let reading: Language | null = null;
export function readingIn<T>(language: Language | null, fn: () => T): T {
  const outer = reading;
  reading = language === 'en' ? null : language;
  try {
    return fn();
  } finally {
    reading = outer;
  }
}

/**
 * Adds to a text's stems the question terms its characters hold, in a language written without
 * spaces: a dictionary segments a short question and a long passage differently ("唱国歌" in one,
 * "唱" and "国歌" in the other), so a term counts as present where it is written, as for
 * "國歌" a reader would. Other languages' stems are left as they are.
 */
export function withWrittenTerms(stems: Set<string>, text: string, terms: readonly string[]): Set<string> {
  if (!writtenWithoutSpaces(reading)) return stems;
  const lower = text.toLowerCase();
  for (const t of terms) if (!stems.has(t) && lower.includes(t)) stems.add(t);
  return stems;
}

/**
 * Words with offsets, where ICU puts word boundaries (text/words.ts), in any script. Hyphenated
 * names that contain a digit ("Zephyr-9", "COVID-19") stay one token, so an identifier counts as
 * one concept; other hyphenated words ("carbon-fibre") are split into their parts. Possessive
 * "'s" stays in `raw` but not in `lower`/`stem`. `language` chooses the stemmer (English when absent).
 */
export function tokenize(text: string, language: Language | null = reading): readonly Token[] {
  const english = !language || language === 'en';
  const key = english ? text : `${language}\u0000${text}`;
  const known = recent.get(key);
  if (known) {
    // Most recently used last, so the oldest entry is the first one evicted.
    recent.delete(key);
    recent.set(key, known);
    return known;
  }
  const out = tokenizeText(text, english ? null : language!);
  if (out.length > RECENT_MAX_TOKENS / 10) return out;
  recent.set(key, out);
  recentTokens += out.length;
  for (const [oldest, tokens] of recent) {
    if (recentTokens <= RECENT_MAX_TOKENS) break;
    recent.delete(oldest);
    recentTokens -= tokens.length;
  }
  return out;
}

/**
 * Texts tokenised lately, shared by every caller (so the arrays are read-only). One answer tokenises each
 * retrieved passage's sentences three or four times (the answerer, the support check's two passes, the
 * documents they are about), and the next question to the same knowledge base retrieves many of the same
 * passages: tokenising was a tenth of a search's work on the web thread, measured by a CPU profile.
 * Bounded by the tokens held (~150 bytes each, so ~15 MB); a text of more than a tenth of that is not kept.
 */
const RECENT_MAX_TOKENS = 100_000;
const recent = new Map<string, readonly Token[]>();
let recentTokens = 0;

// Within one ICU word: letters with their combining marks (Devanagari and Thai vowel signs), digits.
const LETTERS_RE = /[\p{L}\p{M}\p{N}]+(?:['’][\p{L}\p{M}]+)?/gu;
const HYPHEN = /^[-‐]$/;

function tokenizeText(text: string, language: Language | null): readonly Token[] {
  const stemOf = stemmerFor(language);
  const stops = language === null ? null : unaskedWordsFor(language);
  const out: Token[] = [];
  const add = (raw: string, start: number) => out.push(makeToken(raw, start, stemOf, stops));
  for (const [from, to] of pieces(text)) {
    const piece = from === 0 && to === text.length ? text : text.slice(from, to);
    // ICU never breaks inside a run of ASCII letters and digits: the regex finds the same words.
    if (isAscii(piece)) asciiWords(piece, from, add);
    else segmentedWords(text, piece, from, add);
  }
  return out;
}

function asciiWords(piece: string, offset: number, add: (raw: string, start: number) => void): void {
  for (const m of piece.matchAll(WORD_RE)) {
    const raw = m[0];
    const start = offset + (m.index ?? 0);
    if (!/[-‐]/.test(raw) || /\d/.test(raw)) {
      add(raw, start);
      continue;
    }
    for (const part of raw.matchAll(/[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu)) add(part[0], start + (part.index ?? 0));
  }
}

/** ICU's words of a piece, each split as the ASCII rule splits ("3.5" is two), hyphenated names with a digit joined again. */
function segmentedWords(text: string, piece: string, offset: number, add: (raw: string, start: number) => void): void {
  const words: Array<{ start: number; end: number }> = [];
  for (const w of wordSegments(piece)) {
    const segment = piece.slice(w.start, w.end);
    for (const m of segment.matchAll(LETTERS_RE)) {
      const start = offset + w.start + (m.index ?? 0);
      words.push({ start, end: start + m[0].length });
    }
  }
  for (let i = 0; i < words.length; ) {
    let j = i;
    while (j + 1 < words.length && words[j + 1]!.start === words[j]!.end + 1 && HYPHEN.test(text[words[j]!.end]!)) j++;
    const chain = text.slice(words[i]!.start, words[j]!.end);
    if (j > i && /\d/.test(chain)) add(chain, words[i]!.start);
    else for (let k = i; k <= j; k++) add(text.slice(words[k]!.start, words[k]!.end), words[k]!.start);
    i = j + 1;
  }
}

/** Stems of the content words of a text (stopwords dropped). */
export function contentStems(text: string): string[] {
  return tokenize(text)
    .filter((t) => !t.stop)
    .map((t) => t.stem);
}

// Tokens after which a period does not end a sentence.
const ABBREVIATIONS = new Set(
  `mr mrs ms dr prof sr jr st mt ft vs etc e.g i.e cf al approx dept est fig inc ltd co corp no nos vol vols pp ed eds
  rev gen col lt sgt capt cmdr gov sen rep pres jan feb mar apr jun jul aug sep sept oct nov dec u.s u.k a.m p.m c ca`
    .split(/\s+/)
    .filter(Boolean),
);

const TERMINAL = /\p{Sentence_Terminal}/u;
const FULL_WIDTH_TERMINAL = /[。！？｡．]/u;
const CLOSING = /['"’”」』）》)\]]/u;
const PHRASE_SPACED = /[\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}]/u;

// After a newline: a blank line, a list item ("- ", "* ", "• ", "1. ", "2) ") or a markdown heading.
const BREAK_AFTER_NEWLINE = /[ \t]*(?:\n|(?:[-*•]|\d+[.)]|#{1,6})\s)/y;
// A line that is a field ("Total Flight Time: 2,319 hours": a short label, a colon, its value) or a
// table row ("Region: North | 2023: 915") is a unit of its own: forms and tables print one per line
// without a sentence end, and run together they read as one label soup.
const FIELD_OR_ROW_LINE = /^[ \t]*(?:[\p{L}\p{N}][^\n:：.!?。]{0,48}[:：][ \t]*\S|[^\n]*\S[ \t]*\|[ \t]*\S)/u;

/** Whether a line is a field ("Label: value") or a table row, a unit that stands alone. */
export function isFieldOrRow(line: string): boolean {
  return !line.includes('\n') && FIELD_OR_ROW_LINE.test(line);
}

export interface Sentence {
  text: string;
  start: number;
  end: number;
}

/**
 * Split prose into sentences. Handles abbreviations, initials ("J. K."),
 * decimals and ellipses, closing quotes/brackets after the terminator, and
 * blank-line / list-item boundaries in extracted documents.
 */
export function splitSentences(text: string): Sentence[] {
  const out: Sentence[] = [];
  const n = text.length;
  let start = 0;

  const push = (end: number) => {
    const raw = text.slice(start, end);
    const lead = raw.length - raw.trimStart().length;
    const trimmed = raw.trim();
    if (trimmed.length > 0) out.push({ text: trimmed, start: start + lead, end: start + lead + trimmed.length });
    start = end;
  };

  for (let i = 0; i < n; i++) {
    const c = text[i]!;
    // Paragraph breaks and bullet lines end a sentence regardless of punctuation.
    if (c === '\n') {
      BREAK_AFTER_NEWLINE.lastIndex = i + 1;
      const lineStart = text.lastIndexOf('\n', i - 1) + 1;
      const nextEnd = text.indexOf('\n', i + 1);
      if (
        BREAK_AFTER_NEWLINE.test(text) ||
        /^[ \t]*#{1,6}\s/.test(text.slice(lineStart, lineStart + 8)) ||
        FIELD_OR_ROW_LINE.test(text.slice(lineStart, i)) ||
        FIELD_OR_ROW_LINE.test(text.slice(i + 1, nextEnd < 0 ? n : nextEnd))
      ) {
        push(i);
        continue;
      }
    }
    // Thai, Lao, Khmer and Burmese put no space between words, and a space between phrases and sentences.
    if ((c === ' ' || c === '\u00a0') && i > start && PHRASE_SPACED.test(text[i - 1]!) && PHRASE_SPACED.test(text[i + 1] ?? '')) {
      push(i);
      continue;
    }
    // Any script's sentence end (Unicode's Sentence_Terminal: . ! ? 。 ！ ？ ؟ ۔ । ॥ ። ...).
    if (!TERMINAL.test(c)) continue;

    // Absorb runs of terminators and closing quotes/brackets.
    let j = i + 1;
    while (j < n && (TERMINAL.test(text[j]!) || CLOSING.test(text[j]!))) j++;
    if (j < n && !/\s/.test(text[j]!)) {
      // A full-width terminator ends its sentence with no space after it ("。北京"); "3.5", "e.g.x" and
      // "U.S.-based" do not end one.
      if (!FULL_WIDTH_TERMINAL.test(c)) continue;
      push(j);
      i = j - 1;
      continue;
    }
    // Next non-space character must plausibly start a sentence: a capital, a digit, a quote, or a
    // letter of a script without case (Arabic, Devanagari, CJK), where a capital cannot tell.
    let k = j;
    while (k < n && /\s/.test(text[k]!)) k++;
    if (k >= n) {
      push(n);
      break;
    }
    const next = text[k]!;
    if (!/[\p{Lu}\p{Lt}\p{Lo}\p{N}"'“‘«„(\[]/u.test(next)) continue;

    if (c === '.') {
      // Word right before the period.
      let b = i - 1;
      while (b >= 0 && /[\p{L}.]/u.test(text[b]!)) b--;
      const word = text.slice(b + 1, i).toLowerCase();
      if (ABBREVIATIONS.has(word)) continue;
      // "1. Open the app": list numbering at the start of a line.
      let d = i - 1;
      while (d >= 0 && /\d/.test(text[d]!)) d--;
      if (d < i - 1 && d - text.lastIndexOf('\n', d) <= 3 && /^[ \t]*$/.test(text.slice(text.lastIndexOf('\n', d) + 1, d + 1))) continue;
      if (/^\p{Lu}$/u.test(text.slice(b + 1, i))) continue; // initial: "J. K. Rowling"
      if (/^(?:\p{L}\.)+\p{L}$/u.test(text.slice(b + 1, i))) continue; // "U.S" in "U.S. Army"
    }
    push(j);
    i = j - 1;
  }
  if (start < n) push(n);
  return out;
}

const NUMBER_WORDS = new Set(
  `zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen
  eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred hundreds thousand thousands million
  millions billion billions trillion dozen dozens half quarter twice once thrice several`
    .split(/\s+/)
    .filter(Boolean),
);
export function isNumberWord(lower: string): boolean {
  return NUMBER_WORDS.has(lower) || /^\d/.test(lower);
}

export const MONTHS = new Set(
  'january february march april may june july august september october november december'.split(' '),
);
export const WEEKDAYS = new Set('monday mondays tuesday tuesdays wednesday wednesdays thursday thursdays friday fridays saturday saturdays sunday sundays'.split(' '));

// Everyday synonyms that stemming cannot join ("Who makes X?" / "X is manufactured by").
// Kept deliberately small and tight: a loose group matches unrelated sentences.
const SYNONYM_GROUPS = [
  'make makes made manufacture manufactured manufacturer manufactures produce produced producer produces build builds built',
  'cost costs price prices priced pricing',
  'buy buys bought purchase purchased purchases',
  'sell sells sold sale sales',
  'weigh weighs weighed weight',
  'speed speeds velocity',
  'begin begins began begun start starts started commence commenced',
  'die dies died death dead',
  'born birth birthplace',
  'employ employs employed employee employees staff workforce',
  'write writes wrote written author authored',
  'create creates created creator',
  'big large huge',
  'repair repairs repaired fix fixes fixed',
  'delete deletes deleted remove removes removed',
  'cancel cancels cancelled canceled terminate terminated',
  'ship ships shipped shipping deliver delivers delivered delivery',
  'country nation',
  'allow allows allowed permit permits permitted',
  'need needs needed require requires required',
  'go goes going went gone destination destined',
];
const CONCEPT = new Map<string, string>();
for (const group of SYNONYM_GROUPS) {
  const words = group.split(' ');
  const key = stem(words[0]!);
  for (const w of words) CONCEPT.set(stem(w), key);
}

/** The stem, or the shared key of its synonym group. */
export function concept(stemmed: string): string {
  return CONCEPT.get(stemmed) ?? stemmed;
}
