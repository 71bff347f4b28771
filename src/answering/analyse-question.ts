/**
 * Makes a question's analysis (question.ts): nothing is computed until a stage reads it, and each
 * part is computed once.
 */
import type { Language } from '../text/language';
import { findPeriods, questionPeriods, type PeriodMention, type QuestionPeriods } from '../text/periods';
import { questionContent, tokenize, type Token } from '../text/tokens';
import { detectQuestionType } from './offline/answerer';
import { askingPart } from './offline/support';
import type { QuestionAnalysis, QuestionType } from './question';

export function analyseQuestion(text: string): QuestionAnalysis {
  return new Analysis(text);
}

class Analysis implements QuestionAnalysis {
  #asking: QuestionAnalysis | undefined;
  #type: QuestionType | undefined;
  #periods: QuestionPeriods | undefined;
  #mentions: PeriodMention[] | undefined;
  // English is read with or without its code (tokenize): one entry for both.
  readonly #tokens = new Map<Language | null, readonly Token[]>();
  readonly #content = new Map<Language | null, readonly Token[]>();

  constructor(readonly text: string) {}

  get asking(): QuestionAnalysis {
    if (!this.#asking) {
      const asking = askingPart(this.text);
      this.#asking = asking === this.text ? this : new Analysis(asking);
    }
    return this.#asking;
  }

  get type(): QuestionType {
    return (this.#type ??= detectQuestionType(this.text));
  }

  get periods(): QuestionPeriods {
    return (this.#periods ??= questionPeriods(this.text));
  }

  get mentions(): readonly PeriodMention[] {
    return (this.#mentions ??= findPeriods(this.text));
  }

  tokens(language: Language | null): readonly Token[] {
    const key = language === 'en' ? null : language;
    let tokens = this.#tokens.get(key);
    if (!tokens) this.#tokens.set(key, (tokens = tokenize(this.text, key)));
    return tokens;
  }

  content(language: Language | null): readonly Token[] {
    const key = language === 'en' ? null : language;
    let content = this.#content.get(key);
    if (!content) this.#content.set(key, (content = questionContent(this.tokens(key))));
    return content;
  }
}
