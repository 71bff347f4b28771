import { z } from 'zod';
import { cutAtWord } from '../text/words';
import type { RetrievedChunk } from './retrieval/retrieve';

export const ZCitation = z.object({
  doc_id: z.string(),
  score: z.number().describe('Relevance in (0, 1); higher is better'),
  chunk_id: z.string(),
  marker: z.number().int().describe('The [n] marker used for this source in the answer text'),
  filename: z.string().describe('Original file name, or the crawled site URL'),
  url: z.string().nullable().describe('Page URL for crawled documents'),
  page: z.number().int().nullable(),
  heading: z.string().nullable(),
  snippet: z.string(),
  used: z
    .boolean()
    .describe('false when the answer was refused: the passage is only among the closest retrieved, not a source of the answer'),
  // Optional: citations stored on messages before curated answers existed lack them (read as a document).
  source_type: z
    .enum(['document', 'annotation'])
    .optional()
    .describe('`annotation`: a curated answer given in the dashboard answered, not a document (doc_id and chunk_id are then the annotation id)'),
  annotation_id: z.string().nullable().optional().describe('The curated answer, when source_type is annotation'),
  title: z.string().nullable().optional().describe('The curated answer\'s question, when source_type is annotation'),
});
export type Citation = z.infer<typeof ZCitation>;

const SNIPPET_CHARS = 240;

/** The passage's start, cut before the word the limit falls in: at a space, or where ICU puts a word boundary in text without spaces. */
function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= SNIPPET_CHARS) return flat;
  const spaced = flat.slice(0, SNIPPET_CHARS).replace(/\s+\S*$/, '');
  return `${spaced.length >= SNIPPET_CHARS * 0.8 ? spaced : cutAtWord(flat, SNIPPET_CHARS)}…`;
}

export function toCitation(chunk: RetrievedChunk, marker: number, used = true): Citation {
  return {
    doc_id: chunk.doc_id,
    score: Number(chunk.score.toFixed(4)),
    chunk_id: chunk.chunk_id,
    marker,
    filename: chunk.filename,
    url: chunk.url,
    page: chunk.page,
    heading: chunk.heading_path.length ? chunk.heading_path.join(' > ') : null,
    snippet: snippet(chunk.text),
    used,
    source_type: 'document',
    annotation_id: null,
    title: null,
  };
}

/** A curated answer cited as the source of the answer it gave: marker 1, its question as the title. */
/** A curated answer of the KB that matched the question, and how closely (services/annotations/match-annotation.ts). */
export type MatchedAnnotation = { annotation: { id: string; question: string; answer: string }; similarity: number };

export function annotationCitation(a: { id: string; question: string; answer: string }, similarity: number): Citation {
  return {
    doc_id: a.id,
    score: Number(Math.min(1, similarity).toFixed(4)),
    chunk_id: a.id,
    marker: 1,
    filename: 'Curated answer',
    url: null,
    page: null,
    heading: null,
    snippet: snippet(a.answer),
    used: true,
    source_type: 'annotation',
    annotation_id: a.id,
    title: a.question,
  };
}
