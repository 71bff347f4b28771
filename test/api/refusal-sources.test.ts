/**
 * A refused answer still shows what retrieval found: on every transport (REST search and chat, as
 * JSON and as SSE; GraphQL; tRPC; the widget's SSE) the answer says it could not answer from the
 * knowledge base, and the citations are the closest passages, each `used: false` with its doc_id
 * and score. An answered question's citations stay `used: true`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_FOUND_ANSWER } from '../../src/ai/prompts';
import { graphqlClient, restClient, trpcClient } from '../helpers/api-client';
import { createWidgetOrg, createWidgetTestApp, widgetClient, type SseEvent, type WidgetOrg } from '../widget/widget-fixture';

const ORCHARD_MD = `# Hollowmere orchard handbook

## Pruning
Apple trees in the Hollowmere orchard are pruned in late February, before the buds open.

## Harvest
The Bramley harvest starts in the second week of September and lasts about three weeks.
`;

// Shares the handbook's words ("orchard", "trees", "harvest") without being about anything it holds.
const REFUSED = 'Which tractor brand does the orchard use for the harvest of pear trees in Argentina?';
const ANSWERED = 'When are the apple trees pruned?';

let t: Awaited<ReturnType<typeof createWidgetTestApp>>;
let org: WidgetOrg;

beforeAll(async () => {
  t = await createWidgetTestApp();
  org = await createWidgetOrg(t, { document: ORCHARD_MD, kbName: 'Orchard' });
});
afterAll(async () => t?.close());

function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .map((block) => ({ event: /^event: ?(.*)$/m.exec(block)?.[1], data: /^data: ?(.*)$/m.exec(block)?.[1] }))
    .filter((e): e is { event: string; data: string } => !!e.event && e.data !== undefined)
    .map((e) => ({ event: e.event, data: JSON.parse(e.data) }));
}

function expectClosest(citations: Array<Record<string, unknown>>, keys: { docId: string; score: string } = { docId: 'doc_id', score: 'score' }) {
  expect(citations.length).toBeGreaterThan(0);
  for (const c of citations) {
    expect(c.used).toBe(false);
    expect(c[keys.docId]).toMatch(/^doc_/);
    expect(c[keys.score]).toEqual(expect.any(Number));
  }
}

describe('sources on refusal', () => {
  it('REST search, JSON: the refusal text with the closest passages marked as not used', async () => {
    const res = await restClient(t.app, org.apiKey).post('/api/rag/search', { kb_id: org.kbId, query: REFUSED });
    expect(res.status).toBe(200);
    expect(res.body.answer).toBe(NOT_FOUND_ANSWER);
    expect(res.body.refused).toBe(true);
    expectClosest(res.body.citations);
    expect(res.body.citations[0].snippet).toMatch(/orchard|harvest/i);
  });

  it('REST search, JSON: an answer keeps its citations, used', async () => {
    const res = await restClient(t.app, org.apiKey).post('/api/rag/search', { kb_id: org.kbId, query: ANSWERED });
    expect(res.body.answer).toMatch(/late February/);
    expect(res.body.refused).toBe(false);
    expect(res.body.citations.length).toBeGreaterThan(0);
    for (const c of res.body.citations) expect(c.used).toBe(true);
  });

  it('REST search, SSE: the citations event and done both carry the closest passages', async () => {
    const res = await restClient(t.app, org.apiKey).raw('/api/rag/search', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kb_id: org.kbId, query: REFUSED, stream: true }),
    });
    const events = parseSse(await res.text());
    expect(events.map((e) => e.event)).toEqual(['citations', 'delta', 'done']);
    expectClosest(events[0]!.data.citations);
    expect(events[2]!.data).toMatchObject({ answer: NOT_FOUND_ANSWER, refused: true });
    expectClosest(events[2]!.data.citations);
    expect(events[2]!.data.citations).toEqual(events[0]!.data.citations);
  });

  it('REST chat, JSON and SSE', async () => {
    const api = restClient(t.app, org.apiKey);
    const json = await api.post('/api/rag/chat', { kb_id: org.kbId, message: REFUSED });
    expect(json.status).toBe(200);
    expect(json.body).toMatchObject({ response: NOT_FOUND_ANSWER, refused: true, session_id: expect.stringMatching(/^sess_/) });
    expectClosest(json.body.citations);

    const res = await api.raw('/api/rag/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kb_id: org.kbId, message: REFUSED, stream: true }),
    });
    const events = parseSse(await res.text());
    expect(events.map((e) => e.event)).toEqual(['session', 'citations', 'delta', 'done']);
    expectClosest(events[1]!.data.citations);
    expect(events[3]!.data).toMatchObject({ answer: NOT_FOUND_ANSWER, refused: true });
    expectClosest(events[3]!.data.citations);
  });

  it('GraphQL search and chat', async () => {
    const gql = graphqlClient(t.app, org.apiKey);
    const fields = 'citations { docId score used filename } refused';
    const search = await gql(`query($k: ID!, $q: String!) { search(kbId: $k, query: $q) { answer ${fields} } }`, { k: org.kbId, q: REFUSED });
    expect(search.body.errors).toBeUndefined();
    expect(search.body.data.search).toMatchObject({ answer: NOT_FOUND_ANSWER, refused: true });
    expectClosest(search.body.data.search.citations, { docId: 'docId', score: 'score' });

    const chat = await gql(`mutation($k: ID!, $m: String!) { chat(kbId: $k, message: $m) { response ${fields} } }`, { k: org.kbId, m: REFUSED });
    expect(chat.body.errors).toBeUndefined();
    expect(chat.body.data.chat).toMatchObject({ response: NOT_FOUND_ANSWER, refused: true });
    expectClosest(chat.body.data.chat.citations, { docId: 'docId', score: 'score' });
  });

  it('tRPC search and chat', async () => {
    const trpc = trpcClient(t.app, org.apiKey);
    const search = (await trpc.mutation('rag.search', { kb_id: org.kbId, query: REFUSED })).body.result.data;
    expect(search).toMatchObject({ answer: NOT_FOUND_ANSWER, refused: true });
    expectClosest(search.citations);
    const chat = (await trpc.mutation('rag.chat', { kb_id: org.kbId, message: REFUSED })).body.result.data;
    expect(chat).toMatchObject({ response: NOT_FOUND_ANSWER, refused: true });
    expectClosest(chat.citations);
  });

  it('the widget: the closest passages, in the widget citation shape, marked as not used', async () => {
    const w = widgetClient(t.app);
    const token = await w.token(org.slug, org.kbId);
    const res = await w.chat(token, { message: REFUSED });
    expect(res.status, res.text).toBe(200);
    const done = res.events.at(-1)!;
    expect(done.event).toBe('done');
    expect(done.data).toMatchObject({ answer: NOT_FOUND_ANSWER, refused: true });
    expect(done.data.citations.length).toBeGreaterThan(0);
    for (const c of [...done.data.citations, ...res.events[1]!.data.citations]) {
      expect(c).toMatchObject({ used: false, filename: 'zephyr.md' });
      expect(Object.keys(c).sort()).toEqual(['filename', 'heading', 'marker', 'page', 'snippet', 'source_type', 'title', 'url', 'used']);
    }
    expect(res.text).not.toMatch(/doc_[0-9A-Za-z]|"score"|"gate"/);
  });
});
