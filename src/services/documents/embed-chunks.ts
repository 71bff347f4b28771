import type { EmbeddingProvider } from '../../ai/embeddings/types';
import type { DocumentIdentity } from '../../ingest/document-identity';
import { chunkContext } from '../../ingest/document-title';
import type { Chunk } from '../../ingest/types';
import type { ReportProgress } from './progress';

/** A chunk and its embedding (null when it has none). */
export type EmbeddedChunk = Chunk & { embedding: Float32Array | null };

/**
 * What a chunk is indexed as, lexically and as a vector: the document's title, its identity and
 * the chunk's heading path ahead of its text. They give short chunks their context and let a question that
 * names the document ("the Q2 2023 call") find passages that never repeat it.
 */
export function embeddingText(chunk: Pick<Chunk, 'headingPath' | 'text'>, title?: string | null, identity?: DocumentIdentity | null): string {
  const context = chunkContext(title, chunk.headingPath, identity);
  return context ? `${context}\n${chunk.text}` : chunk.text;
}

// Big enough that a remote provider still fans its own batches out in parallel within one step.
const PROGRESS_STEP = 512;

export async function embedChunks(
  provider: EmbeddingProvider,
  chunks: Chunk[],
  title?: string | null,
  report?: ReportProgress,
  identity?: DocumentIdentity | null,
): Promise<EmbeddedChunk[]> {
  const texts = chunks.map((c) => embeddingText(c, title, identity));
  const vectors: Array<Float32Array | null> = [];
  report?.({ stage: 'embedding', done: 0, total: chunks.length, unit: 'chunks' });
  for (let i = 0; i < texts.length; i += PROGRESS_STEP) {
    vectors.push(...(await provider.embedDocuments(texts.slice(i, i + PROGRESS_STEP))));
    report?.({ stage: 'embedding', done: vectors.length, total: chunks.length, unit: 'chunks' });
  }
  return chunks.map((c, i) => ({ ...c, embedding: vectors[i] ?? null }));
}
