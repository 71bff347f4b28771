/** Changes a case's question or expectations; fields left out keep their value, null clears the expected answer. */
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { parseInput } from '../../validation';
import { toEvalCaseDto, ZEvalCaseFields, type EvalCaseDto } from './eval-dto';
import { requireEvalCase } from './require-eval';
import { authorize } from '../access/roles';
import { recordAudit } from '../audit/record-audit';

export const ZEvalCaseRef = z.object({ kb_id: z.string().min(1), id: z.string().min(1) }).strict();
export const ZUpdateEvalCaseInput = ZEvalCaseFields.partial().extend(ZEvalCaseRef.shape).strict();
export type UpdateEvalCaseInput = z.input<typeof ZUpdateEvalCaseInput>;

export async function updateEvalCase(ctx: ServiceContext, raw: UpdateEvalCaseInput): Promise<{ case: EvalCaseDto }> {
  authorize(ctx, 'eval.write');
  const { kb_id, id, ...changes } = parseInput(ZUpdateEvalCaseInput, raw);
  const { row } = await requireEvalCase(ctx, kb_id, id);
  const updated = await ctx.db
    .updateTable('eval_cases')
    .set({
      ...(changes.question !== undefined ? { question: changes.question } : {}),
      ...(changes.answer !== undefined ? { expected_answer: changes.answer } : {}),
      ...(changes.documents !== undefined ? { expected_documents: JSON.stringify(changes.documents) } : {}),
      ...(changes.pages !== undefined ? { expected_pages: JSON.stringify(changes.pages) } : {}),
      ...(changes.answerable !== undefined ? { answerable: changes.answerable } : {}),
      updated_at: new Date(),
    })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await recordAudit(ctx, { action: 'eval_case.update', targetType: 'eval_case', targetId: row.id, changes: { kb_id: row.kb_id, after: changes } });
  return { case: toEvalCaseDto(updated) };
}
