/**
 * With a language model, the prompt carries the passages shown (top_k) and then the ranking's next
 * ones within the prompt's token budget (answer-stream.ts PROMPT_TOKENS); a marker past top_k cites
 * a passage the `citations` event did not list, and the answer's citations carry it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateTokens, promptTokens } from '../../src/ai/prompts';
import { PROMPT_TOKENS, promptChunks } from '../../src/answering/answer-stream';
import type { RetrievedChunk } from '../../src/answering/retrieval/retrieve';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server';

const LAKES = ['Amber', 'Birch', 'Cedar', 'Dune', 'Elm', 'Fern', 'Gale', 'Heath'];
const lakeDoc = (name: string, i: number) => `# ${name} Lake\n\n${name} Lake lies in the northern hills. Its deepest point is ${20 + i} metres, and anglers catch trout there.`;

let fake: FakeOpenAI;
let t: TestApp;
let api: ReturnType<typeof restClient>;
let kbId: string;

beforeAll(async () => {
  // The model cites the last passage it was sent, whichever number that is.
  fake = await startFakeOpenAI({
    reply: (req) => {
      const system = req.messages.find((m) => m.role === 'system')?.content ?? '';
      const markers = [...system.matchAll(/^\[(\d+)\] \(source:/gm)].map((m) => Number(m[1]));
      return `The lakes are in the northern hills [${Math.max(...markers)}].`;
    },
  });
  t = await createTestApp({ env: { OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: fake.url, OPENAI_MODEL: 'gpt-test' } });
  const { api_key } = await createOrgWithKey(t.deps);
  api = restClient(t.app, api_key);
  kbId = (await api.post('/api/kbs', { name: 'Lakes' })).body.kb.id;
  for (const [i, name] of LAKES.entries()) expect((await uploadFile(t.app, api_key, kbId, { name: `${name.toLowerCase()}.md`, bytes: lakeDoc(name, i) })).status).toBe(202);
  await runQueuedJobs(t);
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

describe('the passages a language model is sent', () => {
  it('are the top k, then the next ranked ones, and a marker past k is cited', async () => {
    const before = fake.requests.length;
    const res = await api.post('/api/rag/search', { kb_id: kbId, query: 'Which lakes lie in the northern hills and have trout?', top_k: 2, stream: true });
    expect(res.status).toBe(200);
    const events = String(res.body)
      .split('\n\n')
      .filter(Boolean)
      .map((block) => ({ event: /^event: (.*)$/m.exec(block)?.[1], data: JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? 'null') }));
    const shown = events.find((e) => e.event === 'citations')!.data.citations as Array<{ marker: number; doc_id: string }>;
    expect(shown.map((c) => c.marker)).toEqual([1, 2]);
    const call = fake.requests.slice(before).find((r) => r.endpoint === 'chat.completions')!;
    const system = call.messages.find((m) => m.role === 'system')!.content;
    const sent = [...system.matchAll(/^\[(\d+)\] \(source: (\w+)\.md/gm)].map((m) => m[2]);
    // All eight short lakes fit the budget: the two shown first, then the other six.
    expect(sent).toHaveLength(LAKES.length);
    expect(new Set(sent).size).toBe(LAKES.length);
    const done = events.find((e) => e.event === 'done')!.data as { refused: boolean; citations: Array<{ marker: number; doc_id: string; filename: string }> };
    expect(done.refused).toBe(false);
    expect(done.citations).toHaveLength(1);
    expect(done.citations[0]!.marker).toBe(LAKES.length);
    expect(done.citations[0]!.filename).toBe(`${sent.at(-1)}.md`);
    expect(shown.some((c) => c.doc_id === (done.citations[0] as { doc_id: string }).doc_id)).toBe(false);
  });

  it('keep every shown passage and stop adding at the budget', () => {
    const chunk = (id: string, tokens: number) => ({ chunk_id: id, text: 'x'.repeat(tokens * 4) }) as unknown as RetrievedChunk;
    // The prompt's size: its passages plus 500 tokens of instructions and question.
    const tokensOf = (chunks: RetrievedChunk[]) => 500 + chunks.reduce((n, c) => n + estimateTokens(c.text), 0);
    const shown = [chunk('a', PROMPT_TOKENS), chunk('b', 10)];
    expect(promptChunks({ chunks: shown, confident: true, following: [chunk('c', 10)] }, tokensOf).map((c) => c.chunk_id)).toEqual(['a', 'b']);
    const half = (PROMPT_TOKENS - 500) / 2;
    const got = promptChunks({ chunks: [chunk('a', half - 100)], confident: true, following: [chunk('b', half), chunk('c', 200), chunk('d', 50)] }, tokensOf);
    // c does not fit after b; the order of the ranking is kept, so d is not sent either.
    expect(got.map((c) => c.chunk_id)).toEqual(['a', 'b']);
  });

  it('count a token a character where words are not spaced, so a Chinese prompt is not sent four times the budget', () => {
    expect(estimateTokens('The lake is deep.')).toBe(5);
    expect(estimateTokens('湖水很深。')).toBe(5);
    expect(estimateTokens('ทะเลสาบลึก')).toBe(10);
    const prompt = { system: '湖'.repeat(5000), messages: [{ role: 'user' as const, content: 'How deep is it?' }] };
    expect(promptTokens(prompt)).toBe(5000 + Math.ceil('\nHow deep is it?'.length / 4));
  });
});
