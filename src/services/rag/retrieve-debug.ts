/**
 * The retrieval step alone, with each passage's lexical (BM25) and vector (cosine) scores beside the
 * fused one, so an administrator can see why an answer came out as it did (the dashboard's Sandbox).
 * `confident` is the answer path's own refusal gate (decideAnswer), not retrieval's half of it, so
 * it can never say "relevant" while chat refuses; `reason` says which check decided. Scores are
 * rounded as citations round them, so a passage shows the same number in both places.
 */
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { parseInput } from '../../validation';
import { requireKb } from '../kbs/require-kb';
import { withOrgShare } from '../org-share';
import { decideAnswer, readRetrieval } from '../../answering/answer-stream';
import { toCitation } from '../../answering/citations';
import { retrieve } from '../../answering/retrieval/retrieve';
import { authorize } from '../access/roles';

export const ZRetrieveDebugInput = z
  .object({ kb_id: z.string().min(1), query: z.string().trim().min(1).max(2000), top_k: z.number().int().min(1).max(50).default(8) })
  .strict();

export async function retrieveDebug(ctx: ServiceContext, rawInput: z.input<typeof ZRetrieveDebugInput>) {
  authorize(ctx, 'content.read');
  const input = parseInput(ZRetrieveDebugInput, rawInput);
  const kb = await requireKb(ctx, input.kb_id);
  const retrieval = await withOrgShare(ctx, () => retrieve(ctx, kb, input.query, { topK: input.top_k }));
  const decision = decideAnswer(ctx, { question: input.query, retrieval });
  // The passages the answer reads, as chat and search send them.
  const read = readRetrieval(ctx, { question: input.query, retrieval });
  return {
    confident: decision.answered,
    reason: decision.reason,
    passages: read.chunks.map((c, i) => ({ ...c, score: toCitation(c, i + 1).score, rank: i + 1 })),
  };
}
