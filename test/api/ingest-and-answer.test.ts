/**
 * End to end through REST: upload -> documents__ingest job -> ready with chunks -> search and chat
 * answer from it with citations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';
import { ZEPHYR_MD } from '../fixtures/zephyr';


const BAKERY = `Opening hours of the Rye & Crumb bakery.
The bakery opens at 7 am on weekdays and at 8 am on Saturdays. It is closed on Sundays.
Sourdough loaves are baked fresh every morning.`;

let t: TestApp;
let api: ReturnType<typeof restClient>;
let kbId: string;
let apiKey: string;

beforeAll(async () => {
  t = await createTestApp();
  apiKey = (await createOrgWithKey(t.deps)).api_key;
  api = restClient(t.app, apiKey);
  kbId = (await api.post('/api/kbs', { name: 'Products' })).body.kb.id;
  const up1 = await uploadFile(t.app, apiKey, kbId, { name: 'zephyr.md', bytes: ZEPHYR_MD });
  const up2 = await uploadFile(t.app, apiKey, kbId, { name: 'bakery.txt', bytes: BAKERY });
  expect(up1.status).toBe(202);
  expect(up1.body.document).toMatchObject({ status: 'processing', filename: 'zephyr.md' });
  expect(up1.body.document.id).toMatch(/^doc_/);
  expect(up2.status).toBe(202);
  await runQueuedJobs(t);
});
afterAll(() => t?.close());

describe('ingestion', () => {
  it('lists the documents as ready with chunk counts, and counts them on the KB', async () => {
    const { body } = await api.get(`/api/kbs/${kbId}/documents`);
    expect(body.documents).toHaveLength(2);
    for (const d of body.documents) {
      expect(d).toMatchObject({ status: 'ready', error: null });
      expect(d.chunk_count).toBeGreaterThan(0);
    }
    const kb = (await api.get('/api/kbs')).body.kbs.find((k: any) => k.id === kbId);
    expect(kb.doc_count).toBe(2);
  });
});

describe('search', () => {
  it('answers from the right document with a citation', async () => {
    const res = await api.post('/api/rag/search', { kb_id: kbId, query: 'How long can the Zephyr-9 fly on one charge?' });
    expect(res.status).toBe(200);
    expect(res.body.answer).toMatch(/47 minutes/);
    expect(res.body.answer).toMatch(/\[\d\]/);
    expect(res.body.citations.length).toBeGreaterThan(0);
    const docs = (await api.get(`/api/kbs/${kbId}/documents`)).body.documents;
    const zephyr = docs.find((d: any) => d.filename === 'zephyr.md');
    expect(res.body.citations[0]).toMatchObject({ doc_id: zephyr.id, filename: 'zephyr.md' });
    expect(res.body.citations[0].score).toBeGreaterThan(0);
    expect(res.body.citations[0].score).toBeLessThan(1);
    expect(res.body.citations[0].snippet).toMatch(/47 minutes/);
  });

  it('says plainly when the knowledge base does not have the answer', async () => {
    const res = await api.post('/api/rag/search', { kb_id: kbId, query: 'What is the capital of Australia?' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ answer: "I couldn't find this in the knowledge base.", refused: true });
    // The closest passages still come back, each marked as not used by the answer.
    expect(res.body.citations.length).toBeGreaterThan(0);
    for (const c of res.body.citations) expect(c).toMatchObject({ used: false, doc_id: expect.stringMatching(/^doc_/), score: expect.any(Number) });
  });

  it('honours top_k and validates it', async () => {
    const one = await api.post('/api/rag/search', { kb_id: kbId, query: 'bakery opening hours Saturday', top_k: 1, stream: false });
    expect(one.status).toBe(200);
    expect(one.body.citations.length).toBeLessThanOrEqual(1);
    for (const bad of [0, 51, 2.5, '5']) {
      const r = await api.post('/api/rag/search', { kb_id: kbId, query: 'x', top_k: bad });
      expect(r.status, `top_k=${bad}`).toBe(400);
      expect(r.body.error.field).toBe('top_k');
    }
  });
});

describe('chat', () => {
  it('remembers the conversation across three turns', async () => {
    const first = await api.post('/api/rag/chat', { kb_id: kbId, message: 'Who makes the Zephyr-9?' });
    expect(first.status).toBe(200);
    expect(first.body.session_id).toMatch(/^sess_/);
    expect(first.body.response).toMatch(/Northwind Aerial/);

    const second = await api.post('/api/rag/chat', { kb_id: kbId, message: 'How long can it fly?', session_id: first.body.session_id });
    expect(second.body.session_id).toBe(first.body.session_id);
    expect(second.body.response).toMatch(/47 minutes/);

    const third = await api.post('/api/rag/chat', { kb_id: kbId, message: 'And how long does charging its battery take?', session_id: first.body.session_id });
    expect(third.body.response).toMatch(/90 minutes/);
    expect(third.body.citations.length).toBeGreaterThan(0);
  });

  it('refuses an unknown or foreign session id with 404', async () => {
    const unknown = await api.post('/api/rag/chat', { kb_id: kbId, message: 'hi', session_id: 'sess_doesnotexist' });
    expect(unknown.status).toBe(404);
    const other = await createOrgWithKey(t.deps);
    const otherApi = restClient(t.app, other.api_key);
    const otherKb = (await otherApi.post('/api/kbs', { name: 'Other' })).body.kb.id;
    const mine = await api.post('/api/rag/chat', { kb_id: kbId, message: 'Who makes the Zephyr-9?' });
    const stolen = await otherApi.post('/api/rag/chat', { kb_id: otherKb, message: 'How long can it fly?', session_id: mine.body.session_id });
    expect(stolen.status).toBe(404);
    expect((await otherApi.post('/api/rag/search', { kb_id: kbId, query: 'Zephyr' })).status).toBe(404);
  });
});
