/**
 * The offline refusal gate (src/ai/offline/support.ts) end to end through POST /api/rag/search:
 * a KB of look-alike quarterly letters refuses a handbook question that shares its common words
 * ("days", "new employees") while its rare ones ("leave") are nowhere, and still answers what the
 * letters hold.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_FOUND_ANSWER } from '../../src/ai/prompts';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';
import { LOOK_ALIKE_REPORTS } from '../fixtures/look-alike-reports';

let t: TestApp;
let search: (query: string) => Promise<{ answer: string; citations: Array<{ filename: string }> }>;
beforeAll(async () => {
  t = await createTestApp();
  const { api_key } = await createOrgWithKey(t.deps);
  const api = restClient(t.app, api_key);
  const kbId = (await api.post('/api/kbs', { name: 'Kestrel letters' })).body.kb.id;
  for (const file of LOOK_ALIKE_REPORTS) await uploadFile(t.app, api_key, kbId, file);
  await runQueuedJobs(t);
  search = async (query) => {
    const res = await api.post('/api/rag/search', { kb_id: kbId, query });
    expect(res.status).toBe(200);
    return res.body;
  };
});
afterAll(async () => {
  await t?.close();
});

describe('offline refusal gate', () => {
  it.each(['How many days of leave do new employees get?', 'What is the dress code for customer visits?'])(
    'refuses an off-topic question that shares common words with the passages: %s',
    async (question) => {
      const res = await search(question);
      expect(res.answer).toBe(NOT_FOUND_ANSWER);
      expect(res.citations).toEqual([]);
    },
  );

  it('answers what the letters hold', async () => {
    const res = await search('How many new employees did Kestrel Freight hire in the first quarter?');
    expect(res.answer).toContain('260 new employees');
    expect(res.citations[0]!.filename).toBe('Kestrel Freight Q1 2023 shareholder letter.md');
  });
});
