/** Task `evals__webhook`: send a regression to the KB's webhook; a failure is retried with graphile-worker's backoff. */
import type { Task } from 'graphile-worker';
import type { AppDeps } from '../context';
import type { EvalRunId } from '../ids';
import { deliverEvalWebhook } from '../services/evals/deliver-eval-webhook';
import { JOB_PAYLOADS } from './enqueue';

export function evalsWebhook(deps: AppDeps): Task {
  return async (payload, helpers) => {
    const { run_id } = JOB_PAYLOADS.evals__webhook.parse(payload);
    await deliverEvalWebhook(deps, run_id as EvalRunId, { number: helpers.job.attempts, max: helpers.job.max_attempts });
  };
}
