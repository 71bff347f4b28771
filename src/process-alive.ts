/**
 * Whether a process exists, by pid: the data directory's lock (db/embedded/data-dir-lock.ts) and
 * the server's recorded address (src/http/server-address.ts) both ask it of a pid they read from a
 * file, so it sits below both.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
