/** Two releases racing (or web processes booting together) on a fresh database both migrate it, once. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, expect, inject, it } from 'vitest';
import { createDb, createPool } from '../../db/connect';
import { migrateToLatest } from '../../db/migrate';
import { migrations } from '../../db/migrations/index';
import { withDatabase } from '../infra/global-setup';

const adminUrl = inject('pgAdminUrl');
const name = `gw_race_${randomBytes(5).toString('hex')}`;

async function admin(sql: string) {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    return await c.query(sql);
  } finally {
    await c.end();
  }
}

afterAll(() => admin(`drop database if exists ${name} with (force)`));

it('two concurrent migrations of an empty database both succeed and apply each migration once', async () => {
  await admin(`create database ${name}`);
  // Pools of one connection: the lock must not need a second one from the pool.
  const processes = [1, 2].map(() => {
    const pool = createPool(withDatabase(adminUrl, name), 1);
    return { pool, db: createDb(pool) };
  });
  try {
    const results = await Promise.all(processes.map(({ db, pool }) => migrateToLatest(db, pool)));
    const applied = results.flatMap((r) => r.applied);
    expect(applied.sort()).toEqual(Object.keys(migrations).sort());
    const { rows } = await processes[0]!.pool.query<{ name: string; n: number }>('select name, count(*)::int as n from kysely_migration group by name');
    expect(rows).toHaveLength(Object.keys(migrations).length);
    expect(rows.every((r) => r.n === 1)).toBe(true);
    const worker = await processes[0]!.pool.query<{ n: number }>("select count(*)::int as n from graphile_worker.migrations");
    expect(worker.rows[0]!.n).toBeGreaterThan(0);
  } finally {
    await Promise.all(processes.map(({ db }) => db.destroy()));
  }
});
