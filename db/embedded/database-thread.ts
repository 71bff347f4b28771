/**
 * The embedded database in a worker thread: PGlite and its wire server (open-embedded.ts) run
 * there, and this thread reaches them over the loopback port exactly as before. PGlite runs every
 * statement synchronously in WASM, so in the web process's own thread a statement stalled HTTP,
 * SSE and voice frames for as long as it ran (a 25-row insert into the 619-page PDF's chunks: up to
 * ~¼ s under `npm run bench -- voice --db embedded --ingest`); in its own thread it stalls only the
 * statements queued behind it.
 *
 * Guarantees, as openEmbeddedDatabase's: while open, this process holds `${dataDir}/groundwork.lock`
 * (taken here, in the owner's thread, before the worker starts) with the wire port in it; `close()`
 * closes the wire server and PGlite in the thread, ends the thread, then releases the lock.
 *
 * If the thread dies (a WASM abort, an exception escaping PGlite, out of memory), its sockets close
 * with it, so every client's query fails at once rather than hang, and `onExit` is called with the
 * reason. The entry points exit the process then (src/runtime.ts): the process manager restarts
 * it, and the next start recovers the data directory and releases the jobs left locked. Restarting
 * the thread in place was not done: every pooled connection, LISTEN and open transaction of the old
 * one is gone, and a half-recovered in-process state is harder to trust than a fresh process.
 */
import { Worker } from 'node:worker_threads';
import type { Logger } from '../../src/logger';
import { acquireDataDirLock, pgdataOf, type DataDirLock } from './data-dir-lock';
import { THREAD_BOOT, threadEntry } from '../../src/repo-root';

export type ThreadLogger = Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;

/** Messages between the owner and the thread (database-thread.worker.ts). */
export type ToThread = { type: 'close' };
export type FromThread =
  | { type: 'ready'; port: number }
  | { type: 'failed'; error: { name: string; message: string; stack?: string } }
  | { type: 'log'; level: keyof ThreadLogger; obj: unknown; msg?: string }
  | { type: 'closed' };

/** What the thread starts with (its workerData). */
export type ThreadData = { entry: string; pgdata: string | undefined; loadDataDir: Uint8Array<ArrayBuffer> | undefined; newClusterTemplate: string | undefined };

export type EmbeddedDatabaseThread = {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`; no password, loopback only. */
  connectionString: string;
  port: number;
  /** The thread itself, for diagnostics and tests (terminate() simulates a crash). */
  thread: Worker;
  close(): Promise<void>;
};

export type OpenEmbeddedThreadOptions = {
  /** Directory holding the lock file and `pgdata/`; null keeps the database in memory (tests). */
  dataDir: string | null;
  logger?: ThreadLogger;
  /** The thread ended without close(): the database is gone. Called once. */
  onExit?: (err: Error) => void;
  /**
   * Start from this `dumpDataDir()` tarball instead of initdb (servePglite's loadDataDir): bytes
   * rather than a Blob so it crosses to the thread as a plain copy. Only for a new database.
   */
  loadDataDir?: Uint8Array<ArrayBuffer>;
  /** A migrated cluster's tarball that a data directory without a cluster starts from (template.ts). */
  newClusterTemplate?: string;
};

/** How long close() waits for PGlite to close cleanly before ending the thread anyway. */
const CLOSE_TIMEOUT_MS = 15_000;

const ENTRY = threadEntry('db/embedded/database-thread.worker.ts');

export async function openEmbeddedDatabaseThread({ dataDir, logger, onExit, loadDataDir, newClusterTemplate }: OpenEmbeddedThreadOptions): Promise<EmbeddedDatabaseThread> {
  const lock: DataDirLock | null = dataDir === null ? null : acquireDataDirLock(dataDir);
  const started = performance.now();
  // stdout/stderr go straight to the process's; env is shared so config reads the same values.
  const thread = new Worker(THREAD_BOOT, { workerData: { entry: ENTRY, pgdata: pgdataOf(dataDir), loadDataDir, newClusterTemplate } satisfies ThreadData });

  let state: 'starting' | 'open' | 'closing' | 'gone' = 'starting';
  let closed: () => void = () => {};
  const threadClosed = new Promise<void>((resolve) => (closed = resolve));
  let lastError: Error | null = null;

  const ready = new Promise<number>((resolve, reject) => {
    thread.on('message', (message: FromThread) => {
      if (message.type === 'log') logger?.[message.level](message.obj as object, message.msg);
      else if (message.type === 'ready') resolve(message.port);
      else if (message.type === 'failed') reject(Object.assign(new Error(message.error.message), { name: message.error.name, stack: message.error.stack }));
      else if (message.type === 'closed') closed();
    });
    thread.on('error', (err) => {
      lastError = err;
      reject(err);
    });
    thread.on('exit', (code) => {
      const was = state;
      state = 'gone';
      closed();
      const err = lastError ?? new Error(`embedded database thread exited with code ${code}`);
      reject(err);
      if (was === 'open') {
        logger?.error({ err, code }, 'embedded database thread died');
        onExit?.(err);
      }
    });
  });

  let port: number;
  try {
    port = await ready;
    state = 'open';
    lock?.setPort(port);
  } catch (err) {
    await thread.terminate();
    lock?.release();
    throw err;
  }
  logger?.debug({ dataDir, port, ms: Math.round(performance.now() - started) }, 'embedded database thread started');

  let closing: Promise<void> | undefined;
  return {
    connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    thread,
    close() {
      closing ??= (async () => {
        try {
          if (state !== 'open') return;
          state = 'closing';
          thread.postMessage({ type: 'close' } satisfies ToThread);
          let timer: NodeJS.Timeout | undefined;
          const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), CLOSE_TIMEOUT_MS)));
          const late = await Promise.race([threadClosed.then(() => false), timedOut]);
          clearTimeout(timer);
          if (late) logger?.warn({ ms: CLOSE_TIMEOUT_MS }, 'embedded database did not close in time; ending its thread');
        } finally {
          await thread.terminate();
          lock?.release();
        }
      })();
      return closing;
    },
  };
}
