/**
 * An exclusive lock on an embedded data directory. PGlite does not lock its data directory and two
 * processes writing it corrupt the database, so whoever opens it first creates `groundwork.lock`
 * holding its pid and, once listening, its wire port. Another process (the CLI) reads the port and
 * connects to the running server instead of opening the directory.
 *
 * Creation is atomic with its content: the lock is written to a temporary file and hard-linked into
 * place, and link(2) fails if the lock exists. A lock whose pid is dead is stale and taken over. Two
 * processes taking over the same stale lock at the same instant is the one race left; both would
 * have to start within microseconds of each other after a crash.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isAlive } from '../../src/process-alive';

export const LOCK_FILE_NAME = 'groundwork.lock';

export type LockInfo = { pid: number; port: number | null; startedAt: string };

export type DataDirLock = {
  readonly path: string;
  /** Records the wire port so other processes can connect. */
  setPort(port: number): void;
  release(): void;
};

export class EmbeddedDatabaseLockedError extends Error {
  override name = 'EmbeddedDatabaseLockedError';
  constructor(
    readonly dataDir: string,
    readonly pid: number,
    readonly port: number | null,
  ) {
    super(
      `The embedded database in ${dataDir} is in use by process ${pid}` +
        (port ? ` (wire port ${port})` : ' (still starting)') +
        `. Stop that process, or connect to its wire port. If no such process is running, delete ${path.join(dataDir, LOCK_FILE_NAME)}.`,
    );
  }
}

/** Where PGlite keeps its files under a data directory; undefined keeps them in memory. */
export function pgdataOf(dataDir: string | null): string | undefined {
  return dataDir === null ? undefined : path.join(dataDir, 'pgdata');
}

export function lockPath(dataDir: string): string {
  return path.join(dataDir, LOCK_FILE_NAME);
}

/** Throws EmbeddedDatabaseLockedError when a live process holds the directory. */
export function acquireDataDirLock(dataDir: string): DataDirLock {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = lockPath(dataDir);
  const info: LockInfo = { pid: process.pid, port: null, startedAt: new Date().toISOString() };

  for (let attempt = 0; ; attempt++) {
    if (tryCreate(file, info)) break;
    const holder = readLock(file);
    if (holder && isAlive(holder.pid)) throw new EmbeddedDatabaseLockedError(dataDir, holder.pid, holder.port);
    if (attempt >= 3) throw new Error(`Could not take over the stale lock ${file}`);
    removeIfUnchanged(file, holder);
  }

  let held = true;
  return {
    path: file,
    setPort(port) {
      info.port = port;
      writeAtomically(file, info, (tmp) => fs.renameSync(tmp, file));
    },
    release() {
      if (!held) return;
      held = false;
      // Only remove our own lock: after a takeover by someone else it is no longer ours.
      if (readLock(file)?.pid === process.pid) fs.rmSync(file, { force: true });
    },
  };
}

/** The live process holding `dataDir` and its wire port, or null when none is running and listening. */
export function readRunningServer(dataDir: string): { pid: number; port: number } | null {
  const holder = readLock(lockPath(dataDir));
  if (!holder || holder.port === null || !isAlive(holder.pid)) return null;
  return { pid: holder.pid, port: holder.port };
}

function tryCreate(file: string, info: LockInfo): boolean {
  try {
    writeAtomically(file, info, (tmp) => fs.linkSync(tmp, file));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

function writeAtomically(file: string, info: LockInfo, place: (tmp: string) => void): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(info));
  try {
    place(tmp);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

function readLock(file: string): LockInfo | null {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<LockInfo>;
    if (typeof parsed.pid !== 'number') return null;
    return { pid: parsed.pid, port: typeof parsed.port === 'number' ? parsed.port : null, startedAt: String(parsed.startedAt) };
  } catch {
    return null; // missing or unreadable: treated as stale
  }
}

function removeIfUnchanged(file: string, seen: LockInfo | null): void {
  const now = readLock(file);
  if (now && seen && (now.pid !== seen.pid || now.startedAt !== seen.startedAt)) return; // someone else's, retry
  fs.rmSync(file, { force: true });
}
