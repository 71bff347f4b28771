/**
 * An isolated, migrated database for one test file: a clone of the run's template on PostgreSQL,
 * or an in-memory embedded PGlite served over its wire protocol (TEST_DB=embedded), started from the
 * run's migrated snapshot.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
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
    // In its own thread, as `npm start` runs it (db/open-database.ts). In the `embedded` project it
    // starts from the run's migrated snapshot (db/embedded/template.ts), skipping initdb
    // and migrations; elsewhere it is created and migrated here.
    const { openEmbeddedDatabaseThread } = await import('../../db/embedded/database-thread');
    const snapshot = inject('embeddedSnapshot');
    const loadDataDir = snapshot ? new Uint8Array(await readFile(snapshot)) : undefined;
    const embedded = await openEmbeddedDatabaseThread({ dataDir: null, loadDataDir });
    const pool = createPool(embedded.connectionString, 10, { embedded: true });
    const db = createDb(pool);
    if (!loadDataDir) await migrateToLatest(db, pool, { exclusive: false });
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
