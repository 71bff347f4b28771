/**
 * Once per run of the `embedded` project: one in-memory PGlite, migrated, dumped to a tarball in a
 * temp directory. Each test file's embedded database then starts from it (loadDataDir) instead of
 * paying PGlite's initdb (~7 s of CPU) and our migrations (~1 s) again. The opener's own tests
 * (test/db/open-embedded.test.ts, database-thread.test.ts) call it directly and keep the cold path.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb, createPool } from '../../db/connect';
import { openEmbeddedDatabase } from '../../db/embedded/open-embedded';
import { migrateToLatest } from '../../db/migrate';

export type EmbeddedSnapshot = { path: string; remove(): void };

export async function createEmbeddedSnapshot(): Promise<EmbeddedSnapshot> {
  const embedded = await openEmbeddedDatabase({ dataDir: null });
  try {
    const pool = createPool(embedded.connectionString, 2, { embedded: true });
    const db = createDb(pool);
    try {
      await migrateToLatest(db, pool, { exclusive: false });
    } finally {
      await db.destroy();
    }
    // Uncompressed: every file loads it, and gunzip would cost each of them more than the disk does.
    const tarball = await embedded.pglite.dumpDataDir('none');
    const dir = mkdtempSync(join(tmpdir(), 'gw-embedded-snapshot-'));
    const path = join(dir, 'pgdata.tar');
    writeFileSync(path, new Uint8Array(await tarball.arrayBuffer()));
    return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
  } finally {
    await embedded.close();
  }
}
