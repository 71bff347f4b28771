/** Tasks `documents__recrawl` (one URL document) and `documents__recrawl_due` (cron: enqueue those due). */
import type { Task } from 'graphile-worker';
import type { AppDeps } from '../context';
import type { DocumentId } from '../ids';
import { enqueueDueRecrawls, runRecrawl } from '../services/documents/recrawl-document';
import { JOB_PAYLOADS } from './enqueue';

export function documentsRecrawl(deps: AppDeps): Task {
  return async (payload) => {
    const { document_id } = JOB_PAYLOADS.documents__recrawl.parse(payload);
    await runRecrawl(deps, document_id as DocumentId);
  };
}

export function documentsRecrawlDue(deps: AppDeps): Task {
  return async () => {
    await enqueueDueRecrawls(deps);
  };
}
