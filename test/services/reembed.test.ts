/**
 * Changing the embedding model (here: offline -> OpenAI-compatible) re-embeds existing KBs through
 * the kbs__reembed job; queries never compare vectors of two models, before, during or after.
 */
import { runOnce } from 'graphile-worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentWorkerLogger } from '../../db/migrate';
import { createApp } from '../../src/app';
import type { AppDeps } from '../../src/context';
import { createTaskList } from '../../src/jobs/task-list';
import { createAiDeps } from '../../src/runtime';
import { enqueueReembeddingWhereNeeded } from '../../src/services/kbs/reembed-kb';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, testConfig, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server';

let t: TestApp;
let fake: FakeOpenAI;
beforeAll(async () => {
  t = await createTestApp();
  fake = await startFakeOpenAI({ reply: () => 'It flies for 47 minutes [1].' });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

describe('embedding model change', () => {
  it('re-embeds a KB with the new model through a job, then searches with it', async () => {
    const { api_key } = await createOrgWithKey(t.deps);
    const api = restClient(t.app, api_key);
    const kbId = (await api.post('/api/kbs', { name: 'Drones' })).body.kb.id;
    await uploadFile(t.app, api_key, kbId, { name: 'z.md', bytes: '# Zephyr-9\n\nThe Zephyr-9 can fly for 47 minutes.\n\n## Charging\n\nCharging takes 90 minutes.' });
    await runQueuedJobs(t);
    const before = await t.db.selectFrom('chunks').select(['embedding_model', 'embedding_dimensions']).where('kb_id', '=', kbId).execute();
    expect(before.every((c) => c.embedding_model === 'local:use-lite-distilled@1' && c.embedding_dimensions === 512)).toBe(true);

    // The same database, now served by a process configured with an OpenAI-compatible server.
    const config = testConfig({ OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: fake.url });
    const online: AppDeps = { ...t.deps, config, ...createAiDeps(config) };
    expect(await enqueueReembeddingWhereNeeded(online)).toBeGreaterThanOrEqual(1);

    // Until the job runs, search still embeds queries with the KB's recorded (offline) model.
    const app = createApp(online);
    const early = await restClient(app, api_key).post('/api/rag/search', { kb_id: kbId, query: 'How long can the Zephyr-9 fly?' });
    expect(early.status).toBe(200);
    expect(fake.requests.filter((r) => r.endpoint === 'embeddings')).toHaveLength(0);

    await runOnce({ pgPool: t.database.pool, taskList: createTaskList(online), noPreparedStatements: t.database.mode !== 'postgres', logger: silentWorkerLogger });
    const after = await t.db.selectFrom('chunks').select(['embedding_model', 'embedding_dimensions']).where('kb_id', '=', kbId).execute();
    expect(after.length).toBe(before.length);
    expect(after.every((c) => c.embedding_model === 'openai:text-embedding-3-small@1536' && c.embedding_dimensions === 1536)).toBe(true);
    const kb = await t.db.selectFrom('knowledge_bases').selectAll().where('id', '=', kbId).executeTakeFirstOrThrow();
    expect(kb).toMatchObject({ embedding_model: 'openai:text-embedding-3-small@1536', embedding_dimensions: 1536 });

    const res = await restClient(app, api_key).post('/api/rag/search', { kb_id: kbId, query: 'How long can the Zephyr-9 fly?' });
    expect(res.body.answer).toMatch(/47 minutes/);
    expect(res.body.citations[0].filename).toBe('z.md');
    // The query was embedded by the new model.
    expect(fake.requests.filter((r) => r.endpoint === 'embeddings').at(-1)!.body.input).toEqual(['How long can the Zephyr-9 fly?']);
    expect(await enqueueReembeddingWhereNeeded(online)).toBe(0);
  });
});
