/**
 * Runs that start by themselves when what a KB retrieves changes and it has a test set: after a
 * re-crawl that changed pages (not after one that changed nothing), after re-embedding, after an
 * uploaded document is ingested again (re-parsed, or uploaded again with replace=true; a big one
 * once its last step job is done), and never for a KB without cases or for a first ingestion.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KbId } from '../../src/ids';
import { INGEST_STEP_CHUNKS } from '../../src/services/documents/ingest-steps';
import { reembedKb } from '../../src/services/kbs/reembed-kb';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { seededProse } from '../helpers/ingestion-load';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { startFixtureServer, type FixtureServer } from '../ingest/crawl-fixture-server';

let t: TestApp;
let site: FixtureServer;
beforeAll(async () => {
  t = await createTestApp({ env: { CRAWL_ALLOW_PRIVATE: 'true' } });
  site = await startFixtureServer();
});
afterAll(async () => {
  await site?.close();
  await t?.close();
});

const page = (hours: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>Opening hours</title></head><body><main><h1>Opening hours</h1><p>The Harbour Museum is open ${hours} every day of the week, including public holidays.</p></main></body></html>`;

describe('automatic eval runs', () => {
  it('start after a re-crawl that changed a page and after re-embedding, when the KB has cases', async () => {
    site.overrides.set('/index.html', page('from 9 to 17'));
    const { api_key } = await createOrgWithKey(t.deps);
    const api = restClient(t.app, api_key);
    const kbId: string = (await api.post('/api/kbs', { name: 'Museum' })).body.kb.id;
    const doc = await api.post('/api/ingest/url', { url: `${site.origin}/index.html`, kb_id: kbId, max_pages: 1, max_depth: 0 });
    expect(doc.status).toBe(202);
    await runQueuedJobs(t);
    const docId: string = doc.body.document.id;
    const runs = async () => (await api.get(`/api/kbs/${kbId}/evals/runs`)).body.runs as Array<{ trigger: string; status: string; summary: any; regression: any }>;

    // No cases: a changed page starts nothing.
    site.overrides.set('/index.html', page('from 10 to 18'));
    await api.post(`/api/kbs/${kbId}/documents/${docId}/recrawl`, {});
    await runQueuedJobs(t);
    expect(await runs()).toEqual([]);

    await api.post(`/api/kbs/${kbId}/evals/cases`, { question: 'When is the Harbour Museum open?', answer: 'from 10 to 18' });
    await api.post(`/api/kbs/${kbId}/evals/runs`, {});
    await runQueuedJobs(t);
    expect((await runs())[0]).toMatchObject({ trigger: 'manual', status: 'completed', summary: { answer_contains: 1 } });

    // An unchanged page: no run.
    await api.post(`/api/kbs/${kbId}/documents/${docId}/recrawl`, {});
    await runQueuedJobs(t);
    expect(await runs()).toHaveLength(1);

    // The page changes: a run starts by itself, finds the answer gone and is flagged.
    site.overrides.set('/index.html', page('from 11 to 15'));
    await api.post(`/api/kbs/${kbId}/documents/${docId}/recrawl`, {});
    await runQueuedJobs(t);
    const [auto] = await runs();
    expect(auto).toMatchObject({ trigger: 'recrawl', status: 'completed', summary: { answer_contains: 0 }, regression: { flagged: true, drops: { answer_contains: [1, 0] } } });

    await t.db.updateTable('knowledge_bases').set({ embedding_model: 'an-older-model' }).where('id', '=', kbId as KbId).execute();
    await reembedKb(t.deps, kbId as KbId);
    await runQueuedJobs(t);
    expect((await runs())[0]).toMatchObject({ trigger: 'reindex', status: 'completed' });
    expect(await runs()).toHaveLength(3);
  });
});

const LEAFLET = Buffer.from(
  [
    '# Lantern Ferry timetable',
    '',
    'The Lantern Ferry leaves Quillon pier at 7:40 and at 16:15 on weekdays.',
    'On Sundays the only crossing leaves at 11:05. Bicycles travel free of charge.',
  ].join('\n'),
);

async function uploadFile(key: string, kbId: string, name: string, bytes: Buffer, extra: Record<string, string> = {}) {
  const form = new FormData();
  form.append('file', new Blob([bytes as BlobPart]), name);
  form.set('kb_id', kbId);
  for (const [k, v] of Object.entries(extra)) form.set(k, v);
  const res = await t.app.fetch(new Request('http://groundwork.test/api/ingest/upload', { method: 'POST', headers: { 'x-api-key': key }, body: form }));
  return { status: res.status, body: (await res.json()) as any };
}

describe('automatic eval runs after a document is ingested again', () => {
  it('start after a re-parse and after an upload with replace=true, not after a first ingestion', async () => {
    const { api_key } = await createOrgWithKey(t.deps);
    const api = restClient(t.app, api_key);
    const kbId: string = (await api.post('/api/kbs', { name: 'Ferries' })).body.kb.id;
    const runs = async () => (await api.get(`/api/kbs/${kbId}/evals/runs`)).body.runs as Array<{ trigger: string; status: string; summary: any }>;
    const created = await api.post(`/api/kbs/${kbId}/evals/cases`, { question: 'When does the Lantern Ferry leave on Sundays?', documents: ['ferry.md'] });
    expect(created.status).toBe(201);

    // A first ingestion adds a document: no run, though the KB has a case.
    const first = await uploadFile(api_key, kbId, 'ferry.md', LEAFLET);
    expect(first.status).toBe(202);
    const docId: string = first.body.document.id;
    await runQueuedJobs(t);
    expect((await api.get(`/api/kbs/${kbId}/documents/${docId}`)).body.document).toMatchObject({ status: 'ready' });
    expect(await runs()).toEqual([]);

    // Re-parsed: the run starts once the new version is ready, and answers from it.
    expect((await api.post(`/api/kbs/${kbId}/documents/${docId}/reingest`, {})).status).toBe(202);
    await runQueuedJobs(t);
    expect(await runs()).toMatchObject([{ trigger: 'reingest', status: 'completed', summary: { cases: 1, hit_at_1: 1, hit_at_k: 1 } }]);

    // The same file uploaded again with replace=true: that document again, and another run.
    const replaced = await uploadFile(api_key, kbId, 'ferry.md', LEAFLET, { replace: 'true' });
    expect(replaced).toMatchObject({ status: 202, body: { duplicate: true, replaced: true, document: { id: docId } } });
    await runQueuedJobs(t);
    expect((await runs()).map((r) => [r.trigger, r.status])).toEqual([['reingest', 'completed'], ['reingest', 'completed']]);

    // Without replace it is answered as a duplicate: nothing is ingested, nothing runs.
    expect((await uploadFile(api_key, kbId, 'ferry.md', LEAFLET)).status).toBe(200);
    await runQueuedJobs(t);
    expect(await runs()).toHaveLength(2);
  });

  it('start once a big document re-ingested in steps is ready, not when its first job hands over', async () => {
    const { api_key } = await createOrgWithKey(t.deps, { plan: 'pro' });
    const api = restClient(t.app, api_key);
    const kbId: string = (await api.post('/api/kbs', { name: 'Depot' })).body.kb.id;
    const docId: string = (await uploadFile(api_key, kbId, 'rota.txt', Buffer.from(seededProse(5, 6 * INGEST_STEP_CHUNKS)))).body.document.id;
    await runQueuedJobs(t);
    const before = (await api.get(`/api/kbs/${kbId}/documents/${docId}`)).body.document;
    expect(before.status).toBe('ready');
    expect(before.chunk_count).toBeGreaterThan(INGEST_STEP_CHUNKS);
    await api.post(`/api/kbs/${kbId}/evals/cases`, { question: 'Which depot shift rota applies to the freight berth?', documents: ['rota.txt'] });

    // Another organisation's file waits behind the re-ingestion: the big document's first job
    // hands over to a step job at once, and that file is ready before the big document is.
    expect((await api.post(`/api/kbs/${kbId}/documents/${docId}/reingest`, {})).status).toBe(202);
    const other = await createOrgWithKey(t.deps);
    const otherKb: string = (await restClient(t.app, other.api_key).post('/api/kbs', { name: 'Ferries elsewhere' })).body.kb.id;
    const small: string = (await uploadFile(other.api_key, otherKb, 'ferry.md', LEAFLET)).body.document.id;
    await runQueuedJobs(t);

    const runs = (await api.get(`/api/kbs/${kbId}/evals/runs`)).body.runs as Array<{ trigger: string; status: string; created_at: string; summary: any }>;
    expect(runs).toMatchObject([{ trigger: 'reingest', status: 'completed', summary: { cases: 1, hit_at_k: 1 } }]);
    const smallReady = (await restClient(t.app, other.api_key).get(`/api/kbs/${otherKb}/documents/${small}`)).body.document;
    expect(smallReady.status).toBe('ready');
    expect(Date.parse(runs[0]!.created_at)).toBeGreaterThanOrEqual(Date.parse(smallReady.updated_at));
    expect((await api.get(`/api/kbs/${kbId}/documents/${docId}`)).body.document).toMatchObject({ status: 'ready', chunk_count: before.chunk_count });
  }, 300_000);

  it('start nothing for a KB without cases', async () => {
    const { api_key } = await createOrgWithKey(t.deps);
    const api = restClient(t.app, api_key);
    const kbId: string = (await api.post('/api/kbs', { name: 'Ferries without tests' })).body.kb.id;
    const docId: string = (await uploadFile(api_key, kbId, 'ferry.md', LEAFLET)).body.document.id;
    await runQueuedJobs(t);
    expect((await api.post(`/api/kbs/${kbId}/documents/${docId}/reingest`, {})).status).toBe(202);
    await runQueuedJobs(t);
    expect((await api.get(`/api/kbs/${kbId}/documents/${docId}`)).body.document).toMatchObject({ status: 'ready' });
    expect((await api.get(`/api/kbs/${kbId}/evals/runs`)).body.runs).toEqual([]);
  });
});
