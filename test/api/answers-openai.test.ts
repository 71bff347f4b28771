/**
 * The OpenAI path end to end against a local server speaking OpenAI's wire protocol: @ai-sdk/openai
 * embeds the chunks and the queries, streams the answer over chat completions, and condenses chat
 * follow-ups — the same service code as offline, only the providers differ.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlClient, restClient, trpcClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server';

let fake: FakeOpenAI;
let t: TestApp;
let api: ReturnType<typeof restClient>;
let kbId: string;
let apiKey: string;

const DOC = `# Zephyr-9\n\nThe Zephyr-9 drone is made by Northwind Aerial.\n\nThe Zephyr-9 can fly for 47 minutes on one charge.`;

beforeAll(async () => {
  fake = await startFakeOpenAI({
    reply: (req) => {
      const system = req.messages.find((m) => m.role === 'system')?.content ?? '';
      if (system.includes('Task: condense-query')) return 'How long can the Zephyr-9 fly?';
      return system.includes('47 minutes') ? 'It flies for 47 minutes on one charge [1].' : "I couldn't find this in the knowledge base.";
    },
  });
  t = await createTestApp({ env: { OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: fake.url, OPENAI_MODEL: 'gpt-test' } });
  const { api_key } = await createOrgWithKey(t.deps);
  apiKey = api_key;
  api = restClient(t.app, api_key);
  kbId = (await api.post('/api/kbs', { name: 'Drones' })).body.kb.id;
  expect((await uploadFile(t.app, api_key, kbId, { name: 'zephyr.md', bytes: DOC })).status).toBe(202);
  await runQueuedJobs(t);
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

describe('with OPENAI_API_KEY', () => {
  it('embeds chunks with the OpenAI embeddings endpoint and records the model on the KB', async () => {
    const embeds = fake.requests.filter((r) => r.endpoint === 'embeddings');
    expect(embeds.length).toBeGreaterThan(0);
    expect(embeds[0]!.body.model).toBe('text-embedding-3-small');
    const kb = await t.db.selectFrom('knowledge_bases').selectAll().where('id', '=', kbId as never).executeTakeFirstOrThrow();
    expect(kb).toMatchObject({ embedding_model: 'openai:text-embedding-3-small@1536', embedding_dimensions: 1536 });
    const chunk = await t.db.selectFrom('chunks').select('embedding_dimensions').where('kb_id', '=', kbId as never).executeTakeFirstOrThrow();
    expect(chunk.embedding_dimensions).toBe(1536);
  });

  it('answers through chat completions with a grounded prompt and maps the [n] markers to citations', async () => {
    const res = await api.post('/api/rag/search', { kb_id: kbId, query: 'How long can the Zephyr-9 fly?' });
    expect(res.status).toBe(200);
    expect(res.body.answer).toBe('It flies for 47 minutes on one charge [1].');
    expect(res.body.citations).toHaveLength(1);
    expect(res.body.citations[0]).toMatchObject({ marker: 1, filename: 'zephyr.md' });
    const call = fake.requests.filter((r) => r.endpoint === 'chat.completions').at(-1)!;
    expect(call.model).toBe('gpt-test');
    expect(call.stream).toBe(true);
    const system = call.messages.find((m) => m.role === 'system')!.content;
    expect(system).toMatch(/only the passages/i);
    expect(system).toMatch(/\[1\] \(source: zephyr\.md/);
    expect(call.lastUserText).toBe('How long can the Zephyr-9 fly?');
  });

  it('condenses chat follow-ups with the LLM before retrieval', async () => {
    const first = await api.post('/api/rag/chat', { kb_id: kbId, message: 'Who makes the Zephyr-9?' });
    expect(first.status).toBe(200);
    const before = fake.requests.length;
    const second = await api.post('/api/rag/chat', { kb_id: kbId, message: 'How long can it fly?', session_id: first.body.session_id });
    expect(second.body.response).toMatch(/47 minutes/);
    const calls = fake.requests.slice(before).filter((r) => r.endpoint === 'chat.completions');
    expect(calls[0]!.messages.some((m) => m.content.includes('Task: condense-query'))).toBe(true);
    expect(calls[0]!.lastUserText).toMatch(/Who makes the Zephyr-9\?[\s\S]*Follow-up question: How long can it fly\?/);
    // The answer call sees the history as earlier turns.
    expect(calls[1]!.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['Who makes the Zephyr-9?', 'How long can it fly?']);
  });

  it('gives the same answer and citations through REST, GraphQL and tRPC', async () => {
    const query = 'How long can the Zephyr-9 fly?';
    const rest = (await api.post('/api/rag/search', { kb_id: kbId, query })).body;
    const gql = (
      await graphqlClient(t.app, apiKey)(
        `query($k: ID!, $q: String!) { search(kbId: $k, query: $q) { answer citations { docId score chunkId marker filename url page heading snippet used sourceType annotationId title } refused } }`,
        { k: kbId, q: query },
      )
    ).body.data!.search;
    const trpc = (await trpcClient(t.app, apiKey).mutation('rag.search', { kb_id: kbId, query })).body.result.data;
    const snake = (c: Record<string, unknown>) => Object.fromEntries(Object.entries(c).map(([k, v]) => [k.replace(/[A-Z]/g, (x) => `_${x.toLowerCase()}`), v]));
    expect({ answer: gql.answer, citations: gql.citations.map(snake), refused: gql.refused }).toEqual(rest);
    expect(trpc).toEqual(rest);
  });

  it('reports a provider failure as a clean error, not an empty answer', async () => {
    fake.failNext({ status: 500, message: 'upstream exploded' }, 10);
    const res = await api.post('/api/rag/search', { kb_id: kbId, query: 'How long can the Zephyr-9 fly?' });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('unavailable');
    expect(JSON.stringify(res.body)).not.toMatch(/exploded/);
  });
});
