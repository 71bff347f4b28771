/**
 * A run executed in the caller's process (the CLI's `eval run`, for CI): the KB is named by its id
 * alone (the CLI acts as the operator, for whichever organisation owns it), the cases are the KB's
 * set or those of a file, and the run is stored like any other, with trigger `cli`, so it shows in
 * the KB's history and regressions are judged against it too.
 */
import type { AppDeps } from '../../context';
import { createContext } from '../../context';
import { notFound } from '../../errors';
import { isIdOf, type KbId } from '../../ids';
import type { EvalRunCase } from '../../../db/json-columns';
import { getEvalRun } from './list-eval-runs';
import { executeEvalRun } from './run-eval';
import { createInlineEvalRun } from './start-eval-run';

export async function runEvalInline(deps: AppDeps, input: { kb_id: string; cases?: EvalRunCase[]; top_k?: number }) {
  if (!isIdOf('kb', input.kb_id)) throw notFound('Knowledge base');
  const kb = await deps.db.selectFrom('knowledge_bases').select('org_id').where('id', '=', input.kb_id as KbId).executeTakeFirst();
  if (!kb) throw notFound('Knowledge base');
  const org = await deps.db.selectFrom('organizations').selectAll().where('id', '=', kb.org_id).executeTakeFirstOrThrow();
  const ctx = createContext(deps, org, { requestId: 'cli-eval' });
  const { runId } = await createInlineEvalRun(ctx, input);
  await executeEvalRun(deps, runId);
  return getEvalRun(ctx, { kb_id: input.kb_id, id: runId });
}
