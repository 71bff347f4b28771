/**
 * The embedded database in its worker thread (db/embedded/database-thread.ts): the data-directory
 * lock as before, statements that no longer hold the caller's event loop, a failed start that
 * leaves nothing behind, and a dying thread that fails queries at once and says so.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { lockPath } from '../../db/embedded/data-dir-lock';
import { openEmbeddedDatabaseThread } from '../../db/embedded/database-thread';
import { EmbeddedDatabaseLockedError, openEmbeddedDatabase, readRunningServer } from '../../db/embedded/open-embedded';
import { isMigrated } from '../../db/migrate';
import { longestLoopGap } from '../helpers/loop-gap';
import { createTestDatabase } from '../helpers/test-database';
import { tempDirMaker } from '../helpers/temp-dirs';

const tempDir = tempDirMaker('gw-db-thread-');

/**
 * The run's migrated snapshot (the new-cluster template, db/embedded/template.ts) as a tarball, for the tests about
 * the thread rather than about initdb: a cold PGlite start is ~7 s of CPU, minutes at load, and this
 * file paid it eight times. Undefined outside the embedded project (then those tests start cold).
 */
function runSnapshot(): Uint8Array<ArrayBuffer> | undefined {
  const snapshot = inject('embeddedSnapshot');
  return snapshot ? new Uint8Array(fs.readFileSync(snapshot)) : undefined;
}

