/**
 * Runs that start by themselves when what a KB retrieves changes and it has a test set: after a
 * re-crawl that changed pages (not after one that changed nothing), after re-embedding, and never
 * for a KB without cases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KbId } from '../../src/ids';
import { reembedKb } from '../../src/services/kbs/reembed-kb';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
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
