/**
 * Imports a test set from JSONL or CSV (eval-case-format.ts) into a KB, all cases or none: a file
 * with one bad line adds nothing and says which line. `replace` swaps the KB's whole set for the file.
 */
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { newId } from '../../ids';
import { parseInput } from '../../validation';
import { requireKb } from '../kbs/require-kb';
import { assertRoomFor, caseColumns } from './create-eval-case';
import { EVAL_FILE_FORMATS, parseEvalCases } from './eval-case-format';
import { toEvalCaseDto, type EvalCaseDto } from './eval-dto';
import { authorize } from '../access/roles';
import { recordAudit } from '../audit/record-audit';

export const ZImportEvalCasesInput = z
  .object({
    kb_id: z.string().min(1),
    format: z.enum(EVAL_FILE_FORMATS).default('jsonl'),
    content: z.string().max(5_000_000),
    replace: z.boolean().default(false),
  })
  .strict();
export type ImportEvalCasesInput = z.input<typeof ZImportEvalCasesInput>;

export async function importEvalCases(ctx: ServiceContext, raw: ImportEvalCasesInput): Promise<{ imported: number; cases: EvalCaseDto[] }> {
  authorize(ctx, 'eval.write');
  const input = parseInput(ZImportEvalCasesInput, raw);
  const kb = await requireKb(ctx, input.kb_id);
  const lines = parseEvalCases(input.format, input.content);
  const rows = await ctx.db.transaction().execute(async (trx) => {
    if (input.replace) await trx.deleteFrom('eval_cases').where('kb_id', '=', kb.id).execute();
    await assertRoomFor(trx, kb.id, lines.length);
    await recordAudit({ ...ctx, db: trx }, { action: 'eval_case.import', targetType: 'knowledge_base', targetId: kb.id, changes: { format: input.format, cases: lines.length, replace: input.replace ?? false } });
    if (lines.length === 0) return [];
    // Created one millisecond apart so the set keeps the file's order (cases list by created_at).
    const base = Date.now();
    return trx
      .insertInto('eval_cases')
      .values(lines.map((c, i) => ({ id: newId('evalCase'), org_id: ctx.org.id, kb_id: kb.id, source: 'import' as const, created_at: new Date(base + i), ...caseColumns(c) })))
      .returningAll()
      .execute();
  });
  rows.sort((a, b) => a.created_at.getTime() - b.created_at.getTime());
  return { imported: rows.length, cases: rows.map(toEvalCaseDto) };
}
