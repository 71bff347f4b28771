/**
 * Brings a database up to date: our Kysely migrations, then graphile-worker's own schema.
 * Safe to run on every start and from the Procfile's release phase.
 */
import { Logger as WorkerLogger, runMigrations as runWorkerMigrations } from 'graphile-worker';
import { Migrator } from 'kysely';
import type pg from 'pg';
import type { Db } from './connect';
import { migrations } from './migrations/index';

export const silentWorkerLogger = new WorkerLogger(() => () => {});

function migrator(db: Db) {
  return new Migrator({ db, provider: { getMigrations: async () => migrations } });
}

export async function migrateToLatest(db: Db, pool: pg.Pool): Promise<{ applied: string[] }> {
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
