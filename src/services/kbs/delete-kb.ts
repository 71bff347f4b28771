/**
 * Deletes a KB with all its documents, chunks and chat sessions (foreign keys cascade). Ingestion
 * jobs still queued for its documents find nothing and finish as no-ops.
 */
import type { ServiceContext } from '../../context';
import { parseInput } from '../../validation';
import { ZKbRef } from './get-kb';
import { requireKb } from './require-kb';
import { authorize } from '../access/roles';
import { recordAudit } from '../audit/record-audit';

export async function deleteKb(ctx: ServiceContext, rawInput: { id: string }): Promise<{ success: boolean }> {
  authorize(ctx, 'kb.delete');
  const { id } = parseInput(ZKbRef, rawInput);
  const kb = await requireKb(ctx, id);
  await ctx.db.deleteFrom('knowledge_bases').where('id', '=', kb.id).where('org_id', '=', ctx.org.id).execute();
  await recordAudit(ctx, { action: 'kb.delete', targetType: 'knowledge_base', targetId: kb.id, changes: { name: kb.name } });
  ctx.logger.info({ kbId: kb.id }, 'knowledge base deleted');
  return { success: true };
}
