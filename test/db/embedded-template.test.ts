/**
 * The migrated cluster a new embedded data directory starts from (db/embedded/template.ts): found
 * by the key of this code, loaded only where there is no cluster yet, and never the reason a start
 * fails.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openEmbeddedDatabaseThread } from '../../db/embedded/database-thread';
import { embeddedTemplate, ensureEmbeddedTemplate } from '../../db/embedded/template';
import { migrations } from '../../db/migrations/index';
import { tempDirMaker } from '../helpers/temp-dirs';

const tempDir = tempDirMaker('gw-template-');

async function query<T extends pg.QueryResultRow>(connectionString: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

const appliedMigrations = `select count(*)::int as n from kysely_migration`;
const hasMigrationTable = `select to_regclass('public.kysely_migration') is not null as present`;

// Opening PGlite takes seconds on a quiet machine and over a minute on a loaded one: wide margins.
describe('the new-cluster template', { timeout: 300_000 }, () => {
  it('is the one file of this code, built once (`npm test` built it before vitest)', async () => {
    const first = await ensureEmbeddedTemplate();
    const again = await ensureEmbeddedTemplate();
    expect(again).toEqual({ file: first.file, built: false });
    expect(embeddedTemplate()).toBe(first.file);
    expect(fs.readdirSync(path.dirname(first.file)).filter((f) => f.endsWith('.tar'))).toEqual([path.basename(first.file)]);
  });

  it('gives a new data directory every migration before any has run, and is not loaded over a cluster that exists', async () => {
    const { file } = await ensureEmbeddedTemplate();
    const dir = tempDir();
    const first = await openEmbeddedDatabaseThread({ dataDir: dir, newClusterTemplate: file });
    try {
      expect(await query(first.connectionString, appliedMigrations)).toEqual([{ n: Object.keys(migrations).length }]);
      await query(first.connectionString, `create table kept (id int); insert into kept values (7)`);
    } finally {
      await first.close();
    }
    const restarted = await openEmbeddedDatabaseThread({ dataDir: dir, newClusterTemplate: file });
    try {
      expect(await query(restarted.connectionString, `select id from kept`)).toEqual([{ id: 7 }]);
    } finally {
      await restarted.close();
    }
  });

  it('that does not load (not a tarball, or cut short) is set aside with a warning and the cluster is created as without one', async () => {
    const { file } = await ensureEmbeddedTemplate();
    const damaged = { garbage: Buffer.alloc(64 * 1024, 'not a tarball '), truncated: fs.readFileSync(file).subarray(0, 10_000_000) };
    for (const [kind, bytes] of Object.entries(damaged)) {
      const template = path.join(tempDir(), `${kind}.tar`);
      fs.writeFileSync(template, bytes);
      const warnings: unknown[] = [];
      const log = () => {};
      const embedded = await openEmbeddedDatabaseThread({ dataDir: tempDir(), newClusterTemplate: template, logger: { debug: log, info: log, error: log, warn: (obj: unknown) => warnings.push(obj) } });
      try {
        expect(await query(embedded.connectionString, hasMigrationTable), kind).toEqual([{ present: false }]);
        await query(embedded.connectionString, `select '[1,2,3]'::vector(3)`);
      } finally {
        await embedded.close();
      }
      expect(warnings, kind).toHaveLength(1);
    }
  });
});
