/**
 * Ingestion is fair across organisations (issue 26): with ONE worker slot, organisation B's 2-chunk
 * Markdown file is ready while organisation A's big documents are still being embedded, because a
 * big document is ingested in bounded steps, each its own job queued behind the jobs queued
 * meanwhile. Before, A's jobs ran to the end first (one 17,000-chunk file: ~20 minutes, B waited).
 * Every job is queued before the worker starts, so the order is fixed and no timing is assumed.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DocumentId } from '../../src/ids';
import { startWorker, type WorkerHandle } from '../../src/jobs/worker-runtime';
import { INGEST_STEP_CHUNKS } from '../../src/services/documents/ingest-steps';
import { runIngestion } from '../../src/services/documents/run-ingestion';
import { runQueuedJobs } from '../helpers/jobs';
import { restClient } from '../helpers/api-client';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';
import { waitFor } from '../helpers/wait-for';
import { orgWithKb, seededProse } from '../helpers/ingestion-load';

let t: TestApp;
let worker: WorkerHandle | null = null;
beforeAll(async () => {
  t = await createTestApp({ env: { WORKER_CONCURRENCY: '1' } });
});
afterAll(async () => {
  await worker?.stop();
  await t?.close();
});

const statusOf = (id: string) => t.db.selectFrom('documents').select(['status', 'chunk_count', 'error']).where('id', '=', id as DocumentId).executeTakeFirstOrThrow();

it("makes organisation B's small file ready while organisation A's big documents are still ingesting", async () => {
  const a = await orgWithKb(t);
  const b = await orgWithKb(t);
  const bigIds: string[] = [];
  for (let i = 0; i < 2; i++) {
    const up = await uploadFile(t.app, a.key, a.kbId, { name: `big-${i}.txt`, bytes: seededProse(i + 1, 12 * INGEST_STEP_CHUNKS), type: 'text/plain' });
    expect(up.status).toBe(202);
    bigIds.push(up.body.document.id);
  }
  const small = await uploadFile(t.app, b.key, b.kbId, { name: 'small.md', bytes: '# Depot\n\nThe depot opens at 6 am.\n\n## Shifts\n\nShifts change at noon.', type: 'text/markdown' });
  expect(small.status).toBe(202);

  worker = await startWorker(t.runtime, { pollInterval: 100 });
  const bDone = await waitFor("B's document", () => statusOf(small.body.document.id), (d) => d.status !== 'processing', { timeoutMs: 300_000, everyMs: 100 });
  expect(bDone.status).toBe('ready');
  // At that moment A's documents are far from finished: each is several steps long.
  const aThen = await Promise.all(bigIds.map(statusOf));
  expect(aThen.map((d) => d.status)).toEqual(['processing', 'processing']);

  const aDone = await Promise.all(bigIds.map((id) => waitFor(`A's ${id}`, () => statusOf(id), (d) => d.status !== 'processing', { timeoutMs: 300_000, everyMs: 100 })));
  for (const d of aDone) {
    expect(d).toMatchObject({ status: 'ready', error: null });
    expect(d.chunk_count).toBeGreaterThan(2 * INGEST_STEP_CHUNKS);
  }
  const stored = await t.db.selectFrom('chunks').select((eb) => eb.fn.countAll<string>().as('n')).where('document_id', 'in', bigIds as DocumentId[]).executeTakeFirstOrThrow();
  expect(Number(stored.n)).toBe(aDone.reduce((s, d) => s + d.chunk_count, 0));
  const pending = await t.db.selectFrom('ingest_pending_chunks').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  expect(Number(pending.n)).toBe(0);
  await worker.stop();
  worker = null;
}, 600_000);

it('a big document re-ingested keeps one copy of each chunk, and one deleted between its steps leaves nothing behind', async () => {
  const a = await orgWithKb(t);
  const api = restClient(t.app, a.key);
  const up = await uploadFile(t.app, a.key, a.kbId, { name: 'again.txt', bytes: seededProse(7, 4 * INGEST_STEP_CHUNKS), type: 'text/plain' });
  const id = up.body.document.id as DocumentId;
  await runQueuedJobs(t);
  const first = await statusOf(id);
  expect(first.status).toBe('ready');
  expect(first.chunk_count).toBeGreaterThan(INGEST_STEP_CHUNKS);
  expect((await api.post(`/api/kbs/${a.kbId}/documents/${id}/reingest`, {})).status).toBe(202);
  await runQueuedJobs(t);
  const count = async (table: 'chunks' | 'ingest_pending_chunks', doc: DocumentId) =>
    Number((await t.db.selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n')).where('document_id', '=', doc).executeTakeFirstOrThrow()).n);
  expect(await statusOf(id)).toMatchObject({ status: 'ready', chunk_count: first.chunk_count });
  expect(await count('chunks', id)).toBe(first.chunk_count);

  const up2 = await uploadFile(t.app, a.key, a.kbId, { name: 'gone.txt', bytes: seededProse(8, 4 * INGEST_STEP_CHUNKS), type: 'text/plain' });
  const gone = up2.body.document.id as DocumentId;
  expect(await runIngestion(t.deps, gone)).toBe('continued');
  expect(await count('ingest_pending_chunks', gone)).toBeGreaterThan(INGEST_STEP_CHUNKS);
  expect((await api.delete(`/api/kbs/${a.kbId}/documents/${gone}`)).status).toBe(200);
  await runQueuedJobs(t);
  expect(await count('ingest_pending_chunks', gone)).toBe(0);
  expect(await count('chunks', gone)).toBe(0);
}, 400_000);
