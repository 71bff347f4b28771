/**
 * Which language a text is in, and what follows from it for search. A document's language is
 * detected once at ingestion from a sample of its text (franc: trigram profiles of 187 languages),
 * stored on the document and shown by the API; a question's is detected among the languages of the
 * KB it is asked of, since a question is short and a KB's languages are few.
 *
 * Languages are ISO 639-1 codes where one exists ("en", "zh"), else franc's ISO 639-3 code.
 * Where franc cannot tell (short text), the script decides for the scripts that belong to one
 * language or one dominant language (Han, kana, Hangul, Thai, Greek, Cyrillic, Arabic, ...).
 */
import { francAll } from 'franc';
import type { Language } from './language-code';
import { stopwordsFor } from './stopwords';
import { wordSegments } from './words';

export type { Language };

/** franc's ISO 639-3 codes of the languages with a 639-1 code that search or stemming knows. */
const ISO_639_1: Record<string, string> = {
  eng: 'en', deu: 'de', spa: 'es', fra: 'fr', ita: 'it', por: 'pt', nld: 'nl', swe: 'sv', dan: 'da', nob: 'no',
  nno: 'no', fin: 'fi', hun: 'hu', ron: 'ro', tur: 'tr', rus: 'ru', ukr: 'uk', bul: 'bg', srp: 'sr', ell: 'el',
  arb: 'ar', ary: 'ar', arz: 'ar', apc: 'ar', hin: 'hi', npi: 'ne', ben: 'bn', tam: 'ta', ind: 'id', zlm: 'ms',
  lit: 'lt', gle: 'ga', hye: 'hy', eus: 'eu', cat: 'ca', ces: 'cs', pol: 'pl', slk: 'sk', slv: 'sl', hrv: 'hr',
  bos: 'bs', heb: 'he', pes: 'fa', urd: 'ur', vie: 'vi', tha: 'th', cmn: 'zh', yue: 'zh', jpn: 'ja', kor: 'ko',
  ydd: 'yi', est: 'et', lav: 'lv', kat: 'ka', khm: 'km', lao: 'lo', mya: 'my',
};
/**
 * The languages detection chooses among: those above, each with a name to stem or segment by.
 * franc's minor languages are left out: on English text it often says Scots.
 */
const KNOWN = Object.keys(ISO_639_1);

/** Scripts other than Latin that detection can read off the letters: [letters, script, its main language]. */
const SCRIPTS: Array<[RegExp, string, Language]> = [
  [/[\p{sc=Hiragana}\p{sc=Katakana}]/gu, 'Kana', 'ja'],
  [/\p{sc=Hangul}/gu, 'Hangul', 'ko'],
  [/\p{sc=Han}/gu, 'Han', 'zh'],
  [/\p{sc=Thai}/gu, 'Thai', 'th'],
  [/\p{sc=Lao}/gu, 'Lao', 'lo'],
  [/\p{sc=Khmer}/gu, 'Khmer', 'km'],
  [/\p{sc=Myanmar}/gu, 'Myanmar', 'my'],
  [/\p{sc=Greek}/gu, 'Greek', 'el'],
  [/\p{sc=Hebrew}/gu, 'Hebrew', 'he'],
  [/\p{sc=Armenian}/gu, 'Armenian', 'hy'],
  [/\p{sc=Georgian}/gu, 'Georgian', 'ka'],
  [/\p{sc=Devanagari}/gu, 'Devanagari', 'hi'],
  [/\p{sc=Bengali}/gu, 'Bengali', 'bn'],
  [/\p{sc=Tamil}/gu, 'Tamil', 'ta'],
  [/\p{sc=Arabic}/gu, 'Arabic', 'ar'],
  [/\p{sc=Cyrillic}/gu, 'Cyrillic', 'ru'],
];

/** The script of each language not written in Latin letters (a language not listed is Latin). */
const LANGUAGE_SCRIPT: Record<Language, string> = {
  ja: 'Kana', ko: 'Hangul', zh: 'Han', th: 'Thai', lo: 'Lao', km: 'Khmer', my: 'Myanmar', el: 'Greek', he: 'Hebrew',
  yi: 'Hebrew', hy: 'Armenian', ka: 'Georgian', hi: 'Devanagari', ne: 'Devanagari', mr: 'Devanagari', bn: 'Bengali',
  ta: 'Tamil', ar: 'Arabic', fa: 'Arabic', ur: 'Arabic', ru: 'Cyrillic', uk: 'Cyrillic', bg: 'Cyrillic', be: 'Cyrillic',
  kk: 'Cyrillic', mk: 'Cyrillic',
};
const scriptOf = (language: Language) => LANGUAGE_SCRIPT[language] ?? 'Latin';

const toLanguage = (code: string): Language => ISO_639_1[code] ?? code;

