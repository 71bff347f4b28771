/**
 * Extractive question answering over retrieved passages, for running without
 * an LLM. It picks the one to three passage sentences that best answer the
 * question and returns them as prose with inline citation markers, or the
 * exact refusal sentence when no sentence matches the question well enough.
 *
 * Guarantees: deterministic; every sentence of the answer is copied verbatim
 * (apart from a dropped leading connective) from the passage whose marker
 * follows it, so it never says anything the passages don't; runs in
 * well under a millisecond per passage.
 *
 * Scoring, per sentence: IDF-weighted overlap of stemmed question terms
 * (IDF over all passage sentences, so terms every passage shares count for
 * little), partial credit for terms in the neighbouring sentences and the
 * rest of the passage (pronouns often carry the subject over), bonuses for
 * question-term bigrams and proximity, a bonus when the sentence contains
 * the kind of thing the question asks for (a year for "when", a number for
 * "how many", a new capitalised name for "who"...), and a small prior for
 * passages ranked first by retrieval.
 */
import { notFoundAnswer, type AnswerPassage } from '../../ai/prompts';
import { answerLanguage } from '../../text/language';
import { alreadySaidPenalty } from './already-said';
import { documentPeriodFit } from './document-period';
import { findPeriods, type Period } from '../../text/periods';
import type { QuestionAnalysis, QuestionType } from '../question';
import { figureAdjustment, holdsFigure, pickFigureSentence } from './figures';
import { MONTHS, WEEKDAYS, STOPWORDS, isFieldOrRow, isNumberWord, readingIn, splitSentences, tokenize, withWrittenTerms, type Token } from '../../text/tokens';
import { relatedWords } from './support';
import { ANAPHORIC_CARRY, ANSWER_DEFAULTS, HEADING_PENALTY, LIST_ANSWER, PREVIOUS_CARRY } from '../calibration';

export type { QuestionType };

export interface AnswerOptions {
  /** Minimum share of the question's IDF mass a sentence must cover; below it the answer is a refusal. */
  minCoverage?: number;
  /** A further sentence is added only if it scores at least this fraction of the best one. */
  secondSentenceRatio?: number;
  maxSentences?: number;
  /** Soft cap on answer length in words (the best sentence is always kept). */
  maxWords?: number;
  /** Added to the score of sentences from the document of the first passage. */
  leadDocumentBonus?: number;
  /** The conversation's earlier answers: a "what else" follow-up is not answered by repeating them. */
  previousAnswers?: readonly string[];
}

export interface ScoredSentence {
  passageIndex: number;
  marker: number;
  sentenceIndex: number;
  text: string;
  score: number;
  coverage: number;
  /** Share of the question's IDF mass found anywhere in the sentence's passage. */
  passageCoverage: number;
  /** Matches a question term beyond the topic shared by most passages. */
  focusHit: boolean;
  /** Contains the kind of thing the question asks for (a year for "when"...). */
  typeHit: boolean;
  /** From a passage whose document lacks a period or name the question gives (and another has it). */
  offTarget: boolean;
  /** Names periods, none of them one the question asks about ("In FY 2019, …" for a question about FY 2021). */
  otherPeriod: boolean;
}

export interface OfflineAnswer {
  text: string;
  /** Markers cited in `text`, in order. Empty for a refusal. */
  markers: number[];
  refused: boolean;
  questionType: QuestionType;
  /** Best-first, for diagnostics and tests. */
  ranked: ScoredSentence[];
}

const DEFAULTS: Required<Omit<AnswerOptions, 'previousAnswers'>> = ANSWER_DEFAULTS;

/** "List/summarise all...", "what types of...", "X and what was Y": an answer of several sentences, from several passages. */
const LIST_CUES =
  /\b(?:list|summari[sz]e|summary|overview|outline|describe|all (?:the|of)|each|every|what (?:types|kinds|sorts)|which (?:\w+ )?(?:verticals|industries|products|customers|companies|countries|markets|areas|factors|risks))\b/i;
