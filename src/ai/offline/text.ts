/**
 * Text primitives shared by the offline answerer and condenser: tokenising
 * with character offsets, English stopwords, stemming and sentence splitting.
 */
import { stem } from './stemmer';

export interface Token {
  /** As written. */
  readonly raw: string;
  /** Lower-cased. */
  readonly lower: string;
  /** Porter stem of `lower` (numbers and ids unchanged), merged with its synonyms (see `concept`). */
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
// Snowflake has discussed Snowpark" is about Snowflake and Snowpark, and no passage says "conclusions".
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

function makeToken(raw: string, start: number): Token {
  let lower = raw.toLowerCase().replace(/’/g, "'").replace(/‐/g, '-');
  if (lower.endsWith("'s")) lower = lower.slice(0, -2);
  return { raw, lower, stem: concept(stem(lower)), start, end: start + raw.length, stop: STOPWORDS.has(lower) };
}

/**
 * Words with offsets. Hyphenated names that contain a digit ("Zephyr-9",
 * "COVID-19") stay one token, so an identifier counts as one concept; other
 * hyphenated words ("carbon-fibre") are split into their parts. Possessive
 * "'s" stays in `raw` but not in `lower`/`stem`.
 */
export function tokenize(text: string): readonly Token[] {
  const known = recent.get(text);
  if (known) {
    // Most recently used last, so the oldest entry is the first one evicted.
    recent.delete(text);
    recent.set(text, known);
    return known;
  }
  const out = tokenizeText(text);
  if (out.length > RECENT_MAX_TOKENS / 10) return out;
  recent.set(text, out);
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
 * passages: tokenising was a tenth of a search's work on the web thread (docs/performance.md, stop 36).
 * Bounded by the tokens held (~150 bytes each, so ~15 MB); a text of more than a tenth of that is not kept.
 */
const RECENT_MAX_TOKENS = 100_000;
const recent = new Map<string, readonly Token[]>();
let recentTokens = 0;

function tokenizeText(text: string): readonly Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(WORD_RE)) {
    const raw = m[0];
    const start = m.index ?? 0;
    if (!/[-‐]/.test(raw) || /\d/.test(raw)) {
      out.push(makeToken(raw, start));
      continue;
    }
    for (const part of raw.matchAll(/[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu)) out.push(makeToken(part[0], start + (part.index ?? 0)));
  }
  return out;
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

// After a newline: a blank line, a list item ("- ", "* ", "• ", "1. ", "2) ") or a markdown heading.
const BREAK_AFTER_NEWLINE = /[ \t]*(?:\n|(?:[-*•]|\d+[.)]|#{1,6})\s)/y;

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
      if (BREAK_AFTER_NEWLINE.test(text) || /^[ \t]*#{1,6}\s/.test(text.slice(lineStart, lineStart + 8))) {
        push(i);
        continue;
      }
    }
    if (c !== '.' && c !== '!' && c !== '?' && c !== '。') continue;

    // Absorb runs of terminators and closing quotes/brackets.
    let j = i + 1;
    while (j < n && /[.!?'"’”)\]]/.test(text[j]!)) j++;
    if (j < n && !/\s/.test(text[j]!)) continue; // "3.5", "e.g.x", "U.S.-based"
    // Next non-space character must plausibly start a sentence.
    let k = j;
    while (k < n && /\s/.test(text[k]!)) k++;
    if (k >= n) {
      push(n);
      break;
    }
    const next = text[k]!;
    if (!/[\p{Lu}\p{N}"'“‘(\[]/u.test(next)) continue;

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
