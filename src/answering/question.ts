/**
 * One question as answering reads it, analysed once and passed down: retrieval's title boost and
 * figure-page order, the offline refusal gate and the offline answerer all read this instead of
 * reading the text again (analyse-question.ts makes one). Each part is computed when first read.
 * Words depend on the language they are read in (an answer reads its question in its passages'
 * language: text/language.ts answerLanguage), so they are kept per language, each read once.
 */
import type { Language } from '../text/language';
import type { PeriodMention, QuestionPeriods } from '../text/periods';
import type { Token } from '../text/tokens';

/** What kind of answer a question wants (offline/answerer.ts detectQuestionType). */
export type QuestionType = 'date' | 'duration' | 'number' | 'person' | 'place' | 'reason' | 'other';

export interface QuestionAnalysis {
  readonly text: string;
  /**
   * The sentences that ask, without those that say how to answer (offline/support.ts askingPart):
   * this analysis itself when the whole text asks.
   */
  readonly asking: QuestionAnalysis;
  /** What kind of answer the text wants (detectQuestionType). */
  readonly type: QuestionType;
  /** The periods the text names outright and relative to the latest report (text/periods.ts questionPeriods). */
  readonly periods: QuestionPeriods;
  /** Every period the text names (text/periods.ts findPeriods, not lenient). */
  readonly mentions: readonly PeriodMention[];
  /** The text's words read in `language` (text/tokens.ts tokenize; English for null). */
  tokens(language: Language | null): readonly Token[];
  /** The words that say what it asks about (text/tokens.ts questionContent), read in `language`. */
  content(language: Language | null): readonly Token[];
}