const MULTI_PART = /\band\s+(?:what|how|why|when|where|which|who)\b|\?.+\?/i;
export function wantsSeveralSentences(question: string): boolean {
  return LIST_CUES.test(question) || MULTI_PART.test(question);
}

/**
 * What the question names that a passage's document must be about: numbers and periods ("Q2",
 * "2022", "FY23") and proper names not at the start of the question ("Globex").
 */
function specifiers(tokens: Token[]): string[] {
  const out = new Set<string>();
  tokens.forEach((t, i) => {
    if (t.stop) return;
    if (/\d/.test(t.lower) || (i > 0 && /^\p{Lu}/u.test(t.raw) && !MONTHS.has(t.lower))) out.add(t.stem);
  });
  return [...out];
}

/** The content words of a passage's source line (file name, title, heading), minus its format and page number. */
function sourceStems(source: string | undefined): Set<string> {
  const cleaned = (source ?? '').replace(/\.(?:pdf|docx?|md|txt|html?)\b/gi, ' ').replace(/\bpage \d+\b/gi, ' ');
  return new Set(tokenize(cleaned).filter((t) => !t.stop).map((t) => t.stem));
}

/**
 * What kind of answer the question wants, judged from its first wh-phrase
 * ("What type of cascade results when..." asks for a type, not a date).
 */
export function detectQuestionType(question: string): QuestionType {
  const q = question.toLowerCase().replace(/\s+/g, ' ');
  const m = /\b(what|which|who|whom|whose|when|where|why|how)\b(?:\s+([a-z]+))?(?:\s+([a-z]+))?/.exec(q);
  if (!m) return 'other';
  const [, wh, w1 = '', w2 = ''] = m;
  switch (wh) {
    case 'why':
      return 'reason';
    case 'when':
      return 'date';
    case 'where':
      return 'place';
    case 'who':
    case 'whom':
    case 'whose':
      return 'person';
    case 'how':
      if (w1 === 'long') return w2 === 'ago' ? 'date' : 'duration';
      if (/^(?:many|much|old|far|big|large|tall|high|deep|wide|heavy|fast|often|few|small|expensive)$/.test(w1)) return 'number';
      return 'other';
    default: {
      // what/which + head noun ("what year", "in which city", "what percentage").
      const head = w1 === 'is' || w1 === 'was' || w1 === 'the' ? w2 : w1;
      if (/^(?:year|years|date|century|decade|day|month|era|period)$/.test(head)) return 'date';
      if (/^(?:percentage|percent|number|amount|proportion|fraction|share|population|size|cost|price|speed|distance|temperature)$/.test(head))
        return 'number';
      if (/^(?:country|countries|city|cities|state|place|region|location|continent|town|area|island|river|county|province|street|building|venue)$/.test(head))
        return 'place';
      if (/^(?:person|people|company|organi[sz]ation|team|group|man|woman|president|king|queen|author|scientist|architect|player|band|emperor)$/.test(head))
        return 'person';
      if (head === 'reason' || head === 'caused') return 'reason';
      return 'other';
    }
  }
}

const TIME_UNITS = /^(?:second|minute|hour|day|week|month|year|decade|centur|millenni|night|weekend|season)/;
const REASON_CUES = /\b(?:because|due to|since|as a result|in order to|so that|led to|caused|owing to|thanks to|result of|reason)\b/i;
const PLACE_PREPS = new Set(['in', 'at', 'from', 'near', 'to', 'into', 'across', 'throughout', 'outside', 'inside', 'of']);
const CONNECTIVES =
  /^(?:however|moreover|furthermore|additionally|in addition|also|thus|therefore|hence|consequently|meanwhile|nevertheless|nonetheless|instead|indeed|likewise|similarly|besides|still|but|and|so|then)\s*,?\s+/i;

// A sentence that opens with a pronoun or demonstrative continues its predecessor's subject ("The
// Harbour Tribunal was set up in 1998. It has eleven members."): it carries ANAPHORIC_CARRY of the
// previous sentence's question words, any other sentence PREVIOUS_CARRY.
const ANAPHORIC_START = /^(?:this|these|that|those|it|its|he|his|she|her|they|their|such)$/;

