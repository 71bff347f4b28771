/**
 * "What else has Tallow & Reed printed?" asks for something the conversation has not said yet: the
 * sentence the previous answer already quoted is not an answer to it. Only such follow-ups ("else",
 * "other", "another", "more") are affected; a question asked again gets the same answer.
 */
import { stripCitationMarkers } from '../../ai/prompts';
import { ALREADY_SAID_PENALTY } from '../calibration';

const WANTS_NEW = /\b(?:else|other|others|another|more|besides)\b/i;

const flat = (text: string) => stripCitationMarkers(text).replace(/\s+/g, ' ').trim().toLowerCase();

/** Score to subtract from a candidate sentence: ALREADY_SAID_PENALTY when it repeats a previous answer and the question wants something new. */
export function alreadySaidPenalty(question: string, previousAnswers: readonly string[]): (sentence: string) => number {
  if (previousAnswers.length === 0 || !WANTS_NEW.test(question)) return () => 0;
  const said = previousAnswers.map(flat);
  return (sentence) => {
    const s = flat(sentence);
    return s.length >= 20 && said.some((a) => a.includes(s)) ? ALREADY_SAID_PENALTY : 0;
  };
}
