/**
 * The voice model's one tool, `search_knowledge_base`: the same hybrid retrieval as text chat
 * (retrieve(), top 5, the same confidence rule), so a spoken and a typed question find the same
 * passages and are refused alike. Passages go to the model numbered [1]…[n], as in the chat
 * prompt; the citations the widget shows are the ones the spoken answer cites, chosen by the
 * same rule as answerStream().
 */
import type { KnowledgeBase } from '../../../db/types';
import { extractCitedMarkers, isRefusalText, NOT_FOUND_ANSWER } from '../../ai/prompts';
import type { ServiceContext } from '../../context';
import { annotationCitation, toCitation, type Citation } from '../../answering/citations';
import { findAnswerSources } from '../rag/answer-sources';

export const VOICE_TOOL_NAME = 'search_knowledge_base';
/** Chat's default top_k: voice answers are short, five passages are plenty. */
const VOICE_TOP_K = 5;
const MAX_QUERY_CHARS = 1000;

export const VOICE_TOOL = {
  type: 'function' as const,
  name: VOICE_TOOL_NAME,
  description:
    "Search the organisation's knowledge base. Call it before answering any question, with the question rephrased as a standalone search query.",
  parameters: {
    type: 'object',
    properties: { query: { type: 'string', description: 'The standalone search query' } },
    required: ['query'],
  },
};

export const VOICE_INSTRUCTIONS = [
  "You are a voice assistant that answers only from this organisation's knowledge base.",
  `For every question, first call ${VOICE_TOOL_NAME} with a standalone query, then answer only from the passages it returns.`,
  'Cite the passages you used with their numbers in square brackets, like [1] or [2], in your answer text.',
  `If the passages do not contain the answer, or the tool finds nothing, say exactly: "${NOT_FOUND_ANSWER}"`,
  'Never use outside knowledge. Keep answers short and spoken: one to three sentences.',
  "Speak in the visitor's language.",
].join('\n');

export type VoiceToolResult = { output: string; sources: Citation[] };

/** Arguments come from the model: anything malformed is answered as "nothing found", never thrown. */
export async function searchKnowledgeForVoice(
  ctx: ServiceContext,
  kb: Pick<KnowledgeBase, 'id' | 'embedding_model'>,
  rawArguments: string,
  /** Markers continue across the searches of one turn, so "[n]" names one passage in the answer. */
  firstMarker = 1,
): Promise<VoiceToolResult> {
  let query = '';
  try {
    const parsed = JSON.parse(rawArguments) as { query?: unknown };
    if (typeof parsed.query === 'string') query = parsed.query.trim().slice(0, MAX_QUERY_CHARS);
  } catch {
    /* malformed arguments: nothing to search */
  }
  const found = query ? await findAnswerSources(ctx, kb, { query, topK: VOICE_TOP_K }) : null;
  if (found?.annotation) {
    // A curated answer is the one passage: the spoken answer says it, cited as curated.
    const source = { ...annotationCitation(found.annotation.annotation, found.annotation.similarity), marker: firstMarker };
    const passages = [{ marker: firstMarker, source: `Curated answer to "${found.annotation.annotation.question}"`, text: found.annotation.annotation.answer }];
    return { output: JSON.stringify({ found: true, curated: true, passages }), sources: [source] };
  }
  const retrieval = found?.retrieval ?? { chunks: [], confident: false };
  if (!retrieval.confident || retrieval.chunks.length === 0) {
    return { output: JSON.stringify({ found: false, passages: [], answer_if_nothing_found: NOT_FOUND_ANSWER }), sources: [] };
  }
  // The passages a typed answer reads, so a spoken answer is made from the same ones.
  const read = retrieval.chunks;
  const sources = read.map((c, i) => toCitation(c, firstMarker + i));
  const passages = read.map((c, i) => ({
    marker: firstMarker + i,
    source: [c.url ?? c.filename, c.page ? `page ${c.page}` : null, c.heading_path.at(-1)].filter(Boolean).join(', '),
    text: c.text,
  }));
  return { output: JSON.stringify({ found: true, passages }), sources };
}

/** The sources a finished spoken answer cites (none for a refusal; the best one if it forgot markers). */
export function citedSources(answer: string, sources: Citation[]): Citation[] {
  if (sources.length === 0) return [];
  if (isRefusalText(answer)) return [];
  const cited = new Set(extractCitedMarkers(answer));
  const used = sources.filter((s) => cited.has(s.marker));
  return used.length > 0 ? used : sources.slice(0, 1);
}
