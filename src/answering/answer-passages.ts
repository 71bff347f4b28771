/**
 * Retrieved chunks as the answer prompt numbers them ([1], [2], ...), each with the source line
 * that says where it comes from (file or URL, the document's title and identity, page, heading).
 * The same passages are what the SSE `citations` event sends, and what the evidence order scores.
 */
import { passageSource, type AnswerPassage } from '../ai/prompts';
import { passageTitle } from './retrieval/passage-title';
import type { RetrievedChunk } from './retrieval/retrieve';

type PassageChunk = Pick<RetrievedChunk, 'text' | 'url' | 'filename' | 'title' | 'identity' | 'page' | 'heading_path'> & { doc_id: string };

export function toAnswerPassages(chunks: readonly PassageChunk[]): AnswerPassage[] {
  return chunks.map((c, i) => ({
    marker: i + 1,
    text: c.text,
    document: c.doc_id,
    source: passageSource({ name: c.url ?? c.filename, title: passageTitle(c), page: c.page, heading: c.heading_path.at(-1) }),
  }));
}
