/** Task `evals__run`: ask one eval run's cases (src/services/evals/run-eval.ts); its last failed attempt marks the run failed. */
import type { Task } from 'graphile-worker';
import type { AppDeps } from '../context';
import type { EvalRunId } from '../ids';
import { executeEvalRun, failEvalRun } from '../services/evals/run-eval';
import { JOB_PAYLOADS } from './enqueue';

export function evalsRun(deps: AppDeps): Task {
  return async (payload, helpers) => {
    const { run_id } = JOB_PAYLOADS.evals__run.parse(payload);
    try {
      await executeEvalRun(deps, run_id as EvalRunId);
    } catch (err) {
      if (helpers.job.attempts >= helpers.job.max_attempts) await failEvalRun(deps, run_id as EvalRunId, err instanceof Error ? err.message : String(err));
      throw err;
    }
  };
}
