/**
 * The two other ingestion paths end to end: a crawl of the shared 101-page site through
 * POST /api/ingest/url, and parsing through an Unstructured server (the official client against a
 * local server that answers /general/v0/general with the real response shape).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_FOUND_ANSWER } from '../../src/ai/prompts';
import type { DocumentId } from '../../src/ids';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';
import { startFakeUnstructured, type FakeUnstructured } from '../fakes/unstructured-server';
import { startFixtureServer, type FixtureServer } from '../ingest/crawl-fixture-server';

const DOCS = path.resolve(import.meta.dirname, '../../../shared/data/docs');

let site: FixtureServer;
let unstructured: FakeUnstructured;
let t: TestApp;
beforeAll(async () => {
  site = await startFixtureServer();
  unstructured = await startFakeUnstructured({ apiKey: 'uns-key' });
  t = await createTestApp({ env: { CRAWL_ALLOW_PRIVATE: 'true', UNSTRUCTURED_API_URL: unstructured.url, UNSTRUCTURED_API_KEY: 'uns-key' } });
});
afterAll(async () => {
  await t?.close();
  await site?.close();
  await unstructured?.close();
});

describe('crawling a site', () => {
  it('ingests up to max_pages same-site pages as one document whose chunks keep their page URLs, and answers from it', async () => {
    const { api_key } = await createOrgWithKey(t.deps);
    const api = restClient(t.app, api_key);
    const kbId = (await api.post('/api/kbs', { name: 'PCRE2' })).body.kb.id;
    const res = await api.post('/api/ingest/url', { kb_id: kbId, url: `${site.origin}/index.html`, max_pages: 12, max_depth: 2 });
    expect(res.status).toBe(202);
    await runQueuedJobs(t);
    const doc = (await api.get(`/api/kbs/${kbId}/documents/${res.body.document.id}`)).body.document;
    expect(doc).toMatchObject({ status: 'ready', source: 'url', filename: `${site.origin}/index.html`, pages: 12 });
    const chunks = await t.db.selectFrom('chunks').select(['url', 'text']).where('document_id', '=', doc.id as DocumentId).execute();
    expect(chunks.length).toBe(doc.chunk_count);
    const urls = new Set(chunks.map((c) => c.url));
    expect(urls.size).toBe(12);
    for (const u of urls) expect(u).toMatch(new RegExp(`^${site.origin}/`));

    const answer = await api.post('/api/rag/search', { kb_id: kbId, query: 'What does pcre2_compile do?' });
    expect(answer.status).toBe(200);
    expect(answer.body.citations.length).toBeGreaterThan(0);
    expect(answer.body.citations[0].url).toMatch(new RegExp(`^${site.origin}/`));

    // A question for an employee handbook, asked of regular-expression manuals, was once answered
    // from an unrelated passage at score 0.78.
    const offTopic = await api.post('/api/rag/search', { kb_id: kbId, query: 'How many days of leave do new employees get?' });
    expect(offTopic.body).toMatchObject({ answer: NOT_FOUND_ANSWER, refused: true });
    expect(offTopic.body.citations.every((c: { used: boolean }) => !c.used)).toBe(true);
  });
});

describe('with UNSTRUCTURED_API_URL', () => {
  it('parses uploads through the Unstructured partition API and keeps its page numbers', async () => {
    const { api_key } = await createOrgWithKey(t.deps);
    const api = restClient(t.app, api_key);
    const kbId = (await api.post('/api/kbs', { name: 'Papers' })).body.kb.id;
    const before = unstructured.requests.length;
    const up = await uploadFile(t.app, api_key, kbId, { name: 'layout.pdf', bytes: readFileSync(path.join(DOCS, 'layout-parser-paper-with-empty-pages.pdf')) });
    await runQueuedJobs(t);
    expect(unstructured.requests.length).toBe(before + 1);
    const doc = (await api.get(`/api/kbs/${kbId}/documents/${up.body.document.id}`)).body.document;
    expect(doc.status).toBe('ready');
    const pages = await t.db.selectFrom('chunks').select('page').where('document_id', '=', doc.id as DocumentId).execute();
    expect(new Set(pages.map((p) => p.page)).size).toBeGreaterThan(1);
  });

  it('retries when the Unstructured server fails transiently, and fails the document on a permanent refusal', async () => {
    const { api_key } = await createOrgWithKey(t.deps);
    const api = restClient(t.app, api_key);
    const kbId = (await api.post('/api/kbs', { name: 'Notes' })).body.kb.id;
    unstructured.failNext({ status: 422, detail: 'File type not supported by this deployment' }, 1);
    const up = await uploadFile(t.app, api_key, kbId, { name: 'notes.md', bytes: '# Notes\n\nSomething.' });
    await runQueuedJobs(t);
    const failed = (await api.get(`/api/kbs/${kbId}/documents/${up.body.document.id}`)).body.document;
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/not supported by this deployment/);

    unstructured.failNext({ status: 503 }, 1);
    const up2 = await uploadFile(t.app, api_key, kbId, { name: 'more.md', bytes: '# More\n\nSomething else.' });
    await runQueuedJobs(t);
    expect((await api.get(`/api/kbs/${kbId}/documents/${up2.body.document.id}`)).body.document.status).toBe('processing');
    // The retry is scheduled with backoff; run it now.
    await t.db.updateTable('graphile_worker._private_jobs' as never).set({ run_at: new Date() } as never).execute();
    await runQueuedJobs(t);
    expect((await api.get(`/api/kbs/${kbId}/documents/${up2.body.document.id}`)).body.document.status).toBe('ready');
  });
});
