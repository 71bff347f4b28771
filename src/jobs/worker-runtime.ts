/**
 * Starts graphile-worker on the service's pool. On the embedded database all connections share one
 * PGlite session, so prepared statement names would collide: noPreparedStatements is mandatory there.
 */
import { Logger as WorkerLogger, parseCronItems, run, type Runner } from 'graphile-worker';
import type { Logger } from '../logger';
import type { Runtime } from '../runtime';
import { enqueueReembeddingWhereNeeded } from '../services/kbs/reembed-kb';
import { createTaskList } from './task-list';

function workerLogger(logger: Logger) {
  return new WorkerLogger((scope) => (level, message, meta) => {
    const method = level === 'error' ? 'error' : level === 'warning' ? 'warn' : level === 'info' ? 'info' : 'debug';
    logger[method]({ worker: scope, ...meta }, message);
  });
}

export const RECRAWL_CRON = parseCronItems([{ task: 'documents__recrawl_due', match: '*/10 * * * *', identifier: 'documents__recrawl_due' }]);

export async function startWorker(runtime: Runtime, opts: { pollInterval?: number } = {}): Promise<Runner> {
  const { config, logger, database } = runtime;
  // A changed embedding model (e.g. OPENAI_API_KEY added) is rolled out to existing KBs in the background.
  await enqueueReembeddingWhereNeeded(runtime.deps);
  return run({
    pgPool: database.pool,
    taskList: createTaskList(runtime.deps),
    concurrency: config.worker.concurrency,
    noHandleSignals: true,
    noPreparedStatements: database.mode !== 'postgres',
    pollInterval: opts.pollInterval ?? 2000,
    logger: workerLogger(logger.child({ component: 'worker' })),
    // Scheduled re-crawls: every 10 minutes the documents whose next_crawl_at has passed are queued.
    parsedCronItems: RECRAWL_CRON,
  });
}
