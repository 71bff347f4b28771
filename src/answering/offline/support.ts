/**
 * Whether retrieved passages hold what a question asks about, judged before the extractive
 * answerer picks sentences: it can only match words, so a passage sharing one word with an
 * off-topic question ("days" in "How many days of leave do new employees get?") would otherwise
 * be quoted as the answer.
 *
 * Support of a passage = the share of the question's content (IDF-weighted over the passages'
 * sentences, so a word no passage has weighs most) found in the passage or its source line
 * (title, headings), plus twice its cosine similarity to the question, plus its BM25 score as a
 * share of the question's ceiling (the score of a chunk holding every question word, where a word
 * the whole KB lacks counts at full IDF: retrieve.ts `lexicalCeiling`). The three disagree on
 * off-topic questions: the passage words that match are the KB's common ones ("new", "days"),
 * the rare words that say what the question is about ("leave", "maternity", "fertiliser") are
 * missing or absent from the KB, and the passage means something else. The question is covered
 * when the best passage reaches MIN_SUPPORT.
 *
 * The weights and thresholds are calibrated with the offline embeddings (calibration.ts); another
 * embedding model's cosines are on another scale, so the gate is only for the offline answerer (an
 * LLM judges relevance itself).
 */
import { sourceDocument } from '../../ai/prompts';
import { findPeriods, withoutPeriods } from '../../text/periods';
import { answerLanguage, type Language } from '../../text/language';
import { MONTHS, WEEKDAYS, questionContent, readingIn, splitSentences, tokenize, withWrittenTerms } from '../../text/tokens';
import type { QuestionAnalysis } from '../question';
import { DENSE_WEIGHT, MIN_NAMED_DOCUMENT_COVERAGE, MIN_SUPPORT, WORDS_ONLY_LEXICAL_WEIGHT, WORDS_ONLY_MIN_SUPPORT } from '../calibration';

/**
 * The offline embedding is an English model: other languages' text has no meaning to it, and its
 * cosines there are noise, inflated in German and Spanish (English word pieces make all of a
 * language's text look alike) and deflated in Chinese. Passages read in another language are judged
 * on their words alone: coverage (0-1) plus WORDS_ONLY_LEXICAL_WEIGHT times the BM25 share, covered
 * from WORDS_ONLY_MIN_SUPPORT. The BM25 share weighs most because it is the one part that knows the
 * whole KB: its ceiling counts a question word the KB lacks at full IDF, which is what an off-topic
 * question has, while coverage only compares the retrieved passages with each other.
 */
type SupportScale = { denseWeight: number; lexicalWeight: number; minSupport: number };

/** How support is weighed for passages read in a language: with the cosine in English, on words alone in the others. */
export function supportScale(language: Language | null): SupportScale {
  return language === null || language === 'en'
    ? { denseWeight: DENSE_WEIGHT, lexicalWeight: 1, minSupport: MIN_SUPPORT }
    : { denseWeight: 0, lexicalWeight: WORDS_ONLY_LEXICAL_WEIGHT, minSupport: WORDS_ONLY_MIN_SUPPORT };
}

/** Letters two words share at their start, or a word has inside a compound, to count as one word's. */
const RELATED_WORD_LETTERS = 5;

/**
 * Two words of one language that a stemmer leaves apart but that say the same thing: one is a part
 * of the other (a compound and its last or first word: "Kundendienst", "Dienst"), or they share
 * their first RELATED_WORD_LETTERS letters and all but the shorter's last three ("verkauften",
 * "verkaufen"; "organisiert", "organisieren"). Words of letters in scripts written without
 * spaces are few letters long and never related this way.
 */
export function relatedWords(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (short.length < RELATED_WORD_LETTERS) return false;
  if (long.startsWith(short) || long.endsWith(short)) return true;
  let shared = 0;
  while (shared < short.length && short[shared] === long[shared]) shared++;
  return shared >= RELATED_WORD_LETTERS && shared >= short.length - 3;
}

export type SupportPassage = {
  text: string;
  source?: string;
  /** Cosine similarity to the question. */
  dense?: number;
  /** BM25 score (retrieve.ts), read against the question's lexical ceiling. */
  lexical?: number;
};

type SupportParts = { terms: number; passages: Array<{ coverage: number; support: number }> };

