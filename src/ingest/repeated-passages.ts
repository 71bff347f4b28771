/**
 * A passage a document repeats word for word is stored once: a DOCX that repeated its whole text gave
 * every passage twice (954 chunks, 431 distinct), so the copies took half the places of a top_k 20
 * search and were embedded twice. The first occurrence stays (its heading and page are where a
 * reader meets the text first); later copies are dropped and positions renumbered without gaps, so
 * "the passage before/after" still means the neighbouring stored passage. Passages are the same when
 * their text is, ignoring case and runs of whitespace.
 */
import type { Chunk } from './types';

const key = (text: string) => text.replace(/\s+/g, ' ').trim().toLowerCase();

export function dropRepeatedPassages(chunks: Chunk[]): Chunk[] {
  const seen = new Set<string>();
  const kept: Chunk[] = [];
  for (const chunk of chunks) {
    const k = key(chunk.text);
    if (seen.has(k)) continue;
    seen.add(k);
    kept.push(kept.length === chunk.position ? chunk : { ...chunk, position: kept.length });
  }
  return kept;
}
