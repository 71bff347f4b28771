/** A KB's test set, oldest case first (the order runs ask them in). */
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { parseInput } from '../../validation';
import { requireKb } from '../kbs/require-kb';
import { toEvalCaseDto, type EvalCaseDto } from './eval-dto';
import { authorize } from '../access/roles';

export const ZEvalKbRef = z.object({ kb_id: z.string().min(1) }).strict();

export async function listEvalCases(ctx: ServiceContext, raw: z.input<typeof ZEvalKbRef>): Promise<{ cases: EvalCaseDto[] }> {
  authorize(ctx, 'content.read');
  const { kb_id } = parseInput(ZEvalKbRef, raw);
  const kb = await requireKb(ctx, kb_id);
  const rows = await ctx.db.selectFrom('eval_cases').selectAll().where('kb_id', '=', kb.id).where('org_id', '=', ctx.org.id).orderBy('created_at').orderBy('id').execute();
  return { cases: rows.map(toEvalCaseDto) };
}
