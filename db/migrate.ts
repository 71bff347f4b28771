/**
 * Brings a database up to date: our Kysely migrations, then graphile-worker's own schema.
 * Safe to run on every start and from the Procfile's release phase, also when several processes
 * start at once (two releases racing, web processes booting together): on PostgreSQL they take
 * turns under an advisory lock, so each migration is applied once and the later ones find nothing
 * left to do. Without it two `create table if not exists` of Kysely's bookkeeping table, or two
 * graphile-worker schema installs, can collide and fail a deploy.
 */
import { Logger as WorkerLogger, runMigrations as runWorkerMigrations } from 'graphile-worker';
import { Migrator } from 'kysely';
import pg from 'pg';
import type { Db } from './connect';
import { migrations } from './migrations/index';

export const silentWorkerLogger = new WorkerLogger(() => () => {});

function migrator(db: Db) {
  return new Migrator({ db, provider: { getMigrations: async () => migrations } });
}

/** Arbitrary, fixed: the advisory lock key every Groundwork process migrates under. */
export const MIGRATION_LOCK_KEY = 4_711_202_611;

/**
 * `exclusive: false` skips the advisory lock, for the embedded database: one process owns it (its
 * directory lock says so) and all its connections share one session, where the lock means nothing.
 */
export async function migrateToLatest(db: Db, pool: pg.Pool, opts: { exclusive?: boolean } = {}): Promise<{ applied: string[] }> {
  if (opts.exclusive === false) return migrate(db, pool);
  // A session lock on a connection outside the pool, so the migrations have the whole pool (even a
  // pool of one). If this process dies, PostgreSQL drops the connection and with it the lock.
  const holder = new pg.Client({ connectionString: pool.options.connectionString });
  await holder.connect();
  holder.on('error', () => {});
  try {
    await holder.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      return await migrate(db, pool);
    } finally {
      await holder.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await holder.end().catch(() => {});
  }
}

async function migrate(db: Db, pool: pg.Pool): Promise<{ applied: string[] }> {
  const result = await migrator(db).migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error');
    const reason = result.error instanceof Error ? result.error.message : String(result.error);
    throw new Error(`Migration ${failed?.migrationName ?? '(unknown)'} failed: ${reason}`);
  }
  await runWorkerMigrations({ pgPool: pool, logger: silentWorkerLogger });
  return { applied: (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}

/** True when every migration we ship has been applied (used by /readyz). */
export async function isMigrated(db: Db): Promise<boolean> {
  const all = await migrator(db).getMigrations();
  return all.every((m) => m.executedAt !== undefined);
}
