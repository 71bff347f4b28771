/**
 * Duplicates, through the REST API with real files: an upload whose bytes match a document of the
 * same KB answers that document (`duplicate`, 200) instead of making a second one; `replace=true`
 * ingests that document again; bulk uploads report each duplicate; GraphQL and tRPC behave the same;
 * another KB or another organisation never sees the match. A DOCX that repeats its text stores each
 * passage once.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restClient, trpcClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { documentXml, makeDocx } from '../ingest/zip-fixture';

const DOCS = path.resolve(import.meta.dirname, '../../../shared/data/docs');
const DOCX = readFileSync(path.join(DOCS, 'docx-tables.docx'));
const MD = readFileSync(path.join(DOCS, 'codeblock.md'));

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

type Part = { name: string; bytes: Uint8Array };

async function upload(key: string, kbId: string, parts: Part[], extra: Record<string, string> = {}, url = '/api/ingest/upload') {
  const form = new FormData();
  for (const p of parts) form.append('file', new Blob([p.bytes as BlobPart]), p.name);
  form.set('kb_id', kbId);
  for (const [k, v] of Object.entries(extra)) form.set(k, v);
  const res = await t.app.fetch(new Request(`http://groundwork.test${url}`, { method: 'POST', headers: { 'x-api-key': key }, body: form }));
  return { status: res.status, body: (await res.json()) as any };
}

async function newKb(key?: string) {
  const api_key = key ?? (await createOrgWithKey(t.deps, { plan: 'pro' })).api_key;
  const kbId: string = (await restClient(t.app, api_key).post('/api/kbs', { name: 'Manuals' })).body.kb.id;
  return { key: api_key, kbId };
}

const documentsOf = async (key: string, kbId: string) => (await restClient(t.app, key).get(`/api/kbs/${kbId}/documents`)).body.documents as { id: string; status: string }[];

describe('an upload the KB already has', () => {
  it('answers 200 duplicate with the existing document, under another name too, and stores nothing new', async () => {
    const { key, kbId } = await newKb();
    const first = await upload(key, kbId, [{ name: 'tables.docx', bytes: DOCX }]);
    expect(first.status).toBe(202);
    // A new file keeps the answer it always had: the document alone.
    expect(Object.keys(first.body)).toEqual(['document']);
    expect(first.body.document).toMatchObject({ filename: 'tables.docx', status: 'processing' });
    await runQueuedJobs(t);

    const again = await upload(key, kbId, [{ name: 'tables (1).docx', bytes: DOCX }]);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ duplicate: true, replaced: false, document: { id: first.body.document.id, filename: 'tables.docx', status: 'ready' } });
    expect((await documentsOf(key, kbId)).map((d) => d.id)).toEqual([first.body.document.id]);
  });

  it('replace=true ingests the existing document again: same id, processing, then ready, still one document', async () => {
    const { key, kbId } = await newKb();
    const first = await upload(key, kbId, [{ name: 'notes.md', bytes: MD }]);
    await runQueuedJobs(t);
    const replaced = await upload(key, kbId, [{ name: 'notes.md', bytes: MD }], { replace: 'true' });
    expect(replaced.status).toBe(202);
    expect(replaced.body).toMatchObject({ duplicate: true, replaced: true, document: { id: first.body.document.id, status: 'processing' } });
    await runQueuedJobs(t);
    expect(await documentsOf(key, kbId)).toEqual([expect.objectContaining({ id: first.body.document.id, status: 'ready' })]);
    const bad = await upload(key, kbId, [{ name: 'notes.md', bytes: MD }], { replace: 'yes' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_input', field: 'replace' });
  });

  it('a different file is a new document; another KB and another organisation never match', async () => {
    const { key, kbId } = await newKb();
    const a = (await upload(key, kbId, [{ name: 'tables.docx', bytes: DOCX }])).body.document.id;
    const changed = Buffer.concat([MD, Buffer.from('\nOne more line.\n')]);
    expect((await upload(key, kbId, [{ name: 'notes.md', bytes: MD }])).status).toBe(202);
    expect((await upload(key, kbId, [{ name: 'notes.md', bytes: changed }])).status).toBe(202);
    const otherKb = await newKb(key);
    const inOtherKb = await upload(key, otherKb.kbId, [{ name: 'tables.docx', bytes: DOCX }]);
    expect(inOtherKb.status).toBe(202);
    expect(inOtherKb.body.duplicate).toBeUndefined();
    expect(inOtherKb.body.document.id).not.toBe(a);
    const otherOrg = await newKb();
    const inOtherOrg = await upload(otherOrg.key, otherOrg.kbId, [{ name: 'tables.docx', bytes: DOCX }]);
    expect(inOtherOrg.status).toBe(202);
    expect(inOtherOrg.body.duplicate).toBeUndefined();
    expect(await documentsOf(key, kbId)).toHaveLength(3);
    // Another organisation's KB id is not found, duplicate or not.
    expect((await upload(otherOrg.key, kbId, [{ name: 'tables.docx', bytes: DOCX }])).status).toBe(404);
  });

  it('bulk: each duplicate is reported with its document; only duplicates answer 200 with nothing to ingest', async () => {
    const { key, kbId } = await newKb();
    const first = (await upload(key, kbId, [{ name: 'tables.docx', bytes: DOCX }])).body.document.id;
    const mixed = await upload(key, kbId, [{ name: 'copy.docx', bytes: DOCX }, { name: 'notes.md', bytes: MD }]);
    expect(mixed.status).toBe(202);
    expect(mixed.body.files).toEqual([
      { filename: 'copy.docx', status: 'duplicate', document_id: first, error: null },
      { filename: 'notes.md', status: 'accepted', document_id: expect.stringMatching(/^doc_/), error: null },
    ]);
    expect(mixed.body.documents.map((d: { filename: string }) => d.filename)).toEqual(['notes.md']);

    const onlyDuplicates = await upload(key, kbId, [{ name: 'a.docx', bytes: DOCX }, { name: 'b.md', bytes: MD }]);
    expect(onlyDuplicates.status).toBe(200);
    expect(onlyDuplicates.body.documents).toEqual([]);
    expect(onlyDuplicates.body.files.map((f: { status: string }) => f.status)).toEqual(['duplicate', 'duplicate']);
    // Its batch is kept and reads back what the upload answered.
    const batch = await restClient(t.app, key).get(`/api/kbs/${kbId}/batches/${onlyDuplicates.body.batch_id}`);
    expect(batch.status).toBe(200);
    expect(batch.body.batch.files).toEqual(onlyDuplicates.body.files);

    const replaced = await upload(key, kbId, [{ name: 'a.docx', bytes: DOCX }, { name: 'b.md', bytes: MD }], { replace: 'true' });
    expect(replaced.status).toBe(202);
    expect(replaced.body.files.map((f: { status: string }) => f.status)).toEqual(['replaced', 'replaced']);
    expect(await documentsOf(key, kbId)).toHaveLength(2);
  });

  it('GraphQL and tRPC answer the same document for a duplicate and create none', async () => {
    const { key, kbId } = await newKb();
    const first = (await upload(key, kbId, [{ name: 'notes.md', bytes: MD }])).body.document.id;

    const form = new FormData();
    form.set('operations', JSON.stringify({ query: 'mutation($kbId: ID!, $file: File!) { uploadDocument(kbId: $kbId, file: $file) { id status } }', variables: { kbId, file: null } }));
    form.set('map', JSON.stringify({ 0: ['variables.file'] }));
    form.set('0', new Blob([MD]), 'again.md');
    const gql = (await (await t.app.fetch(new Request('http://groundwork.test/graphql', { method: 'POST', headers: { 'x-api-key': key }, body: form }))).json()) as any;
    expect(gql.data.uploadDocument.id).toBe(first);

    const bulkForm = new FormData();
    bulkForm.set('operations', JSON.stringify({ query: 'mutation($kbId: ID!, $files: [File!]!) { uploadDocuments(kbId: $kbId, files: $files) { files { filename status documentId } } }', variables: { kbId, files: [null] } }));
    bulkForm.set('map', JSON.stringify({ 0: ['variables.files.0'] }));
    bulkForm.set('0', new Blob([MD]), 'again.md');
    const gqlBulk = (await (await t.app.fetch(new Request('http://groundwork.test/graphql', { method: 'POST', headers: { 'x-api-key': key }, body: bulkForm }))).json()) as any;
    expect(gqlBulk.data.uploadDocuments.files).toEqual([{ filename: 'again.md', status: 'duplicate', documentId: first }]);

    const trpc = await upload(key, kbId, [{ name: 'again.md', bytes: MD }], {}, '/trpc/documents.upload');
    expect(trpc.body.result.data).toMatchObject({ duplicate: true, replaced: false, document: { id: first } });
    const trpcReplace = await upload(key, kbId, [{ name: 'again.md', bytes: MD }], { replace: 'true' }, '/trpc/documents.upload');
    expect(trpcReplace.body.result.data).toMatchObject({ duplicate: true, replaced: true, document: { id: first, status: 'processing' } });
    expect((await trpcClient(t.app, key).query('documents.list', { kb_id: kbId })).body.result.data.documents).toHaveLength(1);
  });
});

describe('a DOCX that repeats its text', () => {
  it('stores each passage once: as many chunks as the same text once, all distinct', async () => {
    const words = (n: number, seed: number) => Array.from({ length: n }, (_, i) => `word${(i * 7 + seed) % 97}`).join(' ');
    const sections = Array.from({ length: 6 }, (_, i) => [
      { text: `Section ${i + 1}: maintenance step ${i + 1}`, style: 'Heading1' },
      { text: `The rotor inspection for step ${i + 1} covers ${words(220, i)}.` },
    ]).flat();
    const once = makeDocx(documentXml(sections));
    const twice = makeDocx(documentXml([...sections, ...sections]));
    const { key, kbId } = await newKb();
    const a = (await upload(key, kbId, [{ name: 'once.docx', bytes: once }])).body.document.id;
    const b = (await upload(key, kbId, [{ name: 'twice.docx', bytes: twice }])).body.document.id;
    await runQueuedJobs(t);
    const chunksOf = async (id: string) => {
      const res = await restClient(t.app, key).get(`/api/kbs/${kbId}/documents/${id}/chunks?limit=100`);
      expect(res.status).toBe(200);
      return res.body.chunks as { text: string; position: number }[];
    };
    const [single, doubled] = [await chunksOf(a), await chunksOf(b)];
    expect(single.length).toBeGreaterThanOrEqual(6);
    expect(doubled.map((c) => c.text)).toEqual(single.map((c) => c.text));
    expect(new Set(doubled.map((c) => c.text)).size).toBe(doubled.length);
    // Positions stay gapless, so a passage's neighbours are the stored passages beside it.
    expect(doubled.map((c) => c.position).sort((x, y) => x - y)).toEqual(doubled.map((_, i) => i));
  });
});
