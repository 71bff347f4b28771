/**
 * Embedding providers: the offline default (distilled USE-lite, 512-d) and OpenAI or any
 * OpenAI-compatible server. All return L2-normalised Float32Array vectors; vectors are
 * comparable only under the same provider id.
 */
export type { EmbeddingProvider, EmbeddingVector } from './types';
export { createLocalEmbeddingProvider, loadLocalEncoder, LOCAL_EMBEDDING_DIMENSIONS, LOCAL_EMBEDDING_MODEL_ID, type LocalEmbeddingOptions } from './local';
export { createOpenAIEmbeddingProvider, DEFAULT_OPENAI_EMBEDDING_MODEL, type OpenAIEmbeddingOptions } from './openai';
export { splitSentences } from './sentences';
