/**
 * Progress of a processing document: its stage and done/total, the same through REST, GraphQL and
 * tRPC, written at most a few times a second, and cleared once the document is ready.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDeps } from '../../src/context';
import type { DocumentId } from '../../src/ids';
import { parsePdf } from '../../src/ingest/parse-pdf';
import { ProgressReporter } from '../../src/services/documents/progress';
import { runIngestion } from '../../src/services/documents/run-ingestion';
import { graphqlClient, restClient, trpcClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';

const DOCS = path.resolve(import.meta.dirname, '../../../shared/data/docs');

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

/** The real embedder, held at its first call until released: the document is caught mid-ingestion. */
function gatedDeps(deps: AppDeps) {
  let release!: () => void;
  let reached!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const atGate = new Promise<void>((r) => (reached = r));
  const real = deps.embeddings.default;
  const provider = {
    ...real,
    embedDocuments: async (texts: string[]) => {
      reached();
      await gate;
      return real.embedDocuments(texts);
    },
  };
  return { deps: { ...deps, embeddings: { ...deps.embeddings, default: provider } } as AppDeps, release, atGate };
}

const GQL_DOC = `query($kbId: ID!, $id: ID!) { document(kbId: $kbId, id: $id) { status chunkCount stage progress { done total unit } } }`;

describe('progress', () => {
  it('shows stage and progress of a processing document through REST, GraphQL and tRPC, then clears them', async () => {
    const { api_key } = await createOrgWithKey(t.deps, { plan: 'pro' });
    const api = restClient(t.app, api_key);
    const gql = graphqlClient(t.app, api_key);
    const trpc = trpcClient(t.app, api_key);
    const kbId: string = (await api.post('/api/kbs', { name: 'Docs' })).body.kb.id;
    const up = await uploadFile(t.app, api_key, kbId, { name: 'tracemonkey.pdf', bytes: readFileSync(path.join(DOCS, 'tracemonkey.pdf')) });
    expect(up.status).toBe(202);
    // A fresh document has no stage yet: the job has not started.
    expect(up.body.document).toMatchObject({ status: 'processing', stage: null, progress: null });
    const id: string = up.body.document.id;

    const gated = gatedDeps(t.deps);
    const running = runIngestion(gated.deps, id as DocumentId);
    await gated.atGate;
    // A change of stage is written at once; give the chained UPDATE a moment to land.
    let rest = (await api.get(`/api/kbs/${kbId}/documents/${id}`)).body.document;
    for (let i = 0; i < 50 && rest.stage !== 'embedding'; i++) {
      await new Promise((r) => setTimeout(r, 20));
      rest = (await api.get(`/api/kbs/${kbId}/documents/${id}`)).body.document;
    }
    expect(rest).toMatchObject({ status: 'processing', chunk_count: 0, stage: 'embedding', progress: { done: 0, unit: 'chunks' } });
    const total = rest.progress.total;
    expect(total).toBeGreaterThan(10);
    // Every existing field is still there.
    expect(Object.keys(rest)).toEqual(expect.arrayContaining(['id', 'kb_id', 'filename', 'source', 'content_type', 'status', 'chunk_count', 'error', 'size_bytes', 'pages', 'created_at', 'updated_at']));

    const g = await gql(GQL_DOC, { kbId, id });
    expect(g.body.errors).toBeUndefined();
    expect(g.body.data.document).toEqual({ status: 'processing', chunkCount: 0, stage: 'embedding', progress: { done: 0, total, unit: 'chunks' } });
    const tr = await trpc.query('documents.get', { kb_id: kbId, id });
    expect(tr.body.result.data.document).toMatchObject({ stage: 'embedding', progress: { done: 0, total, unit: 'chunks' } });
    const listed = (await api.get(`/api/kbs/${kbId}/documents`)).body.documents[0];
    expect(listed).toMatchObject({ id, stage: 'embedding' });

    gated.release();
    expect(await running).toBe('ready');
    const done = (await api.get(`/api/kbs/${kbId}/documents/${id}`)).body.document;
    expect(done).toMatchObject({ status: 'ready', stage: null, progress: null, chunk_count: total, pages: 14 });
    expect((await gql(GQL_DOC, { kbId, id })).body.data.document).toEqual({ status: 'ready', chunkCount: total, stage: null, progress: null });
    expect((await trpc.query('documents.get', { kb_id: kbId, id })).body.result.data.document).toMatchObject({ stage: null, progress: null });
  });

  it('reports parsing progress page by page', async () => {
    const seen: Array<{ done: number; total: number }> = [];
    await parsePdf(readFileSync(path.join(DOCS, 'tracemonkey.pdf')), { onProgress: (p) => seen.push({ done: p.done, total: p.total }) });
    expect(seen.length).toBe(14);
    expect(seen.every((p) => p.total === 14)).toBe(true);
    expect(seen.map((p) => p.done)).toEqual([...Array(14).keys()]);
  });

  it('writes at most a few times a second however often it is told, and the last value lands', async () => {
    const { api_key } = await createOrgWithKey(t.deps, { plan: 'pro' });
    const kbId: string = (await restClient(t.app, api_key).post('/api/kbs', { name: 'Docs' })).body.kb.id;
    const doc = (await uploadFile(t.app, api_key, kbId, { name: 'a.txt', bytes: 'some text' })).body.document as { id: DocumentId };
    const reporter = new ProgressReporter(t.db, doc.id, t.deps.logger, 100);
    const started = Date.now();
    for (let i = 1; Date.now() - started < 350; i++) {
      reporter.report({ stage: 'parsing', done: i, total: 1_000_000, unit: 'pages' });
      await new Promise((r) => setImmediate(r));
    }
    reporter.report({ stage: 'parsing', done: 999, total: 1000, unit: 'pages' });
    await new Promise((r) => setTimeout(r, 150));
    await reporter.close();
    // 350 ms at one write per 100 ms: 4 or 5 writes, plus the trailing one, never thousands.
    expect(reporter.writes).toBeGreaterThanOrEqual(3);
    expect(reporter.writes).toBeLessThanOrEqual(7);
    const row = await t.db.selectFrom('documents').select(['stage', 'progress_done', 'progress_total']).where('id', '=', doc.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ stage: 'parsing', progress_done: 999, progress_total: 1000 });
  });
});
