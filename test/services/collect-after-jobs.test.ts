/**
 * The worker collects its garbage after a job that left its heap big (src/jobs/collect-after-jobs.ts):
 * past the floor and at least twice the heap after its last collection, never after every small
 * job; the collection is V8's own and frees what the job dropped; no other context gains `gc`.
 */
import { EventEmitter } from 'node:events';
import { getHeapStatistics } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { WorkerEvents } from 'graphile-worker';
import { expect, it } from 'vitest';
import { collectAfterBigJobs, garbageCollector } from '../../src/jobs/collect-after-jobs';

const MB = 1024 * 1024;

it('collects past the floor, then again only once the heap has doubled since', () => {
  let heap = 100 * MB;
  let collections = 0;
  const collector = garbageCollector({ floorBytes: 256 * MB, heapUsed: () => heap, collect: () => ((collections++), (heap = 200 * MB)) });
  expect(collector.afterJob()).toBe(false);
  heap = 300 * MB;
  expect(collector.afterJob()).toBe(true);
  expect(collections).toBe(1);
  // 200 MB live after it: the next one waits for 400 MB, not the floor.
  heap = 390 * MB;
  expect(collector.afterJob()).toBe(false);
  heap = 410 * MB;
  expect(collector.afterJob()).toBe(true);
  expect(collections).toBe(2);
});

it("frees what a job dropped, with V8's collector, and leaves no `gc` in other contexts", () => {
  let garbage: string[] | null = Array.from({ length: 400_000 }, (_, i) => `passage ${i} `.repeat(20));
  const before = getHeapStatistics().used_heap_size;
  garbage = null;
  expect(garbage).toBeNull();
  expect(before).toBeGreaterThan(64 * MB);
  // No floor: V8 may have collected on its own meanwhile, and then the heap is already small.
  const collector = garbageCollector({ floorBytes: 0 });
  expect(collector.afterJob()).toBe(true);
  expect(getHeapStatistics().used_heap_size).toBeLessThan(before - 50 * MB);
  expect(runInNewContext('typeof gc')).toBe('undefined');
});

it("runs after each job's outcome is written (graphile-worker's job:complete)", () => {
  const events = new EventEmitter() as WorkerEvents;
  let decided = 0;
  collectAfterBigJobs(events, { afterJob: () => (decided++, false) });
  events.emit('job:start', {} as never);
  expect(decided).toBe(0);
  events.emit('job:complete', {} as never);
  expect(decided).toBe(1);
});
