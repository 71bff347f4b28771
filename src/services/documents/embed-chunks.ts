import type { EmbeddingProvider } from '../../ai/embeddings/types';
import type { Chunk } from '../../ingest/types';
import type { EmbeddedChunk } from './store-chunks';

/** What a chunk's vector is made from: its heading path gives short chunks their context. */
export function embeddingText(chunk: Pick<Chunk, 'headingPath' | 'text'>): string {
  const heading = chunk.headingPath.join(' > ');
  return heading ? `${heading}\n${chunk.text}` : chunk.text;
}

export async function embedChunks(provider: EmbeddingProvider, chunks: Chunk[]): Promise<EmbeddedChunk[]> {
  const vectors = await provider.embedDocuments(chunks.map(embeddingText));
  return chunks.map((c, i) => ({ ...c, embedding: vectors[i] ?? null }));
}