/** The script most of the text's letters are in ('Latin' for Latin and for text without letters). */
function dominantScript(text: string): { script: string; language: Language | null } {
  const letters = (text.match(/\p{L}/gu) ?? []).length;
  const kana = (text.match(SCRIPTS[0]![0]) ?? []).length;
  for (const [re, script, language] of SCRIPTS) {
    const n = (text.match(re) ?? []).length;
    // Japanese mixes kanji with kana: a Han text with a tenth of its letters in kana is Japanese.
    if (script === 'Kana' && n > 0 && n * 10 >= letters) return { script, language };
    if (script === 'Han' && kana > 0) continue;
    if (n > 0 && n * 2 >= letters) return { script, language };
  }
  return { script: 'Latin', language: null };
}

/** Characters of a document's text that detection reads: three samples, from its start, middle and end. */
const SAMPLE_CHARS = 1500;

/** The language of a document's text, or null when it has too few letters to tell. */
export function detectLanguage(text: string): Language | null {
  const sample =
    text.length <= SAMPLE_CHARS * 3
      ? text
      : [0, Math.floor(text.length / 2), text.length - SAMPLE_CHARS].map((at) => text.slice(at, at + SAMPLE_CHARS)).join('\n');
  const scores = francAll(sample, { minLength: 20, only: KNOWN });
  const [best, top] = scores[0]!;
  if (best === 'und') return dominantScript(sample).language;
  // Names and numbers make franc waver between a script's main language and its neighbours (an NFL
  // paragraph scored Catalan 1, English 0.9994; a Russian sentence Bulgarian): the script's main
  // language, the most common in documents, wins a near tie.
  const main = dominantScript(sample).language ?? 'en';
  // A short text's trigrams say little ("New employees get 25 days of paid leave per year." scored
  // French first): its function words choose among franc's first guesses and the main language.
  if (sample.length < SHORT_TEXT_CHARS) return byFunctionWords(sample, [main, ...scores.slice(0, 3).map(([code]) => toLanguage(code))]);
  const mainScore = scores.find(([code]) => toLanguage(code) === main)?.[1] ?? 0;
  return mainScore >= top - MAIN_LANGUAGE_TIE ? main : toLanguage(best);
}

/** Below this many characters a text's language is read from its function words. */
const SHORT_TEXT_CHARS = 300;

/** How many of the text's words are function words of a language, per language asked. */
function functionWordUses(text: string): (language: Language) => number {
  const words = wordSegments(text).map((w) => text.slice(w.start, w.end).toLowerCase());
  return (l) => words.filter((w) => stopwordsFor(l).has(w)).length;
}

/** The candidate whose function words the text uses most; the first on a tie. */
function byFunctionWords(text: string, candidates: readonly Language[]): Language {
  const uses = functionWordUses(text);
  let best = candidates[0]!;
  let most = uses(best);
  for (const l of candidates.slice(1)) {
    const n = uses(l);
    if (n > most) [best, most] = [l, n];
  }
  return best;
}

/** How close to franc's best score the script's main language must be to be chosen instead. */
const MAIN_LANGUAGE_TIE = 0.02;

/** Reads a list of texts (a document's chunks) as one sample: its first two, middle and last two. */
export function detectLanguageOf(texts: readonly string[]): Language | null {
  if (texts.length <= 3) return detectLanguage(texts.join('\n'));
  const at = (i: number) => texts[Math.min(texts.length - 1, Math.max(0, i))]!.slice(0, SAMPLE_CHARS);
  return detectLanguage([at(0), at(1), at(Math.floor(texts.length / 2)), at(texts.length - 2), at(texts.length - 1)].join('\n'));
}

// eslint-disable-next-line no-control-regex
const NON_ASCII_LETTER = /(?![\x00-\x7f])\p{L}/u;
const CHUNK_SAMPLE_CHARS = 800;
/**
 * franc's score (1 for its best guess) below which a chunk is taken to be in another language than
 * its document: German and Spanish paragraphs give English 0.86-0.95, English ones give it 1.
 */
const OTHER_LANGUAGE_SCORE = 0.98;

/**
 * The language of one chunk of a document in `documentLanguage`: the document's, unless the chunk is
 * clearly in another (a section in another script; for an English document, one whose text franc
 * scores far from English; for another, one whose function words are another's: sameScriptSection).
 * An English document's text without a non-ASCII letter is left to the document, which keeps this
 * free for English.
 */
export function chunkLanguage(text: string, documentLanguage: Language | null): Language | null {
  const other = documentLanguage !== null && documentLanguage !== 'en';
  if (!other && !NON_ASCII_LETTER.test(text)) return documentLanguage;
  const sample = text.slice(0, CHUNK_SAMPLE_CHARS);
  const { script, language } = dominantScript(sample);
  if (documentLanguage && script !== scriptOf(documentLanguage) && !(script === 'Han' && documentLanguage === 'ja')) return language ?? documentLanguage;
  if (other) return sameScriptSection(sample, documentLanguage);
  // franc costs ~2 ms a chunk: for English documents (or of none known) it reads only the chunks
  // with a non-ASCII letter, which are few.
  const scores = francAll(sample, { minLength: 80, only: KNOWN });
  const [best] = scores[0] ?? ['und', 0];
  if (best === 'und') return documentLanguage ?? language;
  if (!documentLanguage) return toLanguage(best);
  const own = scores.find(([code]) => toLanguage(code) === documentLanguage)?.[1] ?? 0;
  return own >= OTHER_LANGUAGE_SCORE ? documentLanguage : toLanguage(best);
}

