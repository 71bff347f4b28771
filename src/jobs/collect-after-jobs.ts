/**
 * A full garbage collection after a job that left the worker's heap much bigger than it was.
 *
 * Why: V8 collects its old generation when allocation reaches a limit, never because the isolate
 * went idle (Node does not tell it). One 24 MB text file of a single long line makes ~570 MB of
 * garbage while it is decoded, tidied and chunked; the worker then waited for its next job with
 * that heap, 1.1 GB RSS, for as long as nothing else allocated (40 s and more, measured; issue 26's
 * "back under 800 MB within a minute").
 *
 * When: at the end of a job, if the heap is over FLOOR_BYTES (an idle worker's is ~50 MB) and at
 * least twice what it was after the last such collection, so that each collection frees at least
 * as much as the heap keeps. One costs this thread, never the web thread, ~20 ms (566 MB of heap,
 * 62 MB of it live).
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { WorkerEvents } from 'graphile-worker';

export const FLOOR_BYTES = 128 * 1024 * 1024;

/**
 * The `gc` function without starting Node with --expose-gc: the flag is set for the one context
 * made here and unset at once, so no other context (pdf.js, jsdom, another thread's) gains a `gc`.
 */
export function exposedGc(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return existing;
  setFlagsFromString('--expose-gc');
  try {
    return runInNewContext('gc') as () => void;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

/** Decides after each job; `heapUsed` and `collect` are what tests replace. */
export function garbageCollector(opts: { floorBytes?: number; heapUsed?: () => number; collect?: () => void } = {}) {
  const floor = opts.floorBytes ?? FLOOR_BYTES;
  const heapUsed = opts.heapUsed ?? (() => getHeapStatistics().used_heap_size);
  let collect = opts.collect;
  let liveAfterLast = 0;
  return {
    /** True when it collected. */
    afterJob(): boolean {
      if (heapUsed() < Math.max(floor, 2 * liveAfterLast)) return false;
      collect ??= exposedGc();
      collect();
      liveAfterLast = heapUsed();
      return true;
    },
  };
}

export function collectAfterBigJobs(events: WorkerEvents, collector: Pick<ReturnType<typeof garbageCollector>, 'afterJob'> = garbageCollector()): void {
  events.on('job:complete', () => void collector.afterJob());
}
