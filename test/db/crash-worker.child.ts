/**
 * Child process for the crash-restart test: opens the embedded database in the data directory given
 * as argv[2], queues one job on a named queue, and runs a worker whose task never finishes. It
 * prints LOCKED once the job is locked and running; the test then SIGKILLs it, leaving a stale lock
 * file and a job (and its queue) locked by a dead worker.
 */
import pg from 'pg';
import { Logger, makeWorkerUtils, run } from 'graphile-worker';
import { openEmbeddedDatabase } from '../../db/embedded/open-embedded';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: crash-worker.child.ts <dataDir>');

const silent = new Logger(() => () => {});
const embedded = await openEmbeddedDatabase({ dataDir });
const pool = new pg.Pool({ connectionString: embedded.connectionString, max: 5 });
const utils = await makeWorkerUtils({ pgPool: pool, logger: silent, noPreparedStatements: true });
await utils.migrate();
await utils.addJob('survive_crash', { note: 'queued before the crash' }, { queueName: 'serial' });
await run({
  pgPool: pool,
  noPreparedStatements: true,
  pollInterval: 60_000,
  concurrency: 1,
  logger: silent,
  taskList: {
    survive_crash: async () => {
      process.stdout.write('LOCKED\n');
      await new Promise(() => {}); // hold the job until killed
    },
  },
});
