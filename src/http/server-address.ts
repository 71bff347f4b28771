/**
 * Where the running server on an embedded data directory can be reached. Only the server knows its
 * port (PORT=0 picks one, and the shell that started it may set PORT when the CLI's does not), so
 * once listening it records its address beside the database's lock; `dashboard link` reads it
 * instead of guessing from its own configuration (it printed :3000 for a server on another port).
 */
import fs from 'node:fs';
import path from 'node:path';
import { isAlive } from '../process-alive';

export const SERVER_ADDRESS_FILE = 'groundwork.http.json';

type Recorded = { pid: number; url: string };

const fileOf = (dataDir: string) => path.join(dataDir, SERVER_ADDRESS_FILE);

/** Written atomically (rename), so a reader never sees half a file. */
export function recordServerAddress(dataDir: string, url: string): void {
  const file = fileOf(dataDir);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify({ pid: process.pid, url } satisfies Recorded));
  fs.renameSync(tmp, file);
}

/** Removes the record if it is this process's (another server may have started on the directory since). */
export function clearServerAddress(dataDir: string): void {
  if (read(dataDir)?.pid === process.pid) fs.rmSync(fileOf(dataDir), { force: true });
}

/** The address of the live server recorded in `dataDir`, or null (none, or its process is gone). */
export function runningServerAddress(dataDir: string): string | null {
  const recorded = read(dataDir);
  return recorded && isAlive(recorded.pid) ? recorded.url : null;
}

function read(dataDir: string): Recorded | null {
  try {
    const parsed = JSON.parse(fs.readFileSync(fileOf(dataDir), 'utf8')) as Partial<Recorded>;
    return typeof parsed.pid === 'number' && typeof parsed.url === 'string' ? { pid: parsed.pid, url: parsed.url } : null;
  } catch {
    return null;
  }
}