/**
 * A chunk of a document in a language other than English, written in the document's script: in
 * franc's best guess when its function words say so too, by at least SECTION_FUNCTION_WORDS more
 * than the document's language's ("the", "of", "and" in an English abstract of a German thesis);
 * franc alone on a few hundred characters would call some German paragraphs Dutch.
 */
function sameScriptSection(sample: string, documentLanguage: Language): Language {
  const [best] = francAll(sample, { minLength: 80, only: KNOWN })[0] ?? ['und', 0];
  const guess = toLanguage(best);
  if (best === 'und' || guess === documentLanguage || scriptOf(guess) !== scriptOf(documentLanguage)) return documentLanguage;
  const uses = functionWordUses(sample);
  return uses(guess) >= 2 * uses(documentLanguage) + SECTION_FUNCTION_WORDS ? guess : documentLanguage;
}

/** Function words a chunk needs beyond twice its document language's to be read in another language. */
const SECTION_FUNCTION_WORDS = 5;

/** The share of a KB's documents a language needs before its questions are told apart from the main language's. */
const MIN_LANGUAGE_SHARE = 0.1;

/**
 * The language of a question asked of a KB whose documents are in `known` (most documents first):
 * among the KB's languages written in the question's script, the one whose function words the
 * question uses most ("wer", "der" against "who", "the"), the KB's main one on a tie; with none,
 * the script's main language, else English. Trigrams (franc) cannot tell a question of a few words:
 * it scored "How do I reset my password?" Portuguese 1, English 0.45.
 */
export function questionLanguage(question: string, known: ReadonlyArray<{ language: Language; documents: number }>): Language {
  const { script, language } = dominantScript(question);
  const total = known.reduce((n, k) => n + k.documents, 0);
  // A language of a few documents in a KB of many does not take questions from the main one.
  const candidates = known
    .filter((k, i) => i === 0 || k.documents >= total * MIN_LANGUAGE_SHARE)
    .map((k) => k.language)
    .filter((l) => scriptOf(l) === script || (script === 'Han' && l === 'ja' && !known.some((k) => k.language === 'zh')));
  if (candidates.length === 0) return language ?? 'en';
  if (candidates.length === 1) return candidates[0]!;
  return byFunctionWords(question, candidates);
}

/** Characters of an answer's passages that detection reads. */
const PASSAGES_SAMPLE_CHARS = 1000;

/**
 * The language an answer reads its question and passages in. In the question's script: the first
 * (best-ranked) passage's language (English unless clearly another: chunkLanguage), unless the
 * question's function words are English ones ("What is LayoutParser?" over a passage franc calls
 * Portuguese); in another script, the script's main language. A KB of several languages
 * retrieves passages of several for one question; the first is the likeliest in the question's own.
 */
export function answerLanguage(question: string, passages: readonly string[]): Language | null {
  const first = passages[0]?.slice(0, PASSAGES_SAMPLE_CHARS) ?? '';
  const { script, language } = dominantScript(question);
  const passage = first ? chunkLanguage(first, 'en') : null;
  if (!passage || !(scriptOf(passage) === script || (script === 'Han' && passage === 'ja'))) return language ?? 'en';
  if (passage === 'en' || script !== 'Latin') return passage;
  return byFunctionWords(question, [passage, 'en']);
}

/** Languages written without spaces between words, whose word boundaries come from a dictionary (ICU's). */
const UNSPACED = new Set<Language>(['zh', 'ja', 'th', 'lo', 'km', 'my']);
export const writtenWithoutSpaces = (language: Language | null) => language !== null && UNSPACED.has(language);

/**
 * PostgreSQL's text search configuration for a language (built into every PostgreSQL 15 and
 * PGlite: Snowball stemmers and stop words); 'simple' (lower-case words as they are) for the rest,
 * among them the languages without inflection to stem (Chinese, Japanese, Thai, ...).
 */
const SEARCH_CONFIGS: Record<Language, string> = {
  ar: 'arabic', hy: 'armenian', eu: 'basque', ca: 'catalan', da: 'danish', nl: 'dutch', en: 'english',
  et: 'estonian', fi: 'finnish', fr: 'french', de: 'german', el: 'greek', hi: 'hindi', hu: 'hungarian',
  id: 'indonesian', ga: 'irish', it: 'italian', lt: 'lithuanian', ne: 'nepali', no: 'norwegian', pt: 'portuguese',
  ro: 'romanian', ru: 'russian', sr: 'serbian', es: 'spanish', sv: 'swedish', ta: 'tamil', tr: 'turkish', yi: 'yiddish',
};

/** A text with no language known is searched as English, as every document was before languages were detected. */
export function searchConfig(language: Language | null): string {
  return language === null ? 'english' : (SEARCH_CONFIGS[language] ?? 'simple');
}
