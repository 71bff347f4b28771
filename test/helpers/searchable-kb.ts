import { expect } from 'vitest';
import { restClient } from './api-client';
import { createOrgWithKey } from './factories';
import { runQueuedJobs } from './jobs';
import { createTestApp, type TestApp } from './test-app';
import { uploadFile } from './upload';

export type SearchBody = { answer: string; citations: Array<{ filename: string; used?: boolean }>; refused?: boolean };

/** A test app with one organisation whose one KB holds `files`, ingested, and search over it through REST. */
export async function searchableKb(files: Array<{ name: string; bytes: Uint8Array | string; type?: string }>) {
  const t: TestApp = await createTestApp();
  const { api_key } = await createOrgWithKey(t.deps);
  const api = restClient(t.app, api_key);
  const kbId: string = (await api.post('/api/kbs', { name: 'Test KB' })).body.kb.id;
  for (const file of files) expect((await uploadFile(t.app, api_key, kbId, file)).status).toBe(202);
  await runQueuedJobs(t);
  const search = async (query: string): Promise<SearchBody> => {
    const res = await api.post('/api/rag/search', { kb_id: kbId, query });
    expect(res.status).toBe(200);
    return res.body;
  };
  return { t, search };
}
