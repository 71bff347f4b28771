/**
 * The worker serves organisations in turn (issue 26), not first come first served: however many
 * documents organisation A queued first, organisation B's file waits for at most one of A's jobs
 * per worker slot. Steps alone (ingestion-fairness.test.ts) bound how long one job holds a slot,
 * but with FIFO B would still wait behind every job A queued before it: here sixteen documents,
 * in production thousands. The worker runs with its default concurrency and org lanes. Every job
 * is queued before the worker starts, and the order jobs start in is what is asserted, not a timing
 * nor how many of A's jobs happen to finish while B's runs (a slot B does not use goes on with A's).
 */
import { EventEmitter } from 'node:events';
import type { WorkerEvents } from 'graphile-worker';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DocumentId } from '../../src/ids';
import { startWorker, type RunnerHandle } from '../../src/jobs/worker-runtime';
import { INGEST_STEP_CHUNKS } from '../../src/services/documents/ingest-steps';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';
import { waitFor } from '../helpers/wait-for';
import { orgWithKb, seededProse } from '../helpers/ingestion-load';

let t: TestApp;
let worker: RunnerHandle | null = null;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await worker?.stop();
  await t?.close();
});

const statuses = (ids: string[]) => t.db.selectFrom('documents').select(['id', 'status', 'chunk_count', 'error']).where('id', 'in', ids as DocumentId[]).execute();

it("B's file waits for at most one of A's jobs per worker slot, however many A queued first", async () => {
  expect(t.deps.config.worker.concurrency).toBe(2);
  const a = await orgWithKb(t);
  const b = await orgWithKb(t);
  const aIds: string[] = [];
  // Two big documents (stepped) and fourteen smaller ones (one job each), all queued before B's.
  for (let i = 0; i < 16; i++) {
    const paragraphs = i < 2 ? 12 * INGEST_STEP_CHUNKS : INGEST_STEP_CHUNKS / 4;
    const up = await uploadFile(t.app, a.key, a.kbId, { name: `a-${i}.txt`, bytes: seededProse(i + 1, paragraphs), type: 'text/plain' });
    expect(up.status).toBe(202);
    aIds.push(up.body.document.id);
  }
  const small = await uploadFile(t.app, b.key, b.kbId, { name: 'small.md', bytes: '# Depot\n\nThe depot opens at 6 am.\n\n## Shifts\n\nShifts change at noon.', type: 'text/markdown' });
  expect(small.status).toBe(202);
  const bId = small.body.document.id as string;

  // Listening before the worker starts: its first jobs start before startWorker resolves.
  const events = new EventEmitter() as WorkerEvents;
  const startOrder: string[] = [];
  events.on('job:start', ({ job }) => void startOrder.push((job.payload as { document_id: string }).document_id));
  worker = await startWorker(t.runtime, { pollInterval: 50, events });
  const [bDone] = await waitFor("B's document", () => statuses([bId]), ([d]) => d!.status !== 'processing', { timeoutMs: 300_000 });
  expect(bDone).toMatchObject({ status: 'ready', error: null });
  // First come first served would have started all sixteen of A's first jobs before B's. In turn,
  // B's starts as soon as a slot is free: behind at most one of A's jobs per slot.
  const bStart = startOrder.indexOf(bId);
  expect(bStart).toBeGreaterThanOrEqual(0);
  expect(startOrder.slice(0, bStart).every((id) => aIds.includes(id))).toBe(true);
  expect(bStart).toBeLessThanOrEqual(t.deps.config.worker.concurrency);

  // A's documents all finish too: being served in turn delays A, it loses nothing.
  const aDone = await waitFor("A's documents", () => statuses(aIds), (ds) => ds.every((d) => d.status !== 'processing'), { timeoutMs: 300_000 });
  for (const d of aDone) expect(d).toMatchObject({ status: 'ready', error: null });
  // The two big ones went through several steps each.
  const big = aDone.filter((d) => aIds.slice(0, 2).includes(d.id));
  expect(big.map((d) => d.chunk_count > 2 * INGEST_STEP_CHUNKS)).toEqual([true, true]);
  await worker.stop();
  worker = null;
}, 600_000);
