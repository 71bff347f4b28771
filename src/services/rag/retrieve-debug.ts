/**
 * The retrieval step alone, with each passage's lexical (BM25) and vector (cosine) scores beside the
 * fused one, so an administrator can see why an answer came out as it did (the dashboard's Sandbox).
 */
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { parseInput } from '../../validation';
import { requireKb } from '../kbs/require-kb';
import { withOrgShare } from '../org-share';
import { retrieve } from './retrieve';

export const ZRetrieveDebugInput = z
  .object({ kb_id: z.string().min(1), query: z.string().trim().min(1).max(2000), top_k: z.number().int().min(1).max(50).default(8) })
  .strict();

export async function retrieveDebug(ctx: ServiceContext, rawInput: z.input<typeof ZRetrieveDebugInput>) {
  const input = parseInput(ZRetrieveDebugInput, rawInput);
  const kb = await requireKb(ctx, input.kb_id);
  const { chunks, confident } = await withOrgShare(ctx, () => retrieve(ctx, kb, input.query, { topK: input.top_k }));
  return { confident, passages: chunks.map((c, i) => ({ ...c, rank: i + 1 })) };
}
