import type { EmbeddingProvider } from '../../ai/embeddings/types';
import { chunkContext } from '../../ingest/document-title';
import type { Chunk } from '../../ingest/types';
import type { EmbeddedChunk } from './store-chunks';

/**
 * What a chunk is indexed as, lexically and as a vector: the document's title and the chunk's
 * heading path ahead of its text. They give short chunks their context and let a question that
 * names the document ("the Q2 2023 call") find passages that never repeat it.
 */
export function embeddingText(chunk: Pick<Chunk, 'headingPath' | 'text'>, title?: string | null): string {
  const context = chunkContext(title, chunk.headingPath);
  return context ? `${context}\n${chunk.text}` : chunk.text;
}

export async function embedChunks(provider: EmbeddingProvider, chunks: Chunk[], title?: string | null): Promise<EmbeddedChunk[]> {
  const vectors = await provider.embedDocuments(chunks.map((c) => embeddingText(c, title)));
  return chunks.map((c, i) => ({ ...c, embedding: vectors[i] ?? null }));
}
