/**
 * Opens the service's database from config: real PostgreSQL when DATABASE_URL is set, otherwise the
 * embedded PGlite under DATA_DIR served over the wire protocol from a worker thread of this process
 * (db/embedded/database-thread.ts), so no statement ever runs on the caller's event loop.
 *
 * A second process (the CLI) must never open a data directory a running server holds: PGlite has
 * no locking of its own and two writers corrupt it. So `attach: true` connects to the running
 * server's wire port, recorded in the lock file, instead.
 */
import type pg from 'pg';
import type { Config } from '../src/config';
import type { Logger } from '../src/logger';
import { createDb, createPool, type Db } from './connect';
import { openEmbeddedDatabaseThread } from './embedded/database-thread';
import { embeddedTemplate } from './embedded/template';
import { EmbeddedDatabaseLockedError, readRunningServer } from './embedded/open-embedded';
import { startAutoAnalyze } from './embedded/auto-analyze';
import { acquireDataDirLock } from './embedded/data-dir-lock';
import { unlockStaleJobs } from './embedded/unlock-stale-jobs';
import { migrateToLatest } from './migrate';

export type DatabaseMode = 'postgres' | 'embedded' | 'embedded-attached';

export type DatabaseHandle = {
  db: Db;
  pool: pg.Pool;
  connectionString: string;
  mode: DatabaseMode;
  close(): Promise<void>;
};

export async function openDatabase(
  config: Config,
  logger: Logger,
  opts: {
    migrate?: boolean;
    attach?: boolean;
    /** The embedded database's thread died: every query fails from now on (src/runtime.ts exits). */
    onLost?: (err: Error) => void;
  } = {},
): Promise<DatabaseHandle> {
  const { migrate = true, attach = false } = opts;
  let connectionString: string;
  let mode: DatabaseMode;
  let closeEmbedded = async () => {};

  if (config.database.kind === 'postgres') {
    connectionString = config.database.url;
    mode = 'postgres';
  } else {
    const running = attach ? await waitForRunningServer(config.database.dataDir) : null;
    if (running) {
      connectionString = `postgres://postgres@127.0.0.1:${running.port}/postgres`;
      mode = 'embedded-attached';
      logger.debug({ pid: running.pid, port: running.port }, 'attached to the running embedded database');
    } else {
      const started = Date.now();
      const embedded = await openEmbeddedDatabaseThread({ dataDir: config.database.dataDir, logger, onExit: opts.onLost, newClusterTemplate: embeddedTemplate() });
      connectionString = embedded.connectionString;
      mode = 'embedded';
      closeEmbedded = () => embedded.close();
      logger.info({ dataDir: config.database.dataDir, ms: Date.now() - started }, 'embedded database open');
    }
  }

  const pool = createPool(connectionString, mode === 'postgres' ? config.databasePoolSize : 10, { embedded: mode !== 'postgres' });
  const db = createDb(pool);
  try {
    if (migrate) await migrateToLatest(db, pool, { exclusive: mode === 'postgres' });
    // We hold the data directory's lock, so any job still marked locked belongs to a dead worker.
    if (mode === 'embedded') await unlockStaleJobs(pool);
  } catch (err) {
    await db.destroy().catch(() => {});
    await closeEmbedded();
    throw err;
  }

  // PGlite has no autovacuum; without statistics the planner skips the vector index.
  const analyzer = mode === 'embedded' ? startAutoAnalyze(pool, logger) : null;

  return {
    db,
    pool,
    connectionString,
    mode,
    async close() {
      await analyzer?.stop();
      await db.destroy(); // also ends the pool
      await closeEmbedded();
    },
  };
}

/**
 * The running server's wire port, if a server holds the directory. A server that holds the lock
 * but has not published its port yet is still starting: wait for it rather than fail.
 */
async function waitForRunningServer(dataDir: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const running = readRunningServer(dataDir);
    if (running) return running;
    try {
      // Probe the lock without keeping it: free means no server, so the caller opens the directory.
      acquireDataDirLock(dataDir).release();
      return null;
    } catch (err) {
      if (!(err instanceof EmbeddedDatabaseLockedError) || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}
