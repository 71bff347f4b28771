/**
 * The one place that decides which language models Groundwork talks to.
 *
 * With OpenAI settings it uses @ai-sdk/openai's chat-completions models, the
 * most widely implemented wire protocol, so any OpenAI-compatible server
 * (Ollama, vLLM, LiteLLM, Azure proxies...) works by setting `baseURL`.
 * Without them it uses the in-process offline model, so the service runs
 * with no key and no network. Callers use the returned models with
 * `generateText`/`streamText` and the prompts of `./prompts.ts` either way.
 * Embedding models are chosen in `./embeddings/`.
 */
import { createOpenAI } from '@ai-sdk/openai';
import type { LanguageModelV2 } from '@ai-sdk/provider';
import { createOfflineModel } from '../answering/offline';

export const DEFAULT_OPENAI_CHAT_MODEL = 'gpt-4o-mini';

export interface OpenAIModelSettings {
  apiKey: string;
  /** e.g. "http://localhost:11434/v1" for Ollama; defaults to api.openai.com. */
  baseURL?: string;
  /** Answer model id; defaults to gpt-4o-mini. */
  model?: string;
  /** Model for rewriting follow-ups into standalone queries; defaults to `model`. */
  condenseModel?: string;
  /** For tests: a fetch to route requests through. */
  fetch?: typeof globalThis.fetch;
}

export interface ModelRegistryConfig {
  openai?: OpenAIModelSettings;
}

export interface ModelRegistry {
  answerModel: LanguageModelV2;
  condenseModel: LanguageModelV2;
  /** Grades eval answers against the expected text (./judge.ts); none offline. */
  judgeModel?: LanguageModelV2;
  mode: 'openai' | 'offline';
}

export function createModelRegistry(config: ModelRegistryConfig = {}): ModelRegistry {
  const settings = config.openai;
  if (settings && settings.apiKey.trim() !== '') {
    const openai = createOpenAI({ apiKey: settings.apiKey, baseURL: settings.baseURL, fetch: settings.fetch });
    const model = settings.model ?? DEFAULT_OPENAI_CHAT_MODEL;
    return {
      answerModel: openai.chat(model),
      condenseModel: openai.chat(settings.condenseModel ?? model),
      judgeModel: openai.chat(model),
      mode: 'openai',
    };
  }
  return {
    answerModel: createOfflineModel({ modelId: 'groundwork-offline-answer' }),
    condenseModel: createOfflineModel({ modelId: 'groundwork-offline-condense' }),
    mode: 'offline',
  };
}
