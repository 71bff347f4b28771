/** A KB's runs, newest first (the history the dashboard charts), and one run with its per-case results. */
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { parseInput } from '../../validation';
import { requireKb } from '../kbs/require-kb';
import { toEvalResultDto, toEvalRunDto, type EvalResultDto, type EvalRunDto } from './eval-dto';
import { requireEvalRun } from './require-eval';
import { authorize } from '../access/roles';

export const ZListEvalRunsInput = z.object({ kb_id: z.string().min(1), limit: z.number().int().min(1).max(200).default(50) }).strict();
export const ZEvalRunRef = z.object({ kb_id: z.string().min(1), id: z.string().min(1) }).strict();

export async function listEvalRuns(ctx: ServiceContext, raw: z.input<typeof ZListEvalRunsInput>): Promise<{ runs: EvalRunDto[] }> {
  authorize(ctx, 'content.read');
  const { kb_id, limit } = parseInput(ZListEvalRunsInput, raw);
  const kb = await requireKb(ctx, kb_id);
  const rows = await ctx.db
    .selectFrom('eval_runs')
    .selectAll()
    .where('kb_id', '=', kb.id)
    .where('org_id', '=', ctx.org.id)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return { runs: rows.map(toEvalRunDto) };
}

export async function getEvalRun(ctx: ServiceContext, raw: z.input<typeof ZEvalRunRef>): Promise<{ run: EvalRunDto; results: EvalResultDto[] }> {
  authorize(ctx, 'content.read');
  const { kb_id, id } = parseInput(ZEvalRunRef, raw);
  const { row } = await requireEvalRun(ctx, kb_id, id);
  const results = await ctx.db.selectFrom('eval_results').selectAll().where('run_id', '=', row.id).orderBy('position').execute();
  return { run: toEvalRunDto(row), results: results.map(toEvalResultDto) };
}
