import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Lowers the calling thread's priority (Linux keeps a nice value per thread, and a thread it starts
 * inherits it). Background parsing runs at nice 10: on an idle machine it still has a core, and when
 * the web thread or the database's thread want one, they get it first. Only for threads that hold
 * nothing another thread waits for (no database session, no lock), or the wait inverts: the
 * holder waits for a core behind the threads waiting for it. Elsewhere than Linux the thread keeps
 * the process's priority.
 */
export function niceThisThread(nice = 10): void {
  try {
    setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), nice);
  } catch {
    // Not Linux, or no /proc.
  }
}
