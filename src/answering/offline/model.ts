/**
 * The offline language model: an AI SDK `LanguageModelV2` that runs in
 * process, so `generateText`/`streamText` work unchanged without an API key.
 *
 * It reads its task from the prompt, which the RAG code builds with
 * `src/ai/prompts.ts` exactly as for an online model:
 * - a condense prompt (system starts with `Task: condense-query`) -> the
 *   standalone query from `condenseQueryOffline`;
 * - an answer prompt (passages block in the system message) -> the
 *   extractive answer from `answerFromPassages`;
 * - anything else -> the refusal sentence, since this model can only answer
 *   from passages.
 *
 * Streaming emits the answer word by word; the whole answer is computed
 * before the first delta (it takes about a millisecond), so time to first
 * token is the compute time.
 */
import type {
  LanguageModelV2,
  LanguageModelV2CallOptions,
  LanguageModelV2CallWarning,
  LanguageModelV2Prompt,
  LanguageModelV2StreamPart,
  LanguageModelV2Usage,
} from '@ai-sdk/provider';
import { NOT_FOUND_ANSWER, parseAnswerPrompt, parseCondensePrompt, type PlainMessage } from '../../ai/prompts';
import { answerFromPassages, type AnswerOptions } from './answerer';
import { analyseQuestion } from '../analyse-question';
import { condenseQueryOffline } from './condense-query';

export interface OfflineModelOptions {
  modelId?: string;
  answer?: AnswerOptions;
}

/** The provider name of the offline model, for code that must know it is not an LLM. */
export const OFFLINE_PROVIDER = 'groundwork.offline';

export type OfflineTask = 'answer' | 'condense' | 'unknown';

function toPlain(prompt: LanguageModelV2Prompt): PlainMessage[] {
  return prompt.map((m) => {
    if (m.role === 'system') return { role: 'system', text: m.content };
    const text = m.content
      .map((part) => (part.type === 'text' || part.type === 'reasoning' ? part.text : ''))
      .filter(Boolean)
      .join('\n');
    return { role: m.role, text };
  });
}

/** Rough token count (~4 characters per token, as for English with BPE tokenizers). */
function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Answer text split into stream chunks: each word with the whitespace that follows it. */
export function wordChunks(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? [];
}

export class OfflineLanguageModel implements LanguageModelV2 {
  readonly specificationVersion = 'v2' as const;
  readonly provider = OFFLINE_PROVIDER;
  readonly modelId: string;
  readonly supportedUrls: Record<string, RegExp[]> = {};
  private readonly answerOptions: AnswerOptions;

  constructor(options: OfflineModelOptions = {}) {
    this.modelId = options.modelId ?? 'groundwork-offline-extractive';
    this.answerOptions = options.answer ?? {};
  }

  /** Run the task the prompt describes; exposed for diagnostics and benchmarks. */
  run(prompt: LanguageModelV2Prompt): { task: OfflineTask; text: string; inputText: string } {
    const plain = toPlain(prompt);
    const inputText = plain.map((m) => m.text).join('\n');
    const condense = parseCondensePrompt(plain);
    if (condense) return { task: 'condense', text: condenseQueryOffline(condense.history, condense.followUp), inputText };
    const answer = parseAnswerPrompt(plain);
    if (answer) {
      // The latest answer only: "what else" asks past what was just said.
      const previousAnswers = answer.history.filter((t) => t.role === 'assistant').slice(-1).map((t) => t.content);
      return { task: 'answer', text: answerFromPassages(analyseQuestion(answer.question), answer.passages, { previousAnswers, ...this.answerOptions }).text, inputText };
    }
    return { task: 'unknown', text: NOT_FOUND_ANSWER, inputText };
  }

  private prepare(options: LanguageModelV2CallOptions) {
    const warnings: LanguageModelV2CallWarning[] = [];
    if (options.tools && options.tools.length > 0) {
      warnings.push({ type: 'other', message: 'The offline model does not call tools; tools were ignored.' });
    }
    if (options.responseFormat?.type === 'json') {
      warnings.push({ type: 'unsupported-setting', setting: 'responseFormat', details: 'The offline model only produces text.' });
    }
    const { text, inputText } = this.run(options.prompt);
    let chunks = wordChunks(text);
    let finishReason: 'stop' | 'length' = 'stop';
    if (options.maxOutputTokens !== undefined && chunks.length > options.maxOutputTokens) {
      chunks = chunks.slice(0, Math.max(0, options.maxOutputTokens));
      finishReason = 'length';
    }
    const usage: LanguageModelV2Usage = {
      inputTokens: estimateTokens(inputText),
      outputTokens: chunks.length,
      totalTokens: estimateTokens(inputText) + chunks.length,
    };
    return { chunks, text: chunks.join(''), finishReason, usage, warnings };
  }

  async doGenerate(options: LanguageModelV2CallOptions) {
    options.abortSignal?.throwIfAborted();
    const { text, finishReason, usage, warnings } = this.prepare(options);
    return {
      content: text.length > 0 ? [{ type: 'text' as const, text }] : [],
      finishReason,
      usage,
      warnings,
      response: { id: `offline-${crypto.randomUUID()}`, timestamp: new Date(), modelId: this.modelId },
    };
  }

  async doStream(options: LanguageModelV2CallOptions) {
    options.abortSignal?.throwIfAborted();
    const { chunks, finishReason, usage, warnings } = this.prepare(options);
    const signal = options.abortSignal;
    const modelId = this.modelId;
    const id = 'txt-0';
    let i = 0;
    let phase: 'start' | 'text' | 'done' = 'start';
    const stream = new ReadableStream<LanguageModelV2StreamPart>({
      // Pull-driven: a slow consumer gets words as it asks for them, and an abort stops mid-answer.
      pull(controller) {
        if (signal?.aborted) {
          controller.error(signal.reason);
          return;
        }
        if (phase === 'start') {
          controller.enqueue({ type: 'stream-start', warnings });
          controller.enqueue({ type: 'response-metadata', id: `offline-${crypto.randomUUID()}`, timestamp: new Date(), modelId });
          if (chunks.length > 0) controller.enqueue({ type: 'text-start', id });
          phase = 'text';
        }
        if (i < chunks.length) {
          controller.enqueue({ type: 'text-delta', id, delta: chunks[i++]! });
          return;
        }
        if (chunks.length > 0) controller.enqueue({ type: 'text-end', id });
        controller.enqueue({ type: 'finish', finishReason, usage });
        phase = 'done';
        controller.close();
      },
    });
    return { stream };
  }
}

export function createOfflineModel(options: OfflineModelOptions = {}): LanguageModelV2 {
  return new OfflineLanguageModel(options);
}
