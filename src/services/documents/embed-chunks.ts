import type { EmbeddingProvider } from '../../ai/embeddings/types';
import type { Chunk } from '../../ingest/types';
import type { ReportProgress } from './progress';
import type { EmbeddedChunk } from './store-chunks';

/** What a chunk's vector is made from: its heading path gives short chunks their context. */
export function embeddingText(chunk: Pick<Chunk, 'headingPath' | 'text'>): string {
  const heading = chunk.headingPath.join(' > ');
  return heading ? `${heading}\n${chunk.text}` : chunk.text;
}

// Big enough that a remote provider still fans its own batches out in parallel within one step.
const PROGRESS_STEP = 512;

export async function embedChunks(provider: EmbeddingProvider, chunks: Chunk[], report?: ReportProgress): Promise<EmbeddedChunk[]> {
  const texts = chunks.map(embeddingText);
  const vectors: Array<Float32Array | null> = [];
  report?.({ stage: 'embedding', done: 0, total: chunks.length, unit: 'chunks' });
  for (let i = 0; i < texts.length; i += PROGRESS_STEP) {
    vectors.push(...(await provider.embedDocuments(texts.slice(i, i + PROGRESS_STEP))));
    report?.({ stage: 'embedding', done: vectors.length, total: chunks.length, unit: 'chunks' });
  }
  return chunks.map((c, i) => ({ ...c, embedding: vectors[i] ?? null }));
}
