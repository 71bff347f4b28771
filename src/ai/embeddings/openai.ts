/**
 * OpenAI (or any OpenAI-compatible server) embeddings through the Vercel AI SDK.
 *
 * Guarantees: requests carry at most `batchSize` inputs (256 by default: well under
 * OpenAI's 2,048-input and ~300k-token request limits for ~300-token chunks, and small
 * enough that one failed request retries cheaply); at most `maxParallelCalls` are in
 * flight; vectors come back in input order, as Float32Arrays, L2-normalised (OpenAI's
 * already are; compatible servers such as Ollama may not be).
 */
import { createOpenAI } from '@ai-sdk/openai';
import { embed, embedMany } from 'ai';
import { l2normalize } from './static-encoder';
import type { EmbeddingProvider, EmbeddingVector } from './types';

export const DEFAULT_OPENAI_EMBEDDING_MODEL = 'text-embedding-3-small';

const KNOWN_DIMENSIONS: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

export interface OpenAIEmbeddingOptions {
  apiKey: string;
  /** e.g. "http://localhost:11434/v1"; defaults to api.openai.com. */
  baseURL?: string;
  model?: string;
  /**
   * Output dimensions. For text-embedding-3-* a smaller value is requested from the API
   * (Matryoshka shortening); for other models it must match what the model returns.
   */
  dimensions?: number;
  /** Inputs per request. */
  batchSize?: number;
  maxParallelCalls?: number;
  maxRetries?: number;
  /** For tests: route requests through this fetch. */
  fetch?: typeof globalThis.fetch;
}

export function createOpenAIEmbeddingProvider(opts: OpenAIEmbeddingOptions): EmbeddingProvider {
  const modelName = opts.model ?? DEFAULT_OPENAI_EMBEDDING_MODEL;
  const dimensions = opts.dimensions ?? KNOWN_DIMENSIONS[modelName];
  if (!dimensions) {
    throw new Error(`unknown dimensions for embedding model "${modelName}": pass \`dimensions\``);
  }
  const batchSize = opts.batchSize ?? 256;
  const openai = createOpenAI({ apiKey: opts.apiKey, baseURL: opts.baseURL, fetch: opts.fetch });
  const model = openai.textEmbeddingModel(modelName);
  // Only text-embedding-3 understands `dimensions`; sending it to ada-002 or to a
  // compatible server's model is an error there, so ask only when it shortens a v3 vector.
  const shorten = modelName.startsWith('text-embedding-3') && dimensions !== KNOWN_DIMENSIONS[modelName];
  const providerOptions = shorten ? { openai: { dimensions } } : undefined;
  const maxRetries = opts.maxRetries ?? 2;

  const toVector = (values: number[]): EmbeddingVector => {
    if (values.length !== dimensions) {
      throw new Error(`embedding model "${modelName}" returned ${values.length} dimensions, expected ${dimensions}`);
    }
    return l2normalize(Float32Array.from(values));
  };

  return {
    id: `openai:${modelName}@${dimensions}`,
    dimensions,
    async embedDocuments(texts: string[]): Promise<EmbeddingVector[]> {
      if (texts.length === 0) return [];
      // The SDK would split by the model's own limit (2,048); pre-split to our batch size
      // and let one embedMany call fan the batches out with bounded parallelism.
      const batches: string[][] = [];
      const inputs = texts.map(nonEmpty);
      for (let i = 0; i < inputs.length; i += batchSize) batches.push(inputs.slice(i, i + batchSize));
      const results = await runLimited(batches, opts.maxParallelCalls ?? 4, (values) =>
        embedMany({ model, values, maxRetries, providerOptions, maxParallelCalls: 1 }),
      );
      return results.flatMap((r) => r.embeddings.map(toVector));
    },
    async embedQuery(text: string): Promise<EmbeddingVector> {
      const { embedding } = await embed({ model, value: nonEmpty(text), maxRetries, providerOptions });
      return toVector(embedding);
    },
  };
}

/** The API rejects empty inputs; a lone space embeds as "nothing" instead of failing a batch. */
function nonEmpty(text: string): string {
  return text.trim() === '' ? ' ' : text;
}

/** Maps `items` through `fn` with at most `limit` calls in flight, preserving order. */
async function runLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  });
  await Promise.all(workers);
  return results;
}
