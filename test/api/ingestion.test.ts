/**
 * The ingestion pipeline through the API with real files: each format, each failure mode, the plan's
 * document limit under concurrency, deletion during ingestion, idempotent retries and URL refusals.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentId } from '../../src/ids';
import { runIngestion } from '../../src/services/documents/run-ingestion';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';
import { makeDocx } from '../ingest/zip-fixture';

const DOCS = path.resolve(import.meta.dirname, '../../../shared/data/docs');
const doc = (name: string) => ({ name, bytes: readFileSync(path.join(DOCS, name)) });

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

async function newKb(plan: 'free' | 'pro' = 'pro') {
  const { api_key } = await createOrgWithKey(t.deps, { plan });
  const api = restClient(t.app, api_key);
  const kbId: string = (await api.post('/api/kbs', { name: 'Docs' })).body.kb.id;
  return { api, apiKey: api_key, kbId };
}

async function documentsById(api: ReturnType<typeof restClient>, kbId: string) {
  const { body } = await api.get(`/api/kbs/${kbId}/documents`);
  return new Map<string, any>(body.documents.map((d: any) => [d.id, d]));
}

describe('formats', () => {
  it('ingests PDF, DOCX, Markdown and text files to ready, with pages and text from the real parsers', async () => {
    const { api, apiKey, kbId } = await newKb();
    const files = [doc('layout-parser-paper-with-table.pdf'), doc('docx-tables.docx'), doc('codeblock.md'), { name: 'notes.txt', bytes: Buffer.from('Plain text notes.\n\nThe warehouse opens at 6 am.') }];
    const ids: string[] = [];
    for (const f of files) {
      const res = await uploadFile(t.app, apiKey, kbId, f);
      expect(res.status, f.name).toBe(202);
      ids.push(res.body.document.id);
    }
    await runQueuedJobs(t);
    const docs = await documentsById(api, kbId);
    for (const [i, id] of ids.entries()) {
      const d = docs.get(id);
      expect(d, files[i]!.name).toMatchObject({ status: 'ready', error: null, filename: files[i]!.name });
      expect(d.chunk_count, files[i]!.name).toBeGreaterThan(0);
    }
    expect(docs.get(ids[0]!)).toMatchObject({ content_type: 'pdf', pages: 1 });
    expect(docs.get(ids[1]!).content_type).toBe('docx');
    const chunks = await t.db.selectFrom('chunks').select(['text', 'page', 'embedding_dimensions']).where('document_id', '=', ids[0] as DocumentId).execute();
    expect(chunks.map((c) => c.text).join(' ')).toMatch(/LayoutParser/i);
    expect(chunks.every((c) => c.page === 1 && c.embedding_dimensions === 512)).toBe(true);
  });
});

describe('failures', () => {
  it('fails with a clear reason for encrypted, damaged, mislabelled and text-less files', async () => {
    const { api, apiKey, kbId } = await newKb();
    const cases: Array<[file: { name: string; bytes: Buffer }, reason: RegExp]> = [
      [doc('password.pdf'), /password/i],
      // scan-bad.pdf is read by OCR now (test/api/ocr.test.ts, which also checks the reason when OCR is off).
      // A well-formed zip whose document.xml is broken passes type detection and fails in the parser.
      [{ name: 'broken.docx', bytes: Buffer.from(makeDocx('<w:document><w:body><w:p>unclosed')) }, /DOCX file is damaged/],
      [{ name: 'fake.pdf', bytes: Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(2000, 0x41)]) }, /damaged|not a valid|could not be read|invalid/i],
    ];
    const ids: string[] = [];
    for (const [f] of cases) {
      const res = await uploadFile(t.app, apiKey, kbId, f);
      expect(res.status, f.name).toBe(202);
      ids.push(res.body.document.id);
    }
    await runQueuedJobs(t);
    const docs = await documentsById(api, kbId);
    for (const [i, [f, reason]] of cases.entries()) {
      const d = docs.get(ids[i]!);
      expect(d.status, f.name).toBe('failed');
      expect(d.error, f.name).toMatch(reason);
      expect(d.chunk_count).toBe(0);
    }
  });

  it('refuses bad uploads up front with a 4xx and stores nothing', async () => {
    const { api, apiKey, kbId } = await newKb();
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6300010000050001', 'hex');
    const exe = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(500, 0x90)]);
    const cases: Array<[Parameters<typeof uploadFile>[2], Parameters<typeof uploadFile>[3], number, string]> = [
      [kbId, { name: 'empty.txt', bytes: '' }, 400, 'invalid_input'],
      [kbId, { name: 'image.png', bytes: png }, 415, 'unsupported_media_type'],
      [kbId, { name: 'setup.exe', bytes: exe }, 415, 'unsupported_media_type'],
      [kbId, { name: 'report.pdf', bytes: 'just text pretending to be a pdf' }, 415, 'unsupported_media_type'],
      [kbId, { name: 'cut.docx', bytes: readFileSync(path.join(DOCS, 'docx-tables.docx')).subarray(0, 4000) }, 400, 'invalid_input'],
      [kbId, null, 400, 'invalid_input'],
      [null, { name: 'a.txt', bytes: 'hello' }, 400, 'invalid_input'],
      ['kb_doesnotexist', { name: 'a.txt', bytes: 'hello' }, 404, 'not_found'],
    ];
    for (const [kb, file, status, code] of cases) {
      const res = await uploadFile(t.app, apiKey, kb, file);
      expect(res.status, file?.name ?? 'no file').toBe(status);
      expect(res.body.error.code).toBe(code);
    }
    const json = await api.post('/api/ingest/upload', { kb_id: kbId });
    expect(json.status).toBe(415);
    expect((await api.get(`/api/kbs/${kbId}/documents`)).body.documents).toEqual([]);
    expect((await t.db.selectFrom('document_files').select('document_id').execute()).length).toBeGreaterThanOrEqual(0);
  });

  it('answers 413 for an upload over the limit without storing it', async () => {
    const small = await createTestApp({ env: { MAX_UPLOAD_BYTES: '1000' } });
    try {
      const { api_key } = await createOrgWithKey(small.deps);
      const api = restClient(small.app, api_key);
      const kbId = (await api.post('/api/kbs', { name: 'x' })).body.kb.id;
      const res = await uploadFile(small.app, api_key, kbId, { name: 'big.txt', bytes: 'a'.repeat(5000) });
      expect(res.status).toBe(413);
      expect(res.body.error.code).toBe('payload_too_large');
      expect((await api.get(`/api/kbs/${kbId}/documents`)).body.documents).toEqual([]);
    } finally {
      await small.close();
    }
  });
});

describe('the Free plan document limit', () => {
  it('accepts exactly 50 documents across concurrent uploads and URL ingests', async () => {
    // Loopback URLs are only accepted with CRAWL_ALLOW_PRIVATE; the crawl itself never runs here.
    const local = await createTestApp({ env: { CRAWL_ALLOW_PRIVATE: 'true' } });
    const { api_key: apiKey } = await createOrgWithKey(local.deps, { plan: 'free' });
    const api = restClient(local.app, apiKey);
    const kbId: string = (await api.post('/api/kbs', { name: 'Docs' })).body.kb.id;
    const t = local;
    for (let i = 0; i < 45; i++) expect((await uploadFile(t.app, apiKey, kbId, { name: `n${i}.txt`, bytes: `note ${i}` })).status).toBe(202);
    const racing = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => uploadFile(t.app, apiKey, kbId, { name: `r${i}.txt`, bytes: `race ${i}` })),
      ...Array.from({ length: 4 }, (_, i) => api.post('/api/ingest/url', { kb_id: kbId, url: `http://127.0.0.1:9/${i}` })),
    ]);
    const accepted = racing.filter((r) => r.status === 202).length;
    const refused = racing.filter((r) => r.status === 403);
    expect(accepted).toBe(5);
    expect(refused).toHaveLength(7);
    expect(refused[0]!.body.error).toMatchObject({ code: 'plan_limit_exceeded' });
    expect(refused[0]!.body.error.message).toMatch(/50 documents/);
    expect((await api.get(`/api/kbs/${kbId}/documents`)).body.documents).toHaveLength(50);
    expect((await api.get('/api/kbs')).body.kbs[0].doc_count).toBe(50);
    await local.close();
  });
});

describe('idempotency and deletion', () => {
  it('re-running ingestion never duplicates chunks, and reingest replaces them', async () => {
    const { api, apiKey, kbId } = await newKb();
    const res = await uploadFile(t.app, apiKey, kbId, doc('unstructured-repo-CONTRIBUTING.md'));
    const id = res.body.document.id as DocumentId;
    // Two workers picking up the same document (a retry after a crash) must converge.
    await Promise.all([runIngestion(t.deps, id), runIngestion(t.deps, id)]);
    await runQueuedJobs(t);
    const count = async () => Number((await t.db.selectFrom('chunks').select((eb) => eb.fn.countAll().as('n')).where('document_id', '=', id).executeTakeFirstOrThrow()).n);
    const first = (await api.get(`/api/kbs/${kbId}/documents/${id}`)).body.document;
    expect(first.status).toBe('ready');
    expect(await count()).toBe(first.chunk_count);

    const again = await api.raw(`/api/kbs/${kbId}/documents/${id}/reingest`, { method: 'POST' });
    expect(again.status).toBe(202);
    expect((await again.json()).document.status).toBe('processing');
    await runQueuedJobs(t);
    const second = (await api.get(`/api/kbs/${kbId}/documents/${id}`)).body.document;
    expect(second.status).toBe('ready');
    expect(second.chunk_count).toBe(first.chunk_count);
    expect(await count()).toBe(first.chunk_count);
  });

  it('a document deleted while queued is skipped by its job; deleting a KB deletes its documents', async () => {
    const { api, apiKey, kbId } = await newKb();
    const a = (await uploadFile(t.app, apiKey, kbId, { name: 'a.md', bytes: '# A\n\nAlpha text.' })).body.document.id;
    const b = (await uploadFile(t.app, apiKey, kbId, { name: 'b.md', bytes: '# B\n\nBeta text.' })).body.document.id;
    expect((await api.delete(`/api/kbs/${kbId}/documents/${a}`)).body).toEqual({ success: true });
    expect((await api.get(`/api/kbs/${kbId}/documents/${a}`)).status).toBe(404);
    await runQueuedJobs(t);
    expect(await runIngestion(t.deps, a as DocumentId)).toBe('skipped');
    const left = (await api.get(`/api/kbs/${kbId}/documents`)).body.documents;
    expect(left.map((d: any) => [d.id, d.status])).toEqual([[b, 'ready']]);

    expect((await api.delete(`/api/kbs/${kbId}`)).status).toBe(200);
    const rows = await t.db.selectFrom('chunks').select('id').where('kb_id', '=', kbId as never).execute();
    expect(rows).toEqual([]);
    expect(await t.db.selectFrom('documents').select('id').where('kb_id', '=', kbId as never).execute()).toEqual([]);
  });

  it('keeps tenants apart: another organisation gets 404 on every document operation', async () => {
    const { apiKey, kbId } = await newKb();
    const id = (await uploadFile(t.app, apiKey, kbId, { name: 'x.txt', bytes: 'secret plans' })).body.document.id;
    const other = restClient(t.app, (await createOrgWithKey(t.deps)).api_key);
    expect((await other.get(`/api/kbs/${kbId}/documents`)).status).toBe(404);
    expect((await other.get(`/api/kbs/${kbId}/documents/${id}`)).status).toBe(404);
    expect((await other.delete(`/api/kbs/${kbId}/documents/${id}`)).status).toBe(404);
    expect((await other.raw(`/api/kbs/${kbId}/documents/${id}/reingest`, { method: 'POST' })).status).toBe(404);
    expect((await uploadFile(t.app, (await createOrgWithKey(t.deps)).api_key, kbId, { name: 'y.txt', bytes: 'x' })).status).toBe(404);
  });
});

describe('URL ingestion input', () => {
  it('refuses non-http(s), private and metadata addresses with 400 and stores nothing', async () => {
    const { api, kbId } = await newKb();
    for (const url of ['file:///etc/passwd', 'ftp://example.com/', 'http://127.0.0.1/', 'http://localhost:8080/', 'http://169.254.169.254/latest/meta-data/', 'http://10.0.0.5/', 'http://[::1]/', 'not a url']) {
      const res = await api.post('/api/ingest/url', { kb_id: kbId, url });
      expect(res.status, url).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_input', field: 'url' });
    }
    const bad = await api.post('/api/ingest/url', { kb_id: kbId, url: 'https://example.com/', max_pages: 0 });
    expect(bad.body.error.field).toBe('max_pages');
    expect((await api.get(`/api/kbs/${kbId}/documents`)).body.documents).toEqual([]);
  });
});
