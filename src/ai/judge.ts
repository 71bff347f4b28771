/**
 * The eval judge: a language model grades an answer against the expected answer, for test cases
 * whose expected text a literal "contains" check would miss (a paraphrase, a unit written out).
 * Only with an OpenAI(-compatible) model: the offline answerer quotes passages and has nothing to
 * judge with. Its verdict is the first word of the reply, PASS or FAIL; anything else is an error,
 * never a guess.
 */
import { generateText } from 'ai';
import type { LanguageModelV2 } from '@ai-sdk/provider';

export const JUDGE_TASK_MARKER = 'Task: grade-answer';

const SYSTEM = [
  JUDGE_TASK_MARKER,
  'You grade an assistant\'s answer against the expected answer to a question.',
  'Reply PASS when the answer states what the expected answer states (wording, number format and units may differ), FAIL otherwise.',
  'The first word of your reply is PASS or FAIL; then one short sentence saying why.',
].join('\n');

export type JudgeVerdict = { verdict: 'pass' | 'fail'; note: string };

export function parseJudgeReply(text: string): JudgeVerdict | null {
  const match = /^\W*(PASS|FAIL)\b[\s.:,-]*(.*)$/is.exec(text.trim());
  if (!match) return null;
  return { verdict: match[1]!.toLowerCase() as 'pass' | 'fail', note: match[2]!.trim().slice(0, 500) };
}

/** Throws when the model fails or replies with neither verdict; the caller records that as the judge's error. */
export async function judgeAnswer(
  model: LanguageModelV2,
  input: { question: string; expected: string; answer: string; signal?: AbortSignal },
): Promise<JudgeVerdict> {
  const { text } = await generateText({
    model,
    system: SYSTEM,
    messages: [{ role: 'user', content: `Question: ${input.question}\nExpected answer: ${input.expected}\nAnswer: ${input.answer}` }],
    temperature: 0,
    maxRetries: 1,
    abortSignal: input.signal,
  });
  const verdict = parseJudgeReply(text);
  if (!verdict) throw new Error(`the judge replied neither PASS nor FAIL: ${text.slice(0, 120)}`);
  return verdict;
}
