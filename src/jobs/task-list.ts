/** Every graphile-worker task the service runs, by name (`<domain>__<action>`). */
import type { TaskList } from 'graphile-worker';
import type { AppDeps } from '../context';
import { documentsIngest } from './documents__ingest';
import type { JobName } from './enqueue';
import { kbsReembed } from './kbs__reembed';
import { documentsRecrawl, documentsRecrawlDue } from './documents__recrawl';

export function createTaskList(deps: AppDeps): TaskList & Record<JobName, unknown> {
  return {
    documents__ingest: documentsIngest(deps),
    kbs__reembed: kbsReembed(deps),
    documents__recrawl: documentsRecrawl(deps),
    documents__recrawl_due: documentsRecrawlDue(deps),
  };
}