// Opening PGlite takes seconds on a quiet machine and over a minute on a loaded one: wide margins.
describe('openEmbeddedDatabaseThread', { timeout: 300_000 }, () => {
  it('holds the data directory, serves queries from its thread, and gives the directory back on close', async () => {
    const dir = tempDir();
    const embedded = await openEmbeddedDatabaseThread({ dataDir: dir });
    let thread = embedded.thread;
    try {
      expect(readRunningServer(dir)).toEqual({ pid: process.pid, port: embedded.port });
      await expect(openEmbeddedDatabase({ dataDir: dir })).rejects.toBeInstanceOf(EmbeddedDatabaseLockedError);
      await expect(openEmbeddedDatabaseThread({ dataDir: dir })).rejects.toBeInstanceOf(EmbeddedDatabaseLockedError);

      const pool = new pg.Pool({ connectionString: embedded.connectionString, max: 2 });
      await pool.query('create table notes (id int primary key, embedding vector(3))');
      await pool.query(`insert into notes values (1, '[1,2,3]')`);
      await pool.end();
    } finally {
      await embedded.close();
    }
    expect(fs.existsSync(lockPath(dir))).toBe(false);
    expect(thread.threadId).toBe(-1); // the thread has ended

    const reopened = await openEmbeddedDatabaseThread({ dataDir: dir });
    thread = reopened.thread;
    try {
      const client = new pg.Client({ connectionString: reopened.connectionString });
      await client.connect();
      const { rows } = await client.query(`select id, embedding <-> '[1,2,4]' as distance from notes`);
      await client.end();
      expect(rows).toEqual([{ id: 1, distance: 1 }]);
    } finally {
      await reopened.close();
    }
  });

  it("runs a long statement without holding the caller's event loop", async () => {
    const embedded = await openEmbeddedDatabaseThread({ dataDir: null, loadDataDir: runSnapshot() });
    const client = new pg.Client({ connectionString: embedded.connectionString });
    try {
      await client.connect();
      let statementMs = 0;
      const maxGap = await longestLoopGap(async () => {
        const t0 = performance.now();
        await client.query('select count(*) from generate_series(1, 4000000) g where g % 7 = 3');
        statementMs = performance.now() - t0;
      });
      // In the caller's thread the loop would wait the whole statement: the gap would be ~statementMs.
      expect(statementMs).toBeGreaterThan(100);
      expect(maxGap).toBeLessThan(statementMs / 2);
    } finally {
      await client.end().catch(() => {});
      await embedded.close();
    }
  });

  it('fails to open cleanly: the error comes back and the lock is released', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'pgdata'), 'not a directory');
    await expect(openEmbeddedDatabaseThread({ dataDir: dir })).rejects.toThrow();
    expect(fs.existsSync(lockPath(dir))).toBe(false);
  });

  it('reports a dying thread once, and queries fail at once instead of hanging', async () => {
    const lost: Error[] = [];
    const logged: string[] = [];
    const logger = { debug() {}, info() {}, warn() {}, error: (_: unknown, msg?: string) => void logged.push(msg ?? '') };
    const embedded = await openEmbeddedDatabaseThread({ dataDir: null, loadDataDir: runSnapshot(), logger: logger as never, onExit: (err) => lost.push(err) });
    const pool = new pg.Pool({ connectionString: embedded.connectionString, max: 2 });
    pool.on('error', () => {});
    try {
      await pool.query('select 1');
      const busy = pool.query('select count(*) from generate_series(1, 50000000)').then(
        () => null,
        (err: Error) => err,
      );
      await new Promise((r) => setTimeout(r, 50));
      await embedded.thread.terminate(); // as a WASM abort or an escaped exception would end it

      expect(await busy).toBeInstanceOf(Error);
      await expect(pool.query('select 1')).rejects.toThrow(/ECONNREFUSED|terminated|closed|ECONNRESET/);
      expect(lost).toHaveLength(1);
      expect(lost[0]!.message).toMatch(/embedded database thread exited/);
      expect(logged).toContain('embedded database thread died');
    } finally {
      await pool.end().catch(() => {});
      await embedded.close(); // after a death: nothing left to close, and no second report
    }
    expect(lost).toHaveLength(1);
  });

  it('starts from a dumpDataDir() tarball: its tables and pgvector are there, no initdb', async () => {
    const source = await openEmbeddedDatabase({ dataDir: null });
    let tarball: Uint8Array<ArrayBuffer>;
    try {
      await source.pglite.exec(`create table notes (id int primary key, embedding vector(3)); insert into notes values (1, '[1,2,3]')`);
      tarball = new Uint8Array(await (await source.pglite.dumpDataDir('none')).arrayBuffer());
    } finally {
      await source.close();
    }
    const embedded = await openEmbeddedDatabaseThread({ dataDir: null, loadDataDir: tarball });
    try {
      const client = new pg.Client({ connectionString: embedded.connectionString });
      await client.connect();
      const { rows } = await client.query(`select id, embedding <-> '[1,2,4]' as distance from notes`);
      await client.end();
      expect(rows).toEqual([{ id: 1, distance: 1 }]);
    } finally {
      await embedded.close();
    }
  });

  it('refuses a tarball over a data directory that already holds a database, and releases the lock', async () => {
    const dir = tempDir();
    await (await openEmbeddedDatabaseThread({ dataDir: dir })).close();
    let tarball = runSnapshot();
    if (!tarball) {
      const source = await openEmbeddedDatabase({ dataDir: null });
      tarball = new Uint8Array(await (await source.pglite.dumpDataDir('none')).arrayBuffer());
      await source.close();
    }
    await expect(openEmbeddedDatabaseThread({ dataDir: dir, loadDataDir: tarball })).rejects.toThrow(/already exists/);
    expect(fs.existsSync(lockPath(dir))).toBe(false);
  });
});

describe('createTestDatabase on the embedded project', () => {
  it('opens from the run snapshot fully migrated, graphile-worker schema included', async () => {
    expect(inject('embeddedSnapshot')).toMatch(/embedded-template\/[0-9a-f]{16}\.tar$/); // global setup found or made one
    const handle = await createTestDatabase('embedded');
    try {
      expect(await isMigrated(handle.db)).toBe(true);
      const { rows } = await handle.pool.query(`select count(*)::int as n from graphile_worker.migrations`);
      expect(rows[0].n).toBeGreaterThan(0);
      await handle.pool.query(`select '[1,2,3]'::vector(3)`);
    } finally {
      await handle.close();
    }
  });
});
