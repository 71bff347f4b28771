/** Runs queued jobs deterministically (graphile-worker's runOnce) with the service's real task list. */
import { runOnce } from 'graphile-worker';
import { silentWorkerLogger } from '../../db/migrate';
import { createTaskList } from '../../src/jobs/task-list';
import type { TestApp } from './test-app';

export async function runQueuedJobs(t: TestApp): Promise<void> {
  await runOnce({
    pgPool: t.database.pool,
    taskList: createTaskList(t.deps),
    noPreparedStatements: t.database.mode !== 'postgres',
    logger: silentWorkerLogger,
  });
}
