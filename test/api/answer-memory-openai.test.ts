/**
 * Memory over answers on the OpenAI path, against the local fake OpenAI server: the condense
 * request sent upstream carries the answers (where the publisher is named) and, for a follow-up
 * already resolved to it, how it was read, so the model can keep the thread over three turns; the
 * query the model returns is what retrieval runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server';
import { CATALOGUE } from '../fixtures/answer-memory';

let fake: FakeOpenAI;
let t: TestApp;
let api: ReturnType<typeof restClient>;
let kbId: string;

const CONDENSED: Record<string, string> = {
  'What else has that publisher printed?': 'What else has Tallow & Reed printed?',
  'And when was it founded?': 'When was Tallow & Reed founded?',
};

beforeAll(async () => {
  fake = await startFakeOpenAI({
    reply: (req) => {
      const system = req.messages.find((m) => m.role === 'system')?.content ?? '';
      if (system.includes('Task: condense-query')) {
        const followUp = /Follow-up question: (.*)$/m.exec(req.lastUserText)?.[1] ?? '';
        return CONDENSED[followUp] ?? followUp;
      }
      if (/Who publishes/.test(req.lastUserText)) return 'The Harbour Atlas is published by Tallow & Reed of Ghent [1].';
      if (/else/.test(req.lastUserText)) return 'They have also printed The Lantern Almanac [1].';
      return 'It was founded in 1987 [1].';
    },
  });
  t = await createTestApp({ env: { OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: fake.url, OPENAI_MODEL: 'gpt-test' } });
  const { api_key } = await createOrgWithKey(t.deps);
  api = restClient(t.app, api_key);
  kbId = (await api.post('/api/kbs', { name: 'Catalogue' })).body.kb.id;
  for (const file of CATALOGUE) expect((await uploadFile(t.app, api_key, kbId, file)).status).toBe(202);
  await runQueuedJobs(t);
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

describe('memory over answers (OpenAI path)', () => {
  it('sends the answer-named publisher and the resolved follow-up upstream, three turns deep', async () => {
    const first = await api.post('/api/rag/chat', { kb_id: kbId, message: 'Who publishes the harbour atlas?' });
    expect(first.body.response).toContain('Tallow & Reed');
    const session_id = first.body.session_id;
    await api.post('/api/rag/chat', { kb_id: kbId, session_id, message: 'What else has that publisher printed?' });

    const before = fake.requests.length;
    const third = await api.post('/api/rag/chat', { kb_id: kbId, session_id, message: 'And when was it founded?' });
    expect(third.status).toBe(200);
    const calls = fake.requests.slice(before).filter((r) => r.endpoint === 'chat.completions');
    const condense = calls.find((r) => r.messages.some((m) => m.role === 'system' && m.content.startsWith('Task: condense-query')))!;
    expect(condense).toBeDefined();
    const convo = condense.lastUserText;
    // The publisher appears only in the answer; the earlier follow-up is shown as it was read.
    expect(convo).toContain('Assistant: The Harbour Atlas is published by Tallow & Reed of Ghent.');
    expect(convo).toContain('User: What else has that publisher printed?\n  (read as: What else has Tallow & Reed printed?)');
    expect(convo).toMatch(/Follow-up question: And when was it founded\?$/);
    expect(condense.messages.find((m) => m.role === 'system')!.content).toMatch(/what the assistant's previous answer named/);

    // Retrieval ran the model's rewrite: the answer prompt holds the press's founding passage.
    const answer = calls.find((r) => r !== condense)!;
    const system = answer.messages.find((m) => m.role === 'system')!.content;
    expect(system).toContain('Tallow & Reed was founded in 1987');
    expect(third.body.citations[0].filename).toBe('tallow-reed.md');
  });
});
