/** Task `documents__ingest`: payload validated at run time, work delegated to the service. */
import type { Task } from 'graphile-worker';
import type { AppDeps } from '../context';
import type { DocumentId } from '../ids';
import { runIngestion, runIngestionStepJob } from '../services/documents/run-ingestion';
import { JOB_PAYLOADS } from './enqueue';

export function documentsIngest(deps: AppDeps): Task {
  return async (payload, helpers) => {
    const { document_id } = JOB_PAYLOADS.documents__ingest.parse(payload);
    await runIngestion(deps, document_id as DocumentId, { number: helpers.job.attempts, max: helpers.job.max_attempts });
  };
}

/** Task `documents__ingest_step`: the next bounded step of a big document (src/services/documents/ingest-steps.ts). */
export function documentsIngestStep(deps: AppDeps): Task {
  return async (payload, helpers) => {
    const { document_id } = JOB_PAYLOADS.documents__ingest_step.parse(payload);
    await runIngestionStepJob(deps, document_id as DocumentId, { number: helpers.job.attempts, max: helpers.job.max_attempts });
  };
}