interface SentenceInfo {
  passageIndex: number;
  sentenceIndex: number;
  text: string;
  tokens: readonly Token[];
  stems: Set<string>;
}

/** Whether the sentence holds something of the asked-for kind that the question doesn't already mention. */
function hasAnswerCandidate(type: QuestionType, s: SentenceInfo, qLower: Set<string>): boolean {
  const toks = s.tokens;
  switch (type) {
    case 'date':
      return toks.some(
        (t, i) =>
          !qLower.has(t.lower) &&
          ((/^\d{3,4}(?:-\d{2,4})?s?$/.test(t.lower) && Number(t.lower.slice(0, 4).replace(/\D/g, '')) >= 100) ||
            (MONTHS.has(t.lower) && /^\p{Lu}/u.test(t.raw) && (t.lower !== 'may' || i > 0)) ||
            /^(?:century|centuries|decade|bc|bce|ad|ce)$/.test(t.lower) ||
            /^\d{1,2}(?:st|nd|rd|th)$/.test(t.lower)),
      );
    case 'duration':
      return toks.some(
        (t, i) =>
          isNumberWord(t.lower) &&
          !qLower.has(t.lower) &&
          (TIME_UNITS.test(toks[i + 1]?.lower ?? '') || TIME_UNITS.test(t.lower.replace(/^[\d.,]+-/, ''))),
      );
    case 'number':
      return toks.some((t) => !qLower.has(t.lower) && isNumberWord(t.lower) && t.lower !== 'once');
    case 'person':
    case 'place': {
      for (let i = 0; i < toks.length; i++) {
        const t = toks[i]!;
        if (!/^\p{Lu}/u.test(t.raw) || t.stop || qLower.has(t.lower) || MONTHS.has(t.lower)) continue;
        // The first word of a sentence is capitalised anyway.
        if (i === 0 && STOPWORDS.has(t.lower)) continue;
        // Sentence-initial: only a name if the next word continues it ("Claire Moreau founded...").
        if (type === 'person') return i > 0 || (/^\p{Lu}/u.test(toks[1]?.raw ?? '') && !qLower.has(toks[1]!.lower));
        if (i > 0 && PLACE_PREPS.has(toks[i - 1]!.lower)) return true;
      }
      return false;
    }
    case 'reason':
      return REASON_CUES.test(s.text);
    default:
      return false;
  }
}

/** A heading's most words: a line longer than this is prose, whatever its case. */
const MAX_HEADING_WORDS = 14;

/**
 * Whether a sentence is a heading or a title ("THE HARBOUR AUTHORITY STRATEGIC PLAN 2020-2024",
 * "Annual Performance Report"): a short line without a sentence end, written in capitals or with every
 * word capitalised. It names what follows; it does not answer. A label with its value ("Location:
 * Springfield") is not one. Scripts without case have no such headings to tell.
 */
