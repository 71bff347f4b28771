/** Every graphile-worker task the service runs, by name (`<domain>__<action>`). */
import type { Task, TaskList } from 'graphile-worker';
import type { AppDeps } from '../context';
import { documentsIngest, documentsIngestStep } from './documents__ingest';
import type { JobName } from './enqueue';
import { kbsReembed } from './kbs__reembed';
import { kbsIndexVectors } from './kbs__index_vectors';
import { documentsRecrawl, documentsRecrawlDue } from './documents__recrawl';
import { evalsRun } from './evals__run';
import { evalsWebhook } from './evals__webhook';
import { uploadsAdmit } from './uploads__admit';
import { observeJob } from '../metrics';

/** Every run timed and counted by outcome (groundwork_ingestion_jobs_total and its histogram). */
const observed = (name: JobName, task: Task): Task => (payload, helpers) => observeJob(name, async () => task(payload, helpers));

export function createTaskList(deps: AppDeps): TaskList & Record<JobName, unknown> {
  return {
    documents__ingest: observed('documents__ingest', documentsIngest(deps)),
    documents__ingest_step: observed('documents__ingest_step', documentsIngestStep(deps)),
    kbs__reembed: observed('kbs__reembed', kbsReembed(deps)),
    kbs__index_vectors: observed('kbs__index_vectors', kbsIndexVectors(deps)),
    documents__recrawl: observed('documents__recrawl', documentsRecrawl(deps)),
    documents__recrawl_due: observed('documents__recrawl_due', documentsRecrawlDue(deps)),
    evals__run: observed('evals__run', evalsRun(deps)),
    evals__webhook: observed('evals__webhook', evalsWebhook(deps)),
    uploads__admit: observed('uploads__admit', uploadsAdmit(deps)),
  };
}