/** `language`: the one the passages are read in (readingPassages). */
function supportParts(question: QuestionAnalysis, language: Language | null, passages: SupportPassage[], lexicalCeiling: number, scale: SupportScale): SupportParts {
  const qTokens = question.content(language);
  const qTerms = [...new Set(qTokens.map((t) => t.stem))];
  if (qTerms.length === 0) return { terms: 0, passages: passages.map(() => ({ coverage: 0, support: 0 })) };
  const sentenceStems: Array<Set<string>> = [];
  const passageStems = passages.map((p) => {
    const all = new Set<string>();
    const words: string[] = [];
    for (const s of splitSentences(p.text)) {
      const tokens = tokenize(s.text);
      const stems = withWrittenTerms(new Set(tokens.map((t) => t.stem)), s.text, qTerms);
      sentenceStems.push(stems);
      for (const x of stems) all.add(x);
      for (const t of tokens) if (!t.stop) words.push(t.lower);
    }
    const source = (p.source ?? '').replace(/\.(?:pdf|docx?|md|txt|html?)\b/gi, ' ').replace(/\bpage \d+\b/gi, ' ');
    for (const t of tokenize(source)) if (!t.stop) all.add(t.stem);
    // A stemmer leaves derived forms and compounds apart: a question word a passage word is related to is held.
    for (const t of qTokens) if (!all.has(t.stem) && words.some((w) => relatedWords(t.lower, w))) all.add(t.stem);
    return all;
  });
  const n = Math.max(1, sentenceStems.length);
  const weight = qTerms.map((term) => {
    let df = 0;
    for (const s of sentenceStems) if (s.has(term)) df++;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  });
  const total = weight.reduce((a, b) => a + b, 0);
  return {
    terms: qTerms.length,
    passages: passages.map((p, i) => {
      const coverage = qTerms.reduce((a, t, k) => a + (passageStems[i]!.has(t) ? weight[k]! : 0), 0) / total;
      const lexicalShare = lexicalCeiling > 0 ? Math.max(0, p.lexical ?? 0) / lexicalCeiling : 0;
      return { coverage, support: coverage + scale.denseWeight * Math.max(0, p.dense ?? 0) + scale.lexicalWeight * lexicalShare };
    }),
  };
}

/** The language the question and the passages are read in (their stems and stop words), as the answerer reads them. */
function readingPassages<T>(question: QuestionAnalysis, passages: SupportPassage[], fn: (language: Language | null) => T): T {
  const language = answerLanguage(question.text, passages.map((p) => p.text));
  return readingIn(language, () => fn(language));
}

export function passageSupport(question: QuestionAnalysis, passages: SupportPassage[], lexicalCeiling = 0): number[] {
  return readingPassages(question, passages, (language) => supportParts(question, language, passages, lexicalCeiling, supportScale(language)).passages.map((p) => p.support));
}

export interface SupportVerdict {
  covered: boolean;
  /** The best passage's support (compare with minSupport). */
  bestSupport: number;
  /** The support that covers: MIN_SUPPORT, or WORDS_ONLY_MIN_SUPPORT for passages in another language than English. */
  minSupport: number;
  /** Some passage holds every content word of the question (two or more). */
  fullCoverage: boolean;
  /** The document the question names (its source line's document part), if any passage's does. */
  namedDocument: string | null;
  /** What that document's passages hold of the rest of the question (namedDocumentCoverage). */
  namedCoverage: number;
}

/**
 * Covered when the best passage reaches MIN_SUPPORT, or when one passage holds every word the
 * question asks about (two or more): "How much leave do I get?" over a handbook's "New employees
 * get 25 days of paid leave per year" (support 1.71: the offline embedding's cosine of a short
 * question is low). No question of the benchmarks that the threshold refuses has such a
 * passage, off-topic or answerable, so this answers small KBs without letting off-topic through.
 */
export function supportVerdict(question: QuestionAnalysis, passages: SupportPassage[], lexicalCeiling = 0): SupportVerdict {
  return readingPassages(question, passages, (language) => verdictOf(question, language, passages, lexicalCeiling, supportScale(language)));
}

function verdictOf(question: QuestionAnalysis, language: Language | null, passages: SupportPassage[], lexicalCeiling: number, scale: ReturnType<typeof supportScale>): SupportVerdict {
  const asking = question.asking;
  const { terms, passages: parts } = supportParts(asking, language, passages, lexicalCeiling, scale);
  const fullCoverage = terms >= 2 && parts.some((p) => p.coverage >= 1 - 1e-9);
  const bestSupport = Math.max(0, ...parts.map((p) => p.support));
  const named = namedDocumentCoverage(asking.text, passages);
  return {
    covered: fullCoverage || bestSupport >= scale.minSupport || named.coverage >= MIN_NAMED_DOCUMENT_COVERAGE,
    bestSupport,
    minSupport: scale.minSupport,
    fullCoverage,
    namedDocument: named.document,
    namedCoverage: Number(named.coverage.toFixed(4)),
  };
}

/**
 * What a request of several sentences asks, without the sentences that say how to answer it:
 * "What is the FY2018 capital expenditure for Acme? Answer in USD millions, relying on the cash flow
 * statement." asks the first sentence; "Answer the following question using the balance sheet: what
 * is the net PPNE for Acme?" asks what follows the colon, and "Basing your judgment on the income
 * statement, what is Acme's gross margin?" what follows the comma. A request with no question mark,
 * or one sentence, is asked whole.
 */
