/**
 * Loads an eval case or run of the caller's organisation. Another organisation's id reads "not
 * found", exactly like one that never existed, so ids cannot be probed across tenants.
 */
import type { ServiceContext } from '../../context';
import { notFound } from '../../errors';
import { isIdOf, type EvalCaseId, type EvalRunId } from '../../ids';
import { requireKb } from '../kbs/require-kb';

export async function requireEvalCase(ctx: ServiceContext, kbId: string, caseId: string) {
  const kb = await requireKb(ctx, kbId);
  if (!isIdOf('evalCase', caseId)) throw notFound('Eval case');
  const row = await ctx.db
    .selectFrom('eval_cases')
    .selectAll()
    .where('id', '=', caseId as EvalCaseId)
    .where('kb_id', '=', kb.id)
    .where('org_id', '=', ctx.org.id)
    .executeTakeFirst();
  if (!row) throw notFound('Eval case');
  return { kb, row };
}

export async function requireEvalRun(ctx: ServiceContext, kbId: string, runId: string) {
  const kb = await requireKb(ctx, kbId);
  if (!isIdOf('evalRun', runId)) throw notFound('Eval run');
  const row = await ctx.db
    .selectFrom('eval_runs')
    .selectAll()
    .where('id', '=', runId as EvalRunId)
    .where('kb_id', '=', kb.id)
    .where('org_id', '=', ctx.org.id)
    .executeTakeFirst();
  if (!row) throw notFound('Eval run');
  return { kb, row };
}
