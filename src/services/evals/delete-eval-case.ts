/** Removes a case from its KB's set; the results of runs that asked it stay with those runs. */
import type { z } from 'zod';
import type { ServiceContext } from '../../context';
import { parseInput } from '../../validation';
import { requireEvalCase } from './require-eval';
import { ZEvalCaseRef } from './update-eval-case';
import { authorize } from '../access/roles';
import { recordAudit } from '../audit/record-audit';

export async function deleteEvalCase(ctx: ServiceContext, raw: z.input<typeof ZEvalCaseRef>): Promise<{ success: boolean }> {
  authorize(ctx, 'eval.write');
  const { kb_id, id } = parseInput(ZEvalCaseRef, raw);
  const { row } = await requireEvalCase(ctx, kb_id, id);
  await ctx.db.deleteFrom('eval_cases').where('id', '=', row.id).execute();
  await recordAudit(ctx, { action: 'eval_case.delete', targetType: 'eval_case', targetId: row.id, changes: { kb_id: row.kb_id, question: row.question } });
  return { success: true };
}
