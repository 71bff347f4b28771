/**
 * An isolated, migrated database for one test file: a clone of the run's template on PostgreSQL,
 * or a fresh in-memory embedded PGlite served over its wire protocol (TEST_DB=embedded).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createDb, createPool, type Db } from '../../db/connect';
import { migrateToLatest } from '../../db/migrate';
import type { DatabaseHandle } from '../../db/open-database';
import { withDatabase } from '../infra/global-setup';

export type TestDbKind = 'postgres' | 'embedded';
export const testDbKind: TestDbKind = process.env.TEST_DB === 'embedded' ? 'embedded' : 'postgres';

export async function createTestDatabase(kind: TestDbKind = testDbKind): Promise<DatabaseHandle> {
  if (kind === 'embedded') {
    // In its own thread, as `npm start` runs it (db/open-database.ts).
    const { openEmbeddedDatabaseThread } = await import('../../db/embedded/database-thread');
    const embedded = await openEmbeddedDatabaseThread({ dataDir: null });
    const pool = createPool(embedded.connectionString, 10, { embedded: true });
    const db = createDb(pool);
    await migrateToLatest(db, pool, { exclusive: false });
    return {
      db,
      pool,
      connectionString: embedded.connectionString,
      mode: 'embedded',
      async close() {
        await db.destroy();
        await embedded.close();
      },
    };
  }
  const adminUrl = inject('pgAdminUrl');
  const name = `gw_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name} template ${inject('pgTemplate')}`);
  await admin.end();
  const connectionString = withDatabase(adminUrl, name);
  const pool = createPool(connectionString, 10);
  const db: Db = createDb(pool);
  return {
    db,
    pool,
    connectionString,
    mode: 'postgres',
    async close() {
      await db.destroy();
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}
