/**
 * A bulk upload is a batch (issue 26): the answer carries its id with each created document's, and
 * the batch's progress (counts per status, documents, percent, the per-file report) is read back on
 * REST, GraphQL and tRPC through one service. Another organisation's key gets "not found".
 */
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchProgress } from '../../src/services/documents/upload-batch';
import type { DocumentDto } from '../../src/services/documents/document-dto';
import { graphqlClient, restClient, trpcClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6300010000050001', 'hex');

let t: TestApp;
beforeAll(async () => {
  // A wide time budget: on a loaded machine the 3 s default would leave files not_processed.
  t = await createTestApp({ env: { BULK_UPLOAD_BUDGET_MS: '60000' } });
});
afterAll(async () => {
  await t?.close();
});

async function newKb() {
  const { api_key } = await createOrgWithKey(t.deps, { plan: 'pro' });
  const kbId: string = (await restClient(t.app, api_key).post('/api/kbs', { name: 'Batch' })).body.kb.id;
  return { key: api_key, kbId };
}

async function upload(key: string, kbId: string, parts: Array<{ name: string; bytes: Uint8Array | string }>) {
  const form = new FormData();
  for (const p of parts) form.append('file', new Blob([p.bytes as BlobPart]), p.name);
  form.set('kb_id', kbId);
  const res = await t.app.fetch(new Request('http://groundwork.test/api/ingest/upload', { method: 'POST', headers: { 'x-api-key': key }, body: form }));
  return { status: res.status, body: (await res.json()) as any };
}

const BATCH_FIELDS = 'id kbId status percent counts { processing ready failed } documents { id filename status } files { filename status documentId error { code message } }';

describe('upload batches', () => {
  it('returns a batch id with the documents, and the batch reads the same on REST, GraphQL and tRPC as it progresses', async () => {
    const { key, kbId } = await newKb();
    const res = await upload(key, kbId, [
      { name: 'leave.md', bytes: '# Leave\n\nTwenty days a year.' },
      { name: 'photo.png', bytes: PNG },
      { name: 'symbols.txt', bytes: '!!!! ???? .... ,,,, ;;;; ::::\n'.repeat(20) },
      { name: 'hours.txt', bytes: 'The office opens at 8 and closes at 6.' },
    ]);
    expect(res.status).toBe(202);
    expect(res.body.batch_id).toMatch(/^bat_[0-9A-Za-z]+$/);
    const created = res.body.documents.map((d: any) => d.id);
    expect(created).toHaveLength(3);

    const rest = await restClient(t.app, key).get(`/api/kbs/${kbId}/batches/${res.body.batch_id}`);
    expect(rest.status).toBe(200);
    expect(rest.body.batch).toMatchObject({ id: res.body.batch_id, kb_id: kbId, status: 'processing', percent: 0, counts: { processing: 3, ready: 0, failed: 0 } });
    expect(rest.body.batch.documents.map((d: any) => d.id)).toEqual(created);
    // The report the upload answered is kept: a client that lost the answer reads it again.
    expect(rest.body.batch.files).toEqual(res.body.files);

    await runQueuedJobs(t);
    const after = (await restClient(t.app, key).get(`/api/kbs/${kbId}/batches/${res.body.batch_id}`)).body.batch;
    // The text of symbols only has no words: its document fails, the batch is done all the same.
    expect(after).toMatchObject({ status: 'done', percent: 100, counts: { processing: 0, ready: 2, failed: 1 } });
    expect(after.documents.find((d: any) => d.filename === 'symbols.txt')).toMatchObject({ status: 'failed', error: expect.stringMatching(/no words/) });

    const gql = await graphqlClient(t.app, key)(`query($kbId: ID!, $id: ID!) { uploadBatch(kbId: $kbId, id: $id) { ${BATCH_FIELDS} } }`, { kbId, id: res.body.batch_id });
    expect(gql.status).toBe(200);
    expect(gql.body.errors).toBeUndefined();
    const g = gql.body.data.uploadBatch;
    expect({ status: g.status, percent: g.percent, counts: g.counts }).toEqual({ status: after.status, percent: after.percent, counts: after.counts });
    expect(g.documents.map((d: any) => [d.id, d.status])).toEqual(after.documents.map((d: any) => [d.id, d.status]));
    expect(g.files.map((f: any) => [f.filename, f.status, f.documentId])).toEqual(after.files.map((f: any) => [f.filename, f.status, f.document_id]));

    const trpc = await trpcClient(t.app, key).query('documents.batch', { kb_id: kbId, id: res.body.batch_id });
    expect(trpc.status).toBe(200);
    expect(trpc.body.result.data.batch).toEqual(after);
  });

  it('a ZIP is one batch of its entries, and GraphQL uploadDocuments and tRPC uploadMany return the batch id too', async () => {
    const { key, kbId } = await newKb();
    const zip = zipSync({ 'a.md': new TextEncoder().encode('# A\n\nalpha text'), 'b.txt': new TextEncoder().encode('beta text') });
    const res = await upload(key, kbId, [{ name: 'folder.zip', bytes: zip }]);
    expect(res.status).toBe(202);
    const batch = (await restClient(t.app, key).get(`/api/kbs/${kbId}/batches/${res.body.batch_id}`)).body.batch;
    expect(batch.documents.map((d: any) => d.filename)).toEqual(['a.md', 'b.txt']);

    const form = new FormData();
    form.set('operations', JSON.stringify({ query: 'mutation($kbId: ID!, $files: [File!]!) { uploadDocuments(kbId: $kbId, files: $files) { batchId documents { id } } }', variables: { kbId, files: [null, null] } }));
    form.set('map', JSON.stringify({ 0: ['variables.files.0'], 1: ['variables.files.1'] }));
    form.set('0', new Blob(['one']), 'one.txt');
    form.set('1', new Blob(['two']), 'two.txt');
    const gql = (await (await t.app.fetch(new Request('http://groundwork.test/graphql', { method: 'POST', headers: { 'x-api-key': key }, body: form }))).json()) as any;
    const gBatch = gql.data.uploadDocuments.batchId;
    expect(gBatch).toMatch(/^bat_/);
    const gRead = (await restClient(t.app, key).get(`/api/kbs/${kbId}/batches/${gBatch}`)).body.batch;
    expect(gRead.documents.map((d: any) => d.id)).toEqual(gql.data.uploadDocuments.documents.map((d: any) => d.id));

    const tForm = new FormData();
    tForm.append('file', new Blob(['three']), 'three.txt');
    tForm.append('file', new Blob(['four']), 'four.txt');
    tForm.set('kb_id', kbId);
    const tRes = (await (await t.app.fetch(new Request('http://groundwork.test/trpc/documents.uploadMany', { method: 'POST', headers: { 'x-api-key': key }, body: tForm }))).json()) as any;
    const tBatch = tRes.result.data.batch_id;
    expect(tBatch).toMatch(/^bat_/);
    expect(new Set([res.body.batch_id, gBatch, tBatch]).size).toBe(3);
  });

  it("is not found with another organisation's key, another KB's id, or an unknown id, on every transport", async () => {
    const owner = await newKb();
    const other = await newKb();
    const res = await upload(owner.key, owner.kbId, [{ name: 'a.txt', bytes: 'alpha' }, { name: 'b.txt', bytes: 'beta' }]);
    const id = res.body.batch_id as string;
    const rest = restClient(t.app, other.key);
    for (const path of [`/api/kbs/${owner.kbId}/batches/${id}`, `/api/kbs/${other.kbId}/batches/${id}`, `/api/kbs/${other.kbId}/batches/bat_nope`, `/api/kbs/${other.kbId}/batches/x`]) {
      const r = await rest.get(path);
      expect(r.status, path).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
    // The owner's own second KB does not hold it either.
    const kb2 = (await restClient(t.app, owner.key).post('/api/kbs', { name: 'Other' })).body.kb.id;
    expect((await restClient(t.app, owner.key).get(`/api/kbs/${kb2}/batches/${id}`)).status).toBe(404);

    const gql = await graphqlClient(t.app, other.key)('query($kbId: ID!, $id: ID!) { uploadBatch(kbId: $kbId, id: $id) { id } }', { kbId: other.kbId, id });
    expect(gql.body.data).toBeNull();
    expect(gql.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const trpc = await trpcClient(t.app, other.key).query('documents.batch', { kb_id: owner.kbId, id });
    expect(trpc.status).toBe(404);
    expect(trpc.body.error.data.code).toBe('NOT_FOUND');
  });

  it('a single-file upload keeps its answer and makes no batch', async () => {
    const { key, kbId } = await newKb();
    const res = await upload(key, kbId, [{ name: 'one.md', bytes: '# One' }]);
    expect(Object.keys(res.body)).toEqual(['document']);
    const rows = await t.db.selectFrom('upload_batches').select('id').where('kb_id', '=', kbId as never).execute();
    expect(rows).toEqual([]);
  });
});

describe('batch percent', () => {
  const doc = (status: DocumentDto['status'], progress: DocumentDto['progress'] = null) => ({ status, progress }) as DocumentDto;
  it('counts settled documents whole and processing ones by their progress, reaching 100 only when done', () => {
    expect(batchProgress([doc('processing'), doc('processing')])).toEqual({ status: 'processing', percent: 0, counts: { processing: 2, ready: 0, failed: 0 } });
    expect(batchProgress([doc('ready'), doc('processing', { done: 50, total: 100, unit: 'chunks' })]).percent).toBe(74);
    expect(batchProgress([doc('ready'), doc('processing', { done: 100, total: 100, unit: 'chunks' })]).percent).toBe(99);
    expect(batchProgress([doc('ready'), doc('failed')])).toEqual({ status: 'done', percent: 100, counts: { processing: 0, ready: 1, failed: 1 } });
  });
});
