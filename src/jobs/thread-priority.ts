/**
 * Lowers the calling thread's CPU priority. Linux keeps a nice value per thread, and
 * setpriority(PRIO_PROCESS, tid) sets it for that thread alone, so the inline worker's thread can
 * yield the cores to the web thread and the embedded database's thread: on a busy 2-core machine
 * a PDF being parsed then delays no HTTP, SSE or voice frame, and it still gets every cycle the
 * others leave idle. Child processes the thread spawns (OCR) inherit the value.
 *
 * Returns the thread's id, or null where threads have no nice value of their own (not Linux) or
 * the call is refused; ingestion then runs at the process's priority, as before.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

export function lowerThreadPriority(nice: number): number | null {
  try {
    // "<pid>/task/<tid>": the kernel's name for the calling thread.
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return null;
    setPriority(tid, nice);
    return tid;
  } catch {
    return null;
  }
}
