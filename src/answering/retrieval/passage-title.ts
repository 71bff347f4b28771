/**
 * The document part of a passage's source line in the answer prompt: its title, what its identity
 * says it is about (subject, kind, period), and its cover's headline lines where they add words
 * ("THE HARBOUR AUTHORITY STRATEGIC PLAN 2020-2024" under the subject "Acme Harbour Authority").
 * The offline answerer counts what the source line names as covered by every sentence
 * of the passage (src/answering/offline/answerer.ts), so a question naming the document is answered by the
 * sentence that says what it asks, not by the cover line that repeats the document's name; a model
 * sees whose each passage is. Every transport answers through answer-stream.ts, so all see the same.
 */
import { titleFromFilename } from '../../ingest/document-title';
import type { RetrievedChunk } from './retrieve';
import { aboutDocument } from './title-boost';

const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

export function passageTitle(c: Pick<RetrievedChunk, 'title' | 'identity' | 'filename'>): string | null {
  // A title that only repeats the file name (which the source line shows anyway) is left out.
  const title = c.title && c.title !== titleFromFilename(c.filename) ? c.title : null;
  const about = aboutDocument(title, c.identity);
  const said = new Set(words(`${c.filename} ${about ?? ''}`));
  const cover = (c.identity?.headline ?? []).filter((line) => words(line).some((w) => !said.has(w)));
  return [about, ...cover].filter((p): p is string => !!p).join(' · ') || null;
}
