/**
 * Which embedding models this process can use. The offline model is always available; OpenAI's
 * when a key is configured. A KB records the model its vectors were made with, and queries embed
 * with that same model, so vectors of different models are never compared.
 */
import type { Config } from '../config';
import { createLocalEmbeddingProvider, loadLocalEncoder } from './embeddings/local';
import { createOpenAIEmbeddingProvider } from './embeddings/openai';
import type { EmbeddingProvider } from './embeddings/types';

export type EmbeddingRegistry = {
  /** The model new KBs (and re-embedding) use. */
  readonly default: EmbeddingProvider;
  /** The provider for a recorded model id, or null if this process cannot run it. */
  get(id: string | null): EmbeddingProvider | null;
  /**
   * Loads the offline model's table now (~50-80 ms of decoding on the calling thread), so the
   * server pays it before it listens instead of inside the first search, where it held every
   * other request on the web loop.
   */
  warm(): Promise<void>;
};

export function createEmbeddingRegistry(config: Pick<Config, 'openai'>): EmbeddingRegistry {
  const local = createLocalEmbeddingProvider();
  const openai = config.openai
    ? createOpenAIEmbeddingProvider({
        apiKey: config.openai.apiKey,
        baseURL: config.openai.baseURL,
        model: config.openai.embeddingModel,
        dimensions: config.openai.embeddingDimensions,
      })
    : null;
  const all = new Map<string, EmbeddingProvider>([[local.id, local], ...(openai ? ([[openai.id, openai]] as const) : [])]);
  return {
    default: openai ?? local,
    get: (id) => (id ? (all.get(id) ?? null) : null),
    warm: async () => {
      await loadLocalEncoder();
    },
  };
}
