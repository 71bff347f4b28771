/**
 * Runs in the inline worker's thread (worker-thread.ts): the same runner `npm run worker` starts,
 * on a pool of its own to the owner's database, with job metrics sent to the owner's registry.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createDb, createPool } from '../../db/connect';
import { createLogger } from '../logger';
import { reportJobsTo } from '../metrics';
import { createAiDeps, type Runtime } from '../runtime';
import { graphileJobQueue } from './enqueue';
import type { FromWorkerThread, ToWorkerThread, WorkerThreadData } from './worker-thread';
import { startWorker } from './worker-runtime';

const port = parentPort!;
const send = (message: FromWorkerThread) => port.postMessage(message);

try {
  const data = workerData as WorkerThreadData;
  const config = Object.freeze(data.config);
  const logger = createLogger(config.logLevel, { bindings: { thread: 'worker' } });
  const postgres = data.mode === 'postgres';
  // An attached worker process uses 10 connections to the embedded database too (db/open-database.ts).
  const pool = createPool(data.connectionString, postgres ? config.databasePoolSize : 10, { embedded: !postgres });
  const db = createDb(pool);
  const runtime: Runtime = {
    config,
    logger,
    // The owner opened (and migrated) the database; on the embedded one this thread is a client like `npm run worker`.
    database: { db, pool, connectionString: data.connectionString, mode: postgres ? 'postgres' : 'embedded-attached', close: () => db.destroy() },
    deps: { db, config, logger, ...createAiDeps(config), jobs: graphileJobQueue },
  };
  reportJobsTo((task, outcome, seconds) => send({ type: 'job', task, outcome, seconds }));
  const runner = await startWorker(runtime, { pollInterval: data.pollInterval });
  port.on('message', (message: ToWorkerThread) => {
    if (message.type !== 'stop') return;
    void (async () => {
      await runner.stop().catch((err: unknown) => logger.warn({ err }, 'inline worker did not stop cleanly'));
      await runtime.database.close().catch(() => {});
      logger.flush();
      send({ type: 'stopped' });
      port.close();
    })();
  });
  send({ type: 'started' });
} catch (err) {
  const e = err instanceof Error ? err : new Error(String(err));
  send({ type: 'failed', error: { name: e.name, message: e.message, stack: e.stack } });
  port.close();
}