export function isHeadingLike(text: string): boolean {
  const line = text.trim();
  if (/[\p{Sentence_Terminal}:：]["'’”)\]」』）]*$/u.test(line) || line.includes(':')) return false;
  // A number other than a year or a section number makes it a table row ("Total Current Assets 12,345").
  if (/(?<![\p{L}\p{N}.])(?!(?:19|20)\d{2}(?![\p{N},.]))\d[\d,.]*%?(?![\p{L}.]*\d)/u.test(line.replace(/^[\d.]+\s/, ''))) return false;
  const words = line.split(/\s+/).filter((w) => /\p{L}/u.test(w));
  if (words.length === 0 || words.length > MAX_HEADING_WORDS) return false;
  const cased = line.match(/[\p{Lu}\p{Ll}]/gu) ?? [];
  if (cased.length === 0) return false;
  const upper = cased.filter((c) => /\p{Lu}/u.test(c)).length;
  if (upper / cased.length >= 0.6) return true;
  const content = words.filter((w) => !STOPWORDS.has(w.toLowerCase()) && /^\p{L}/u.test(w));
  return content.length >= 2 && content.every((w) => /^\p{Lu}/u.test(w));
}

/**
 * Whether a sentence is about other periods than the question's: it names periods, and none is one
 * the question names (a year, or a quarter of it). Such a sentence answers for another year: "In FY
 * 2019 the agency had 5,497 employees" does not say how many it had in FY 2021.
 */
export function aboutOtherPeriods(asked: readonly Period[], sentence: string): boolean {
  if (asked.length === 0 || findPeriods(sentence).length === 0) return false;
  const same = (a: Period, b: Period) => (a.year === null || b.year === null || a.year === b.year) && (a.quarter === null || b.quarter === null || a.quarter === b.quarter);
  // A bare year counts too: a table's column "2024" is the year asked, though nothing cues it as one.
  return !findPeriods(sentence, { lenient: true }).some((n) => asked.some((q) => same(q, n)));
}

/** Smallest window of token positions that contains one occurrence of each matched term. */
function minSpan(positions: number[][]): number {
  const events: Array<[number, number]> = [];
  positions.forEach((ps, term) => ps.forEach((p) => events.push([p, term])));
  events.sort((a, b) => a[0] - b[0]);
  const need = positions.length;
  const count = new Array<number>(need).fill(0);
  let have = 0;
  let best = Infinity;
  let left = 0;
  for (let right = 0; right < events.length; right++) {
    const term = events[right]![1];
    if (count[term]!++ === 0) have++;
    while (have === need) {
      best = Math.min(best, events[right]![0] - events[left]![0] + 1);
      const lt = events[left]![1];
      if (--count[lt]! === 0) have--;
      left++;
    }
  }
  return best;
}

function splitLongSentence(text: string): string[] {
  // PDF extractions sometimes yield run-ons with no full stops; semicolons are the next best boundary.
  if (text.split(/\s+/).length <= 60) return [text];
  return text
    .split(/(?<=;)\s+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** A line of a table's values alone ("n/a 3,323 8,865 10,000 Not Met ↗"): numbers, and the marks tables put beside them. */
const VALUES_LINE = /^(?:[\s\d.,%$€£¥()+\-–—−≥≤<>~↗↘↔→←↑↓*|]|n\/a|not\s+met|met|tbd)+$/i;
const isValuesLine = (text: string) => VALUES_LINE.test(text) && (text.match(/\d[\d,.]*/g) ?? []).length >= 2;
/** A row label: a short line of words without a sentence end, the line before a values line. */
const isRowLabel = (text: string) =>
  !/[\p{Sentence_Terminal}:：]["'’”)\]]*$/u.test(text) && !isValuesLine(text) && (text.match(/\p{L}{2,}/gu) ?? []).length >= 2 && text.split(/\s+/).length <= 30;

/**
 * A PDF table often prints a row's label on one line and its values on the next: each alone says
 * nothing (a label without its figures, or figures without what they count). The values line is
 * read with its label, as one unit.
 */
function withRowLabels(units: string[]): string[] {
  const out: string[] = [];
  for (const u of units) {
    const prev = out[out.length - 1];
    if (prev !== undefined && isValuesLine(u) && isRowLabel(prev)) out[out.length - 1] = `${prev} ${u}`;
    else out.push(u);
  }
  return out;
}

function decorate(sentence: string, marker: number, first: boolean): string {
  // List bullets and heading marks are layout, not prose.
  let s = sentence
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^(?:[-*•]|\d+[.)]|#{1,6})\s+/, '');
  if (s === '') return '';
  if (first) {
    const stripped = s.replace(CONNECTIVES, '');
    if (stripped.length > 0) s = stripped;
  }
  s = s[0]!.toUpperCase() + s.slice(1);
  const m = /(\p{Sentence_Terminal})(["'’”)\]」』）]*)$/u.exec(s);
  if (m) {
    if (m[2]) return `${s} [${marker}]`;
    return `${s.slice(0, -1)} [${marker}]${m[1]}`;
  }
  // A script without case (Thai) ends a sentence without a full stop; a Latin one gets one.
  if (/\p{Lo}\p{M}*$/u.test(s)) return `${s} [${marker}]`;
  return `${s.replace(/[,;:]$/, '')} [${marker}].`;
}

/** The answer, read in the language of the question and its best passage (stems, stop words, the refusal sentence). */
export function answerFromPassages(request: QuestionAnalysis, passages: AnswerPassage[], options: AnswerOptions = {}): OfflineAnswer {
  const language = answerLanguage(request.text, passages.map((p) => p.text));
  return readingIn(language, () => answerIn(language, request, passages, options));
}

function answerIn(language: string | null, request: QuestionAnalysis, passages: AnswerPassage[], options: AnswerOptions): OfflineAnswer {
  // A request of several sentences is answered for the sentence that asks; the others say how to answer.
  const asked = request.asking;
  const question = asked.text;
  const opts = { ...DEFAULTS, ...(wantsSeveralSentences(question) ? LIST_ANSWER : {}), ...options };
  const questionType = asked.type;
  const refusal = (ranked: ScoredSentence[]): OfflineAnswer => ({
    text: notFoundAnswer(language),
    markers: [],
    refused: true,
    questionType,
    ranked,
  });

  const qTokens = asked.tokens(language);
  const askedPeriods = asked.mentions;
  const qLower = new Set(qTokens.map((t) => t.lower));
  const qContent = asked.content(language);
  const qTerms = [...new Set(qContent.map((t) => t.stem))];
  if (qTerms.length === 0 || passages.length === 0) return refusal([]);

  // Sentences of every passage.
  const relatedForms = language !== null && language !== 'en';
  const sentences: SentenceInfo[] = [];
  const byPassage: SentenceInfo[][] = passages.map((p, passageIndex) => {
    const list: SentenceInfo[] = [];
    for (const text of withRowLabels(splitSentences(p.text).flatMap((sent) => splitLongSentence(sent.text)))) {
      const tokens = tokenize(text);
      if (tokens.length === 0) continue;
      const stems = withWrittenTerms(new Set(tokens.map((t) => t.stem)), text, qTerms);
      // Outside English, whose stemmer and synonyms join derived forms, a question word a sentence
      // word is related to (a compound, a derived form: support.ts relatedWords) is in the sentence,
      // as the refusal gate counts it, so a passage the gate lets through is not refused here.
      if (relatedForms) for (const q of qContent) if (!stems.has(q.stem) && tokens.some((t) => !t.stop && relatedWords(q.lower, t.lower))) stems.add(q.stem);
      const info = { passageIndex, sentenceIndex: list.length, text, tokens, stems };
      list.push(info);
      sentences.push(info);
    }
    return list;
  });
  if (sentences.length === 0) return refusal([]);

  // IDF over sentences; a term found nowhere keeps the maximum weight, so it lowers coverage.
  const n = sentences.length;
  const weight = new Map<string, number>();
  for (const term of qTerms) {
    let df = 0;
    for (const s of sentences) if (s.stems.has(term)) df++;
    weight.set(term, Math.log(1 + (n - df + 0.5) / (df + 0.5)));
  }
  const total = qTerms.reduce((acc, t) => acc + weight.get(t)!, 0);
  const passageStems = byPassage.map((list) => {
    const set = new Set<string>();
    for (const s of list) for (const st of s.stems) set.add(st);
    return set;
  });
  const avgLen = sentences.reduce((a, s) => a + s.tokens.length, 0) / n;
  // The source line says what document a passage is from ("Q2 2022 Acme Earnings Call"): what the
  // question names there is covered by every sentence of the passage.
  const sources = passages.map((p) => sourceStems(p.source));
  const passageCoverage = passageStems.map(
    (set, i) => qTerms.reduce((a, t) => a + (set.has(t) || sources[i]!.has(t) ? weight.get(t)! : 0), 0) / total,
  );
  // A passage whose document is of another period than the one the question names, where another
  // passage's document is of that period, is another report: its sentences are not the answer
  // (document-period.ts; "FY2022" is in no passage, "fiscal year 2022" in the source line of some).
  const periodFit = documentPeriodFit(asked, passages.map((p) => p.source));
  const knownFits = periodFit.filter((f): f is number => f !== null);
  const bestPeriodFit = Math.max(0, ...knownFits);
  // Likewise a passage whose document (or text) lacks a number, period or name the question gives,
  // where another passage's has it, is about another company or period; the question's periods
  // count as words here only when the documents' periods do not tell the passages apart.
  const periodsTell = knownFits.some((f) => f < bestPeriodFit);
  const periodTokens = new Set(periodsTell ? askedPeriods.flatMap((m) => qTokens.filter((t) => t.start >= m.start && t.end <= m.end)) : []);
  const specs = specifiers(qTokens.filter((t) => !periodTokens.has(t)));
  // Counted over the passage's document, not the passage: a report's cause page names neither the
  // place nor the date its cover does, and is the same report.
  const documentOf = passages.map((p, i) => p.document ?? `#${i}`);
  const unionByDocument = (sets: ReadonlyArray<Set<string>>) =>
    new Map([...groupBy(documentOf.map((d, i) => [d, sets[i]!] as const))].map(([d, list]) => [d, new Set(list.flatMap((set) => [...set]))]));
  const stemsOfDocument = unionByDocument(passageStems.map((set, i) => new Set([...set, ...sources[i]!])));
  const specHits = documentOf.map((d) => specs.filter((t) => stemsOfDocument.get(d)!.has(t)).length);
  // A name or number the question gives that some passages' documents hold and others lack picks
  // the document, not the sentence: in the document it picks, it counts for every sentence, as the
  // source line's words do. Within one document (or where every document holds it) it still picks
  // the sentence.
  const selectors = new Set(specs.filter((t) => documentOf.some((d) => !stemsOfDocument.get(d)!.has(t))));
  const selectedBy = (i: number, term: string) => selectors.has(term) && stemsOfDocument.get(documentOf[i]!)!.has(term);
  // Names are compared among the passages of the period asked: a name only another year's report
  // happens to repeat does not make the report of the year asked off target. A passage whose
  // document names no period is of no other period either.
  const onPeriod = (i: number) => (periodFit[i] ?? bestPeriodFit) >= bestPeriodFit;
  const bestSpecHits = Math.max(0, ...specHits.filter((_, i) => onPeriod(i)));
  const offTargetOf = (i: number) => !onPeriod(i) || specHits[i]! < bestSpecHits;

  // Topic terms are shared by most passages (the product or person everything is about); the
  // focus terms are what the question asks about them. A sentence that matches only the topic
  // ("What is the price of the Zephyr-9?" vs "The Zephyr-9 is a drone...") does not answer it.
  // With too few passages to tell, the names (and ids) of the question are its topic and the other
  // words its focus: "Where was the Piper PA-28 going?" is not answered by a sentence that only names it.
  const named = new Set(qContent.filter((t) => /^\p{Lu}/u.test(t.raw) || /\d/.test(t.raw)).map((t) => t.stem));
  const unnamed = qTerms.filter((t) => !named.has(t));
  // Names inside the question (not its first word, a month or a weekday): "Globex" in "What impact has Globex had on Acme?".
  const entities = new Set(
    qTokens
      .filter((t, i) => i > 0 && !t.stop && /^\p{Lu}/u.test(t.raw) && !/\d/.test(t.raw) && !MONTHS.has(t.lower) && !WEEKDAYS.has(t.lower))
      .map((t) => t.stem),
  );
  // Shared by most documents, not passages: three passages of the one call about Globex do not
  // make "Globex" the topic of "What impact has Globex had on Acme?"; nor does a name
  // the question gives that some document lacks (the topic is what they all share).
  const documentStems = [...unionByDocument(passageStems).values()];
  const focus = new Set(
    documentStems.length >= 3
      ? qTerms.filter((t) => {
          const share = documentStems.filter((set) => set.has(t)).length / documentStems.length;
          return share < 0.6 || (entities.has(t) && share < 1);
        })
      : unnamed.length > 0 && unnamed.length < qTerms.length
        ? unnamed
        : qTerms,
  );

  const leadDocument = passages[0]!.document;
  const repeated = alreadySaidPenalty(question, opts.previousAnswers ?? []);
  const figure = figureAdjustment(question);
  const ranked: ScoredSentence[] = sentences.map((s) => {
    const list = byPassage[s.passageIndex]!;
    const prev = list[s.sentenceIndex - 1];
    const next = list[s.sentenceIndex + 1];
    let direct = 0;
    let context = 0;
    let carried = 0;
    let focusHit = focus.size === 0;
    // A field or table row stands alone: it says nothing of its neighbours' or its title's subject.
    const alone = isFieldOrRow(s.text);
    const carry = ANAPHORIC_START.test(s.tokens[0]!.lower) ? ANAPHORIC_CARRY : PREVIOUS_CARRY;
    const matchedPositions: number[][] = [];
    for (const term of qTerms) {
      const w = weight.get(term)!;
      if (s.stems.has(term)) {
        direct += w;
        if (focus.has(term)) focusHit = true;
        const ps: number[] = [];
        s.tokens.forEach((t, i) => {
          if (t.stem === term) ps.push(i);
        });
        // A term held only through a related word has no position of its own.
        if (ps.length > 0) matchedPositions.push(ps);
      } else if (prev?.stems.has(term) && !alone) {
        context += carry * w;
        carried += carry * w;
        if (focus.has(term)) focusHit = true;
      } else if (sources[s.passageIndex]!.has(term) || selectedBy(s.passageIndex, term)) {
        context += 0.5 * w;
        carried += w;
        if (focus.has(term) && !alone) focusHit = true;
      } else if (next?.stems.has(term)) context += 0.15 * w;
      else if (passageStems[s.passageIndex]!.has(term)) context += 0.12 * w;
    }

    // Question-term pairs that stay close together in the sentence.
    let bigram = 0;
    for (let i = 0; i + 1 < qContent.length; i++) {
      const a = qContent[i]!.stem;
      const b = qContent[i + 1]!.stem;
      if (a === b || !s.stems.has(a) || !s.stems.has(b)) continue;
      let close = false;
      for (let x = 0; x < s.tokens.length && !close; x++) {
        if (s.tokens[x]!.stem !== a) continue;
        for (let y = Math.max(0, x - 3); y <= Math.min(s.tokens.length - 1, x + 3); y++) {
          if (y !== x && s.tokens[y]!.stem === b) close = true;
        }
      }
      if (close) bigram += 0.5 * Math.min(weight.get(a)!, weight.get(b)!);
    }

    let proximity = 0;
    if (matchedPositions.length >= 2) {
      const span = minSpan(matchedPositions);
      proximity = 0.25 * direct * Math.min(1, matchedPositions.length / span);
    }

    // Terms beyond the question's own are where the answer lives; an echo of the question answers nothing.
    const novel = s.tokens.filter((t) => !t.stop && !qLower.has(t.lower) && !weight.has(t.stem)).length;
    const typeHit = questionType !== 'other' && hasAnswerCandidate(questionType, s, qLower);
    const typeBonus = typeHit ? 0.15 : 0;
    const lengthPenalty = s.tokens.length > avgLen * 1.5 ? 0.04 * Math.min(2, s.tokens.length / avgLen - 1.5) : 0;
    const rankPrior = passages.length > 1 ? 0.03 * (1 - s.passageIndex / (passages.length - 1)) : 0.03;
    const lead = leadDocument !== undefined && passages[s.passageIndex]!.document === leadDocument ? opts.leadDocumentBonus : 0;
    const offTarget = offTargetOf(s.passageIndex);
    const otherPeriod = aboutOtherPeriods(askedPeriods, s.text);
    const score =
      (direct + context + bigram + proximity) / total +
      typeBonus +
      rankPrior +
      lead -
      (offTarget || otherPeriod ? 0.3 : 0) -
      lengthPenalty -
      (novel === 0 ? 0.2 : 0) -
      (isHeadingLike(s.text) ? HEADING_PENALTY : 0) -
      (focusHit ? 0 : 0.25) -
      repeated(s.text) +
      figure(s.text);
    return {
      passageIndex: s.passageIndex,
      marker: passages[s.passageIndex]!.marker,
      sentenceIndex: s.sentenceIndex,
      text: s.text,
      score,
      // What the sentence itself (or its antecedent) says about the question's terms.
      coverage: (direct + carried) / total,
      passageCoverage: passageCoverage[s.passageIndex]!,
      focusHit,
      typeHit,
      offTarget,
      otherPeriod,
    };
  });
  ranked.sort((a, b) => b.score - a.score || a.passageIndex - b.passageIndex || a.sentenceIndex - b.sentenceIndex);

  // The best sentence that says something about the question's focus, not merely its topic.
  // A figure question is answered by a sentence or table row with a number for its measure, when one qualifies.
  const best =
    pickFigureSentence(question, ranked, (r) => r.focusHit && !r.offTarget && !r.otherPeriod && r.coverage >= opts.minCoverage) ??
    ranked.find((r) => r.focusHit && !r.otherPeriod) ??
    ranked[0]!;
  const bestHoldsFigure = best.text !== '' && holdsFigure(best.text);
  // Only sentences about other periods than the one asked: the passages do not hold the answer.
  if (best.coverage < opts.minCoverage || !best.focusHit || best.otherPeriod) return refusal(ranked);

  const flat = (x: ScoredSentence) => x.text.replace(/\s+/g, ' ').trim();
  const chosen: ScoredSentence[] = [best];
  let words = best.text.split(/\s+/).length;
  const stemsOf = (x: ScoredSentence) => byPassage[x.passageIndex]![x.sentenceIndex]!.stems;
  for (const cand of ranked) {
    if (cand === best) continue;
    if (chosen.length >= opts.maxSentences) break;
    if (cand.score < best.score * opts.secondSentenceRatio || cand.coverage < opts.minCoverage) break;
    if (!cand.focusHit || cand.offTarget || cand.otherPeriod || (best.typeHit && !cand.typeHit)) continue;
    // Next to a quoted figure, a sentence without one is boilerplate (a certification naming the period).
    if (figure(cand.text) < 0 && bestHoldsFigure) continue;
    const w = cand.text.split(/\s+/).length;
    if (words + w > opts.maxWords) continue;
    // A row label alone says nothing its row does not: the row is quoted, in the label's place.
    if (chosen.some((c) => flat(c).includes(flat(cand)))) continue;
    const inside = chosen.findIndex((c) => flat(cand).includes(flat(c)));
    if (inside >= 0) {
      words += w - chosen[inside]!.text.split(/\s+/).length;
      chosen[inside] = cand;
      continue;
    }
    const cs = stemsOf(cand);
    const redundant = chosen.some((c) => {
      const other = stemsOf(c);
      let inter = 0;
      for (const x of cs) if (other.has(x)) inter++;
      return inter / (cs.size + other.size - inter) > 0.6;
    });
    if (redundant) continue;
    chosen.push(cand);
    words += w;
  }

  // Best sentence first; a companion from the same passage that precedes it keeps document order.
  const groupRank = new Map<number, number>();
  chosen.forEach((c, i) => {
    if (!groupRank.has(c.passageIndex)) groupRank.set(c.passageIndex, i);
  });
  chosen.sort(
    (a, b) => groupRank.get(a.passageIndex)! - groupRank.get(b.passageIndex)! || a.sentenceIndex - b.sentenceIndex,
  );
  const text = chosen.map((c, i) => decorate(c.text, c.marker, i === 0)).join(' ');
  const markers = [...new Set(chosen.map((c) => c.marker))];
  return { text, markers, refused: false, questionType, ranked };
}

function groupBy<K, V>(entries: ReadonlyArray<readonly [K, V]>): Map<K, V[]> {
  const out = new Map<K, V[]>();
  for (const [k, v] of entries) out.set(k, [...(out.get(k) ?? []), v]);
  return out;
}
