/**
 * Deletes a KB with all its documents, chunks and chat sessions (foreign keys cascade). Ingestion
 * jobs still queued for its documents find nothing and finish as no-ops.
 */
import type { ServiceContext } from '../../context';
import { parseInput } from '../../validation';
import { ZKbRef } from './get-kb';
import { requireKb } from './require-kb';

export async function deleteKb(ctx: ServiceContext, rawInput: { id: string }): Promise<{ success: boolean }> {
  const { id } = parseInput(ZKbRef, rawInput);
  const kb = await requireKb(ctx, id);
  await ctx.db.deleteFrom('knowledge_bases').where('id', '=', kb.id).where('org_id', '=', ctx.org.id).execute();
  ctx.logger.info({ kbId: kb.id }, 'knowledge base deleted');
  return { success: true };
}
