/** A document's chunks in reading order: what the assistant will read, as the dashboard shows it. */
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { parseInput } from '../../validation';
import { requireDocument } from './get-document';
import { withOrgRead } from '../org-share';

export const ZListChunksInput = z
  .object({
    kb_id: z.string().min(1),
    id: z.string().min(1),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    /** Position of the last chunk already shown. */
    after: z.coerce.number().int().min(-1).default(-1),
  })
  .strict();

async function listChunksNow(ctx: ServiceContext, rawInput: z.input<typeof ZListChunksInput>) {
  const input = parseInput(ZListChunksInput, rawInput);
  const doc = await requireDocument(ctx, { kb_id: input.kb_id, id: input.id });
  const rows = await ctx.db
    .selectFrom('chunks')
    .select(['id', 'position', 'text', 'heading_path', 'page', 'url', 'token_count'])
    .where('document_id', '=', doc.id)
    .where('position', '>', input.after)
    .orderBy('position')
    .limit(input.limit + 1)
    .execute();
  const more = rows.length > input.limit;
  const chunks = more ? rows.slice(0, input.limit) : rows;
  return { chunks, next_after: more ? chunks[chunks.length - 1]!.position : null };
}

/** In the organisation's read line (src/services/org-share.ts): a fanned-out read holds two connections at most. */
export function listChunks(ctx: ServiceContext, rawInput: z.input<typeof ZListChunksInput>) {
  return withOrgRead(ctx, () => listChunksNow(ctx, rawInput));
}
