/**
 * POST /api/rag/search: retrieve from one KB of the caller, then answer with citations.
 */
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { parseInput } from '../../validation';
import { requireKb } from '../kbs/require-kb';
import { answerStream, type AnswerEvent } from '../../answering/answer-stream';
import { authorize } from '../access/roles';
import { findAnswerSources } from './answer-sources';

export const MAX_QUERY_CHARS = 2000;

export const ZSearchInput = z
  .object({
    query: z.string().trim().min(1, 'must not be empty').max(MAX_QUERY_CHARS),
    kb_id: z.string().min(1),
    top_k: z.number().int().min(1).max(50).default(5),
    stream: z.boolean().default(false),
  })
  .strict();
export type SearchInput = z.input<typeof ZSearchInput>;

/**
 * Validates and resolves the KB up front, so errors surface before any streaming starts. The answer
 * stops with `signal`, by default the read's own (a GraphQL `search` whose client left).
 */
export async function startSearch(ctx: ServiceContext, rawInput: SearchInput, signal = ctx.signal): Promise<AsyncGenerator<AnswerEvent>> {
  authorize(ctx, 'query');
  const input = parseInput(ZSearchInput, rawInput);
  const kb = await requireKb(ctx, input.kb_id);
  const { retrieval, annotation } = await findAnswerSources(ctx, kb, { query: input.query, topK: input.top_k });
  return answerStream(ctx, { question: input.query, retrieval, annotation, signal });
}
