/**
 * The document part of a passage's source line in the answer prompt: its title, and what its
 * identity says it is about (subject, kind, period). The offline answerer prefers passages whose
 * source names what the question names (src/ai/offline/answerer.ts reads the source line), and a
 * model sees whose each passage is: so a question naming a company or period prefers that
 * company's and period's passages in the answer too, on every transport (REST, GraphQL, tRPC,
 * widget and voice all answer through answer-stream.ts).
 */
import { titleFromFilename } from '../../ingest/document-title';
import type { RetrievedChunk } from './retrieve';
import { aboutDocument } from './title-boost';

export function passageTitle(c: Pick<RetrievedChunk, 'title' | 'identity' | 'filename'>): string | null {
  // A title that only repeats the file name (which the source line shows anyway) is left out.
  const title = c.title && c.title !== titleFromFilename(c.filename) ? c.title : null;
  return aboutDocument(title, c.identity);
}
