/**
 * The inline worker (`npm start` on the embedded default) runs its jobs in a worker thread: a PDF's
 * parsing, chunking and embedding do not run on the thread that serves HTTP, yet the document
 * becomes ready, its progress is written where watchers read it, and its job is counted in this
 * process's /metrics. No timing bound: the parser is watched on this thread, where it must never run,
 * and the worker thread's busy time only has to show that it did the work.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { parseDocument } from '../../src/ingest/parse-document';
import { startWorkerThread, type WorkerThreadHandle } from '../../src/jobs/worker-thread';
import { metricsRegistry } from '../../src/metrics';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';

// A module mock applies to this thread's module graph only; the worker thread loads its own copy.
vi.mock('../../src/ingest/parse-document', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/ingest/parse-document')>();
  return { ...real, parseDocument: vi.fn(real.parseDocument) };
});

const DOCS = path.resolve(import.meta.dirname, '../../../shared/data/docs');

let t: TestApp;
let worker: WorkerThreadHandle | null = null;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await worker?.stop();
  await t?.close();
});

async function jobsCounted(): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric('groundwork_ingestion_jobs_total')!.get();
  return metric.values.filter((v) => v.labels.task === 'documents__ingest' && v.labels.outcome === 'ok').reduce((s, v) => s + v.value, 0);
}

it("ingests a PDF in the worker thread, off the caller's thread, with progress written and the job counted here", async () => {
  const { api_key } = await createOrgWithKey(t.deps, { plan: 'pro' });
  const api = restClient(t.app, api_key);
  const kbId: string = (await api.post('/api/kbs', { name: 'Papers' })).body.kb.id;
  const countedBefore = await jobsCounted();

  worker = await startWorkerThread(t.runtime, { pollInterval: 100 });
  expect(worker.thread.threadId).not.toBe(threadId);
  const threadBefore = worker.thread.performance.eventLoopUtilization();

  const up = await uploadFile(t.app, api_key, kbId, { name: 'tracemonkey.pdf', bytes: readFileSync(path.join(DOCS, 'tracemonkey.pdf')) });
  expect(up.status).toBe(202);
  const id: string = up.body.document.id;
  const stages = new Set<string>();
  let doc: { status: string; stage: string | null; chunk_count: number; pages: number | null };
  for (const deadline = Date.now() + 180_000; ; ) {
    doc = (await api.get(`/api/kbs/${kbId}/documents/${id}`)).body.document;
    if (doc.stage) stages.add(doc.stage);
    if (doc.status !== 'processing' || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const inThread = worker.thread.performance.eventLoopUtilization(threadBefore);

  expect(doc).toMatchObject({ status: 'ready', pages: 14 });
  expect(doc.chunk_count).toBeGreaterThan(10);
  // Progress went through the database, where REST, SSE and subscriptions read it.
  expect(stages.size).toBeGreaterThan(0);
  // The thread posts the job's count when the job has finished, which is just after the document
  // is ready: the count arrives a message later.
  await expect.poll(jobsCounted, { timeout: 30_000 }).toBe(countedBefore + 1);
  // Parsing 14 pages is the thread's work; this thread only served the polls. The old inline
  // worker parsed here.
  expect(vi.mocked(parseDocument)).not.toHaveBeenCalled();
  expect(inThread.active).toBeGreaterThan(100);

  await worker.stop();
  worker = null;
}, 240_000);
