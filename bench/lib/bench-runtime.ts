/**
 * An in-process service for benchmarks: the embedded database (in memory) or a throwaway PostgreSQL
 * cluster, migrated, with the same deps `npm start` builds. Offline models unless OPENAI_API_KEY is set.
 */
import { createDb, createPool } from '../../db/connect';
import { startAutoAnalyze } from '../../db/embedded/auto-analyze';
import { openEmbeddedDatabaseThread } from '../../db/embedded/database-thread';
import { migrateToLatest } from '../../db/migrate';
import type { DatabaseHandle } from '../../db/open-database';
import { loadConfig } from '../../src/config';
import type { AppDeps } from '../../src/context';
import { graphileJobQueue } from '../../src/jobs/enqueue';
import { createLogger } from '../../src/logger';
import { createAiDeps } from '../../src/runtime';
import { startGuardedCluster } from '../../test/infra/run-cleanup';

export type BenchDb = 'embedded' | 'postgres';

/** `url`: a PostgreSQL database to use as it is (a kept benchmark database); else TEST_DATABASE_URL or a throwaway cluster. */
export async function openBenchRuntime(kind: BenchDb, env: Record<string, string> = {}, opts: { url?: string } = {}) {
  const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '100000000', DATA_DIR: '/nonexistent', ...env, ...(process.env.OPENAI_API_KEY ? { OPENAI_API_KEY: process.env.OPENAI_API_KEY } : {}) });
  let database: DatabaseHandle;
  let stopCluster = () => {};
  if (kind === 'embedded') {
    const embedded = await openEmbeddedDatabaseThread({ dataDir: null }); // in its thread, as `npm start` runs it
    const pool = createPool(embedded.connectionString, 10, { embedded: true });
    const db = createDb(pool);
    const analyzer = startAutoAnalyze(pool, createLogger('warn', { stderr: true })); // as db/open-database.ts does
    const close = async () => (await analyzer.stop(), await db.destroy(), await embedded.close());
    database = { db, pool, connectionString: embedded.connectionString, mode: 'embedded', close };
  } else {
    const given = opts.url ?? process.env.TEST_DATABASE_URL;
    const cluster = given ? null : await startGuardedCluster();
    const url = given ?? cluster!.url;
    stopCluster = () => cluster?.stop();
    // The pool `npm start` would open (DATABASE_POOL_SIZE; src/config.ts has its default).
    const pool = createPool(url, config.databasePoolSize);
    const db = createDb(pool);
    database = { db, pool, connectionString: url, mode: 'postgres', close: async () => db.destroy() };
  }
  await migrateToLatest(database.db, database.pool);
  const logger = createLogger(config.logLevel, { stderr: true });
  const deps: AppDeps = { db: database.db, config, logger, ...createAiDeps(config), jobs: graphileJobQueue };
  return {
    deps,
    database,
    async close() {
      await database.close();
      stopCluster();
    },
  };
}
