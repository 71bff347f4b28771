/**
 * Two runs of one KB side by side, case by case: each case asked in both is better, worse or the
 * same in the second (score-evals.ts compareCase), with both results; cases asked in only one run
 * are listed as added or removed. Without `base`, a run is compared with the completed run before it.
 */
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { AppError } from '../../errors';
import { parseInput } from '../../validation';
import { toEvalResultDto, toEvalRunDto, ZEvalResult, ZEvalRun, type EvalResultDto } from './eval-dto';
import { requireEvalRun } from './require-eval';
import { compareCase } from './score-evals';
import { authorize } from '../access/roles';

export const ZCompareEvalRunsInput = z
  .object({
    kb_id: z.string().min(1),
    run_id: z.string().min(1).describe('The run to look at'),
    base_id: z.string().min(1).optional().describe('The run it is compared with; default: the completed run before it'),
  })
  .strict();

export const ZEvalComparison = z.object({
  base: ZEvalRun,
  run: ZEvalRun,
  counts: z.object({ better: z.number().int(), worse: z.number().int(), same: z.number().int(), added: z.number().int(), removed: z.number().int() }),
  cases: z.array(
    z.object({
      case_id: z.string(),
      question: z.string(),
      change: z.enum(['better', 'worse', 'same', 'added', 'removed']),
      base: ZEvalResult.nullable(),
      run: ZEvalResult.nullable(),
    }),
  ),
});
export type EvalComparison = z.infer<typeof ZEvalComparison>;

export async function compareEvalRuns(ctx: ServiceContext, raw: z.input<typeof ZCompareEvalRunsInput>): Promise<EvalComparison> {
  authorize(ctx, 'content.read');
  const input = parseInput(ZCompareEvalRunsInput, raw);
  const { row: run } = await requireEvalRun(ctx, input.kb_id, input.run_id);
  let baseId = input.base_id;
  if (!baseId) {
    const before = await ctx.db
      .selectFrom('eval_runs')
      .select('id')
      .where('kb_id', '=', run.kb_id)
      .where('status', '=', 'completed')
      .where('id', '!=', run.id)
      .where('created_at', '<=', run.created_at)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirst();
    if (!before) throw new AppError('invalid_input', 'This run has no completed run before it to compare with; pass base_id', { field: 'base_id' });
    baseId = before.id;
  }
  const { row: base } = await requireEvalRun(ctx, input.kb_id, baseId);
  const results = async (id: string) =>
    (await ctx.db.selectFrom('eval_results').selectAll().where('run_id', '=', id as never).orderBy('position').execute()).map(toEvalResultDto);
  const [a, b] = await Promise.all([results(base.id), results(run.id)]);
  const byCase = new Map<string, { base: EvalResultDto | null; run: EvalResultDto | null }>();
  for (const r of a) byCase.set(r.case_id, { base: r, run: null });
  for (const r of b) byCase.set(r.case_id, { base: byCase.get(r.case_id)?.base ?? null, run: r });
  const cases = [...byCase.entries()].map(([case_id, pair]) => ({
    case_id,
    question: (pair.run ?? pair.base)!.question,
    change: !pair.base ? ('added' as const) : !pair.run ? ('removed' as const) : compareCase(pair.base, pair.run),
    ...pair,
  }));
  const counts = { better: 0, worse: 0, same: 0, added: 0, removed: 0 };
  for (const c of cases) counts[c.change]++;
  return { base: toEvalRunDto(base), run: toEvalRunDto(run), counts, cases };
}
