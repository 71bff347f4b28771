/**
 * Turn a chat follow-up into a standalone retrieval query with whichever
 * condense model the registry chose (the same prompt online and offline).
 *
 * Guarantees: no model call when there is no history (the question is
 * already standalone); the result is never empty (falls back to the
 * follow-up); wrapping quotes and "Standalone question:" prefixes that chat
 * models like to add are removed.
 */
import { generateText } from 'ai';
import type { LanguageModelV2 } from '@ai-sdk/provider';
import { buildCondensePrompt, type ChatTurn } from './prompts';

export interface CondenseQuestionInput {
  model: LanguageModelV2;
  history: ChatTurn[];
  followUp: string;
  /** Only the latest turns matter for resolving references; defaults to 6 (3 exchanges). */
  maxTurns?: number;
  abortSignal?: AbortSignal;
}

export function cleanCondensedQuery(text: string): string {
  let q = text.trim().split('\n').find((line) => line.trim() !== '') ?? '';
  q = q.replace(/^(?:standalone (?:question|query)|rewritten question|question|query)\s*:\s*/i, '').trim();
  q = q.replace(/^["'“‘`]+|["'”’`]+$/g, '').trim();
  return q;
}

export async function condenseQuestion({ model, history, followUp, maxTurns = 6, abortSignal }: CondenseQuestionInput): Promise<string> {
  const recent = history.slice(-maxTurns);
  if (recent.length === 0) return followUp.trim();
  const { system, messages } = buildCondensePrompt(recent, followUp);
  const { text } = await generateText({ model, system, messages, temperature: 0, maxOutputTokens: 200, abortSignal });
  return cleanCondensedQuery(text) || followUp.trim();
}
