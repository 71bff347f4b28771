/**
 * Compares a completed run with the KB's previous completed run: a figure of REGRESSION_FIGURES
 * (hit@k, answer contains) that dropped by more than REGRESSION_THRESHOLD (0.05 absolute) flags the
 * run a regression. The comparison is stored on the run whether flagged or not (the dashboard shows
 * it), and a flagged run is sent to the KB's webhook, when one is set, by the `evals__webhook` job.
 */
import type { AppDeps } from '../../context';
import type { EvalRegression } from '../../../db/json-columns';
import type { EvalRunRow } from '../../../db/types';
import { REGRESSION_THRESHOLD, regressionDrops } from './score-evals';

export async function flagRegression(deps: Pick<AppDeps, 'db' | 'jobs' | 'logger'>, run: EvalRunRow): Promise<EvalRegression | null> {
  if (!run.summary) return null;
  const previous = await deps.db
    .selectFrom('eval_runs')
    .select(['id', 'summary'])
    .where('kb_id', '=', run.kb_id)
    .where('status', '=', 'completed')
    .where('id', '!=', run.id)
    .where('finished_at', '<=', run.finished_at ?? new Date())
    .orderBy('finished_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  if (!previous?.summary) return null;
  const drops = regressionDrops(previous.summary, run.summary);
  const flagged = Object.keys(drops).length > 0;
  const kb = await deps.db.selectFrom('knowledge_bases').select('eval_settings').where('id', '=', run.kb_id).executeTakeFirst();
  const hook = flagged && !!kb?.eval_settings?.webhook_url;
  const regression: EvalRegression = { flagged, previous_run_id: previous.id, threshold: REGRESSION_THRESHOLD, drops, webhook: hook ? 'queued' : 'none' };
  await deps.db.transaction().execute(async (trx) => {
    await trx.updateTable('eval_runs').set({ regression: JSON.stringify(regression) }).where('id', '=', run.id).execute();
    // Retried with graphile-worker's exponential backoff; the last failure marks the delivery failed.
    if (hook) await deps.jobs.enqueue(trx, 'evals__webhook', { run_id: run.id }, { jobKey: `eval-webhook:${run.id}`, maxAttempts: 6 });
  });
  if (flagged) deps.logger.warn({ kbId: run.kb_id, runId: run.id, drops }, 'eval run regressed');
  return regression;
}