const WH = '(?:what|which|who|whom|whose|when|where|why|how|is|are|was|were|does|do|did|has|have|had|can|could|will|would|should|in|for|at|by|from|as|among|according|based)';
const ASKS = new RegExp(`^${WH}\\b`, 'i');
const ASKS_AFTER_COLON = new RegExp(`:\\s*(${WH}\\b[^:]*)$`, 'i');
/** After a leading phrase and its comma ("Using the balance sheet, what is…"), what a question word opens is asked. */
const ASKS_AFTER_COMMA = /^[^?]*?,\s*((?:what|which|who|whom|whose|when|where|why|how)\b.*)$/i;

export function askingPart(question: string): string {
  const sentences = question.split(/(?<=[?.!])\s+(?=\p{Lu})/u).map((s) => s.trim()).filter(Boolean);
  const asking = sentences.filter((s) => s.endsWith('?'));
  if (sentences.length < 2 || asking.length === 0) return question;
  const parts = asking.map((s) => ASKS_AFTER_COLON.exec(s)?.[1] ?? (ASKS.test(s) ? s : (ASKS_AFTER_COMMA.exec(s)?.[1] ?? s)));
  // A full stop inside a name ("Robert J. Shiller", "the U.S. economy") is no sentence end: a part
  // that does not open as a question is a fragment, and the request is asked whole.
  return parts.every((p) => ASKS.test(p)) ? parts.join(' ') : question;
}

/**
 * Share of the question's words, beyond a name it gives for a document, that the passages of that
 * document hold. A question naming what a document is about (its subject in the source line's
 * title or identity: "Acme" of "Acme Corp · Form 10-K · fiscal year ended December 31, 2018") is
 * asked of that document, whose passages need only hold the rest of it: an analyst's "capital
 * expenditure amount for Acme in FY2018" over Acme's cash flow passages, which never repeat the
 * name. A question whose rest the document's passages do not hold ("For Acme, when does the
 * modified lease expire?" over passages without a lease) is still not covered. Names are a
 * question's capitalised or alphanumeric words past its first, periods and months aside, matched
 * in the source line's document part (its file name, title and identity), not in its heading.
 */
export function namedDocumentCoverage(question: string, passages: SupportPassage[]): { coverage: number; document: string | null } {
  const withoutDates = withoutPeriods(question, findPeriods(question, { lenient: true }));
  const tokens = questionContent(tokenize(withoutDates));
  const isName = (t: (typeof tokens)[number], i: number) =>
    (i > 0 || /\d/.test(t.raw)) && /\p{Lu}/u.test(t.raw) && !MONTHS.has(t.lower) && !WEEKDAYS.has(t.lower);
  const allTokens = tokenize(withoutDates);
  const names = new Set(tokens.filter((t) => isName(t, allTokens.findIndex((a) => a.start === t.start))).map((t) => t.stem));
  const none = { coverage: 0, document: null };
  if (names.size === 0) return none;
  const terms = [...new Set(tokens.map((t) => t.stem))];
  // IDF over the passages' sentences, as for the support above: a word no passage has weighs most.
  const sentenceStems = passages.flatMap((p) => splitSentences(p.text).map((s) => new Set(tokenize(s.text).map((t) => t.stem))));
  const n = Math.max(1, sentenceStems.length);
  const weight = new Map(terms.map((term) => [term, Math.log(1 + (n - sentenceStems.filter((s) => s.has(term)).length + 0.5) / (sentenceStems.filter((s) => s.has(term)).length + 0.5))]));
  const documents = new Map<string, { about: Set<string>; stems: Set<string> }>();
  for (const p of passages) {
    const about = sourceDocument((p.source ?? '').replace(/\s+/g, ' ').trim()).replace(/\.(?:pdf|docx?|md|txt|html?)\b/gi, ' ');
    const doc = documents.get(about) ?? { about: new Set(tokenize(about).filter((t) => !t.stop).map((t) => t.stem)), stems: new Set<string>() };
    for (const t of tokenize(p.text)) doc.stems.add(t.stem);
    documents.set(about, doc);
  }
  let best = none as { coverage: number; document: string | null };
  for (const [about, doc] of documents) {
    if (![...names].some((s) => doc.about.has(s))) continue;
    const rest = terms.filter((t) => !doc.about.has(t));
    const total = rest.reduce((a, t) => a + weight.get(t)!, 0);
    const coverage = total === 0 ? 1 : rest.reduce((a, t) => a + (doc.stems.has(t) ? weight.get(t)! : 0), 0) / total;
    if (coverage > best.coverage) best = { coverage, document: about };
  }
  return best;
}

export function passagesCoverQuestion(question: QuestionAnalysis, passages: SupportPassage[], lexicalCeiling = 0): boolean {
  return supportVerdict(question, passages, lexicalCeiling).covered;
}
