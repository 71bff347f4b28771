/**
 * The offline default embedding provider: Universal Sentence Encoder lite distilled into
 * a static piece table (./distill/): the full model costs 15-35 ms a sentence on one core, the
 * table about 0.1 ms, at a cosine of 0.85 to the full model's vectors.
 *
 * Guarantees: no network and no TensorFlow at run time; the asset is read and decoded
 * once per process however many providers are created (a shared loader); vectors are
 * 512-d, L2-normalised and a pure function of the text; embedding a 600-page PDF's
 * ~15k sentences takes about a second of CPU, a query well under a millisecond.
 */
import { readFile } from 'node:fs/promises';
import { repoFile } from '../../repo-root';
import { decodeAsset } from './asset';
import { StaticEncoder } from './static-encoder';
import { PieceTokenizer } from './tokenizer';
import type { EmbeddingProvider, EmbeddingVector } from './types';

export const DEFAULT_STATIC_ASSET = repoFile('src/ai/embeddings/assets/use-lite-distilled-v1.bin');
export const LOCAL_EMBEDDING_MODEL_ID = 'local:use-lite-distilled@1';
export const LOCAL_EMBEDDING_DIMENSIONS = 512;

export interface LocalEmbeddingOptions {
  /** Path of a static-embedding asset; defaults to the one shipped in ./assets. */
  assetPath?: string;
}

export interface LoadedLocalEncoder {
  modelId: string;
  encoder: StaticEncoder;
}

const loaders = new Map<string, Promise<LoadedLocalEncoder>>();

/**
 * Loads (once per path per process) and returns the encoder. A failed load is not
 * cached, so a transient read error does not poison the process.
 */
export function loadLocalEncoder(assetPath: string = DEFAULT_STATIC_ASSET): Promise<LoadedLocalEncoder> {
  let loading = loaders.get(assetPath);
  if (!loading) {
    loading = readFile(assetPath).then((bytes) => {
      const { header, table, bias, pieceWeights } = decodeAsset(bytes);
      const encoder = new StaticEncoder({
        tokenizer: new PieceTokenizer(header.vocabulary),
        table,
        dimensions: header.dimensions,
        activation: header.activation,
        bias,
        pieceWeights,
      });
      return { modelId: header.modelId, encoder };
    });
    loading.catch(() => loaders.delete(assetPath));
    loaders.set(assetPath, loading);
  }
  return loading;
}

/**
 * Embedding time between yields to the event loop, so a big ingest never stalls I/O. By time, not by
 * count: a text costs 0.8 ms at 500 characters and 1.5 ms at a 300-token chunk's ~2,000, so the 32
 * texts of a slice by count took ~50 ms (~100 ms on a busy machine). In the worker's thread
 * that stall sat between the round trips of whatever transaction another job had open there, and on
 * the embedded database an open transaction holds the one session: chunks being moved held it for
 * ~480 ms, of which ~130 ms was the statements (issue 26).
 */
const SLICE_MS = 8;

export function createLocalEmbeddingProvider(opts: LocalEmbeddingOptions = {}): EmbeddingProvider {
  const load = () => loadLocalEncoder(opts.assetPath);
  return {
    // The id is fixed (not read from the asset) so it is known before the lazy load;
    // loading an asset published under another id is refused below.
    id: LOCAL_EMBEDDING_MODEL_ID,
    dimensions: LOCAL_EMBEDDING_DIMENSIONS,
    async embedDocuments(texts: string[]): Promise<EmbeddingVector[]> {
      const { encoder } = await checked(load());
      const out: EmbeddingVector[] = [];
      let sliceStart = performance.now();
      for (const text of texts) {
        if (performance.now() - sliceStart >= SLICE_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          sliceStart = performance.now();
        }
        out.push(encoder.embed(text));
      }
      return out;
    },
    async embedQuery(text: string): Promise<EmbeddingVector> {
      const { encoder } = await checked(load());
      return encoder.embed(text);
    },
  };
}

async function checked(loading: Promise<LoadedLocalEncoder>): Promise<LoadedLocalEncoder> {
  const loaded = await loading;
  if (loaded.modelId !== LOCAL_EMBEDDING_MODEL_ID || loaded.encoder.dimensions !== LOCAL_EMBEDDING_DIMENSIONS) {
    throw new Error(`static-embedding asset is ${loaded.modelId} (${loaded.encoder.dimensions}-d), expected ${LOCAL_EMBEDDING_MODEL_ID}`);
  }
  return loaded;
}
