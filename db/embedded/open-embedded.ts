/**
 * Opens the embedded database: PGlite (PostgreSQL in WASM) with pgvector, persisted under
 * `${dataDir}/pgdata` (or in memory), served over the Postgres wire protocol on a loopback port in
 * the calling thread, so `pg`/Kysely and graphile-worker use it exactly like a real PostgreSQL.
 * The service runs it in a worker thread of its own (database-thread.ts, through servePglite);
 * openEmbeddedDatabase keeps it in the caller's thread, for tests that drive PGlite directly.
 *
 * Guarantees: while open, this process holds `${dataDir}/groundwork.lock` and no other process can
 * open the directory; `close()` stops the wire server, closes PGlite, then releases the lock.
 *
 * Durability: PGlite runs Postgres with fsync off (its fixed `-F` start parameter). A committed
 * transaction is in the OS page cache, so it survives the process crashing, but not necessarily
 * the machine losing power. Use DATABASE_URL with a real PostgreSQL where that matters.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import type { Logger } from '../../src/logger';
import { acquireDataDirLock, pgdataOf, type DataDirLock } from './data-dir-lock';
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
  let served: ServedPglite;
  try {
    served = await servePglite(pgdataOf(dataDir), logger);
    lock?.setPort(served.server.port);
  } catch (err) {
    lock?.release();
    throw err;
  }

  let closing: Promise<void> | undefined;
  return {
    pglite: served.pglite,
    connectionString: served.server.connectionString,
    port: served.server.port,
    close() {
      closing ??= served.close().finally(() => lock?.release());
      return closing;
    },
  };
}

export type ServedPglite = {
  pglite: PGlite;
  server: WireServer;
  /** Stops the wire server (rolling back what disconnected clients left open), then closes PGlite. */
  close(): Promise<void>;
};

export type ServePgliteOptions = {
  /**
   * A tarball from PGlite's `dumpDataDir()` to start from instead of running initdb: the tests open
   * one migrated snapshot per file this way (~8 s of CPU less each). Only for a new database: PGlite
   * refuses it when `pgdata` already holds one.
   */
  loadDataDir?: Blob;
  /**
   * A tarball of a migrated cluster (template.ts) that `pgdata` starts from when it holds no cluster
   * yet. Should it fail to load, the half-written directory is removed and initdb runs as without one.
   */
  newClusterTemplate?: string;
};

/**
 * PostgreSQL settings of the embedded cluster. PGlite's shared buffers live in its WebAssembly
 * memory, which is resident once touched and never shrinks: PostgreSQL's default of 128 MB made the
 * memory 189 MB from the start, 64 MB makes it 128 MB (PGlite's initial size), so once an attack
 * or a big ingestion has filled the buffers the process keeps 60 MB less (issue 26). Pages past the
 * buffers are read from the operating system's page cache, as they are on any PostgreSQL.
 */
export const EMBEDDED_SETTINGS = ['-c', 'shared_buffers=64MB'];

function openPglite(pgdata: string | undefined, loadDataDir: Blob | undefined): Promise<PGlite> {
  return PGlite.create({ dataDir: pgdata, extensions: { vector }, loadDataDir, startParams: [...PGlite.defaultStartParams, ...EMBEDDED_SETTINGS] });
}

async function createPglite(pgdata: string | undefined, opts: ServePgliteOptions, logger: OpenEmbeddedOptions['logger']): Promise<PGlite> {
  const template = opts.newClusterTemplate;
  if (opts.loadDataDir || !template || !pgdata || existsSync(path.join(pgdata, 'PG_VERSION'))) return openPglite(pgdata, opts.loadDataDir);
  try {
    const tarball = readFileSync(template);
    // Anything else PGlite takes for gzip, and its failed gunzip rejects where no caller can catch it.
    if (tarball.subarray(257, 262).toString('latin1') !== 'ustar') throw new Error('not an uncompressed tarball');
    return await openPglite(pgdata, new Blob([tarball]));
  } catch (err) {
    logger?.warn({ err, template }, 'the new-cluster template did not load; creating the cluster instead');
    rmSync(pgdata, { recursive: true, force: true });
    return openPglite(pgdata, undefined);
  }
}

/**
 * PGlite with pgvector, served over the wire protocol on a loopback port, both in the calling
 * thread. No lock: the caller holds the data directory's (openEmbeddedDatabase here, or the thread
 * owner in database-thread.ts).
 */
export async function servePglite(
  pgdata: string | undefined,
  logger?: OpenEmbeddedOptions['logger'],
  opts: ServePgliteOptions = {},
): Promise<ServedPglite> {
  let pglite: PGlite | undefined;
  let server: WireServer | undefined;
  try {
    const started = performance.now();
    pglite = await createPglite(pgdata, opts, logger);
    await pglite.exec('CREATE EXTENSION IF NOT EXISTS vector');
    server = await startWireServer(pglite, { logger });
    logger?.debug({ pgdata, port: server.port, ms: Math.round(performance.now() - started) }, 'embedded database started');
  } catch (err) {
    await server?.close().catch(() => {});
    await pglite?.close().catch(() => {});
    throw err;
  }
  const db = pglite;
  const wire = server;
  return {
    pglite: db,
    server: wire,
    async close() {
      await wire.close();
      await db.close();
    },
  };
}
