/**
 * Opens the embedded database: PGlite (PostgreSQL in WASM) with pgvector, persisted under
 * `${dataDir}/pgdata` (or in memory), served over the Postgres wire protocol on a loopback port in
 * this process, so `pg`/Kysely and graphile-worker use it exactly like a real PostgreSQL.
 *
 * Guarantees: while open, this process holds `${dataDir}/groundwork.lock` and no other process can
 * open the directory; `close()` stops the wire server, closes PGlite, then releases the lock.
 *
 * Durability: PGlite runs Postgres with fsync off (its fixed `-F` start parameter). A committed
 * transaction is in the OS page cache, so it survives the process crashing, but not necessarily
 * the machine losing power. Use DATABASE_URL with a real PostgreSQL where that matters.
 */
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import type { Logger } from '../../src/logger';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock';
import { startWireServer, type WireServer } from './wire-server';

export { EmbeddedDatabaseLockedError, readRunningServer } from './data-dir-lock';

export type OpenEmbeddedOptions = {
  /** Directory holding the lock file and `pgdata/`; null keeps the database in memory (tests). */
  dataDir: string | null;
  logger?: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
};

export type EmbeddedDatabase = {
  pglite: PGlite;
  /** `postgres://postgres@127.0.0.1:<port>/postgres`; no password, loopback only. */
  connectionString: string;
  port: number;
  close(): Promise<void>;
};

export async function openEmbeddedDatabase({ dataDir, logger }: OpenEmbeddedOptions): Promise<EmbeddedDatabase> {
  // Lock first: even reading a directory another process is writing can fail in odd ways.
  const lock: DataDirLock | null = dataDir === null ? null : acquireDataDirLock(dataDir);
  let pglite: PGlite | undefined;
  let server: WireServer | undefined;
  try {
    const started = performance.now();
    pglite = await PGlite.create({
      dataDir: dataDir === null ? undefined : path.join(dataDir, 'pgdata'),
      extensions: { vector },
    });
    await pglite.exec('CREATE EXTENSION IF NOT EXISTS vector');
    server = await startWireServer(pglite, { logger });
    lock?.setPort(server.port);
    logger?.debug({ dataDir, port: server.port, ms: Math.round(performance.now() - started) }, 'embedded database started');
  } catch (err) {
    await server?.close().catch(() => {});
    await pglite?.close().catch(() => {});
    lock?.release();
    throw err;
  }

  const db = pglite;
  const wire = server;
  let closing: Promise<void> | undefined;
  return {
    pglite: db,
    connectionString: wire.connectionString,
    port: wire.port,
    close() {
      closing ??= (async () => {
        try {
          await wire.close(); // rolls back what disconnected clients left open
          await db.close();
        } finally {
          lock?.release();
        }
      })();
      return closing;
    },
  };
}
