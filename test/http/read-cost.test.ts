/**
 * Reads priced by the bytes they will read, before they run (issue 44): the nested read that passed
 * the node estimate and ran 13-27 s before answering "The response would be 12 MB" is refused up
 * front, and a tRPC batch of 20 documents.chunks(limit 200) is priced as one request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { createRateLimiter } from '../../src/http/rate-limit';
import { BYTES_PER_POINT } from '../../src/http/read-cost';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';

let t: TestApp;
let key: string;
let strangerKey: string;
let kbId: string;
let docId: string;
/** Rate-limit points charged per key: the real limiter, its charges written down. */
const charged = new Map<string, number>();
let app: ReturnType<typeof createApp>;
beforeAll(async () => {
  t = await createTestApp();
  const limiter = createRateLimiter(100_000);
  app = createApp({
    ...t.deps,
    rateLimiter: {
      consume: (k, points = 1) => {
        charged.set(k, (charged.get(k) ?? 0) + points);
        return limiter.consume(k, points);
      },
    },
  });
  ({ api_key: key } = await createOrgWithKey(t.deps, { plan: 'pro' }));
  ({ api_key: strangerKey } = await createOrgWithKey(t.deps, { plan: 'pro' }));
  kbId = (await restClient(t.app, key).post('/api/kbs', { name: 'Read cost' })).body.kb.id;
  const text = Array.from({ length: 6 }, (_, i) => `## Part ${i}\n\n${`Section ${i} describes the depot rules and the loading schedule in detail. `.repeat(25)}`).join('\n\n');
  const up = await uploadFile(t.app, key, kbId, { name: 'long.md', bytes: text });
  docId = up.body.document.id;
  await runQueuedJobs(t);
});
afterAll(() => t?.close());

const gql = (query: string, as = key, variables?: Record<string, unknown>) =>
  app.fetch(new Request('http://groundwork.test/graphql', { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': as }, body: JSON.stringify({ query, variables }) }));

/** The points a request charged, whoever it charged them to (one key per organisation here). */
async function pointsOf(send: () => Response | Promise<Response>): Promise<{ res: Response; points: number }> {
  const before = [...charged.values()].reduce((a, b) => a + b, 0);
  const res = await send();
  return { res, points: [...charged.values()].reduce((a, b) => a + b, 0) - before };
}

async function averageChunkChars(): Promise<number> {
  const rows = await t.db.selectFrom('chunks').select('text').where('document_id', '=', docId as never).execute();
  return rows.reduce((n, r) => n + r.text.length, 0) / rows.length;
}

describe('GraphQL', () => {
  it('refuses the nested read of issue 44 before it runs, naming what it would read', async () => {
    const query = `{ knowledgeBase(id: "${kbId}") { documents { chunks(first: 199) { nodes { id text headingPath duplicates } } } } }`;
    const res = await gql(query);
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.data ?? null).toBeNull();
    expect(body.errors[0].extensions.app_code).toBe('invalid_input');
    // The estimate's wording, not the response cap's ("The response would be"): refused before execution.
    expect(body.errors[0].message).toMatch(/would read about \d+\.\d MB .*chunk text at the average length of this organisation's longest-chunked KB.*at most 4\.0 MB/);
    // The same shape without the text is within budget: the price follows the fields asked for.
    const ok = await gql(`{ knowledgeBase(id: "${kbId}") { documents { chunks(first: 199) { nodes { id } } } } }`);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as any).data.knowledgeBase.documents[0].chunks.nodes.length).toBeGreaterThan(0);
  });

  it('charges a refused read one point, so refusals are rate limited like any request', async () => {
    const refused = await pointsOf(() => gql(`{ knowledgeBase(id: "${kbId}") { documents { chunks(first: 199) { nodes { id text } } } } }`));
    expect(refused.res.status).toBe(400);
    expect(refused.points).toBe(1);
    // On a key with 3 points a minute the fourth refused read is a 429, not another free refusal.
    const strict = createApp({ ...t.deps, rateLimiter: createRateLimiter(3) });
    const send = () =>
      strict.fetch(new Request('http://groundwork.test/graphql', { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ query: `{ knowledgeBase(id: "${kbId}") { documents { chunks(first: 199) { nodes { text } } } } }` }) }));
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await send()).status);
    expect(statuses).toEqual([400, 400, 400, 429]);
  });

  it('prices a page size given in variables the same way', async () => {
    const query = `query ($n: Int) { knowledgeBase(id: "${kbId}") { documents { chunks(first: $n) { nodes { text } } } } }`;
    const res = await gql(query, key, { n: 199 });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).errors[0].message).toMatch(/would read about/);
    expect((await gql(query, key, { n: 2 })).status).toBe(200);
  });

  it('charges a read within budget by the chunk text it asks for', async () => {
    const text = await pointsOf(() => gql(`{ knowledgeBase(id: "${kbId}") { documents { chunks(first: 30) { nodes { text } } } } }`));
    const ids = await pointsOf(() => gql(`{ knowledgeBase(id: "${kbId}") { documents { chunks(first: 30) { nodes { id } } } } }`));
    expect([text.res.status, ids.res.status]).toEqual([200, 200]);
    // 50 assumed documents x 30 chunks of text at the average length of this organisation's longest-chunked KB.
    expect(text.points).toBeGreaterThanOrEqual(Math.floor((50 * 30 * (await averageChunkChars())) / BYTES_PER_POINT));
    // Without the text it is priced by its nodes alone (one point per 100).
    expect(ids.points).toBeLessThan(text.points);
  });

  it("gives another organisation's KB as not found, priced by the caller's own chunks", async () => {
    const res = await gql(`{ knowledgeBase(id: "${kbId}") { documents { chunks(first: 5) { nodes { text } } } } }`, strangerKey);
    const body = (await res.json()) as any;
    expect(body.data?.knowledgeBase ?? null).toBeNull();
    expect(body.errors[0].extensions.app_code).toBe('not_found');
  });
});

describe('tRPC', () => {
  const batch = (limit: number, as = key) => {
    const input = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [String(i), { kb_id: kbId, id: docId, limit }]));
    return app.fetch(
      new Request(`http://groundwork.test/trpc/${Array(20).fill('documents.chunks').join(',')}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`, {
        headers: { 'x-api-key': as },
      }),
    );
  };
  const single = (limit: number) =>
    app.fetch(
      new Request(`http://groundwork.test/trpc/documents.chunks?input=${encodeURIComponent(JSON.stringify({ kb_id: kbId, id: docId, limit }))}`, {
        headers: { 'x-api-key': key },
      }),
    );

  it('prices a batch of 20 documents.chunks(limit 200) as one request, and refuses it over budget', async () => {
    // One call of it is within budget; 20 of them are not.
    expect((await single(200)).status).toBe(200);
    const res = await batch(200);
    expect(res.status).toBe(400);
    const body = (await res.json()) as Array<{ error?: { message: string; data: { app_code: string } } }>;
    expect(body).toHaveLength(20);
    for (const call of body) {
      expect(call.error?.data.app_code).toBe('invalid_input');
      expect(call.error?.message).toMatch(/a batch of 20 calls, priced as one request/);
    }
  });

  it('runs a batch within budget, charged by the chunk text it reads', async () => {
    const light = await pointsOf(() => batch(1));
    const heavy = await pointsOf(() => batch(50));
    for (const { res } of [light, heavy]) {
      expect(res.status).toBe(200);
      const body = (await res.json()) as Array<{ result?: { data: { chunks: unknown[] } } }>;
      expect(body).toHaveLength(20);
      expect(body.every((c) => c.result !== undefined)).toBe(true);
    }
    // A point per call at least; the heavy batch its bytes besides: 20 x 50 chunks at this KB's average length.
    expect(light.points).toBe(20);
    expect(heavy.points).toBeGreaterThanOrEqual(Math.floor((20 * 50 * (await averageChunkChars())) / BYTES_PER_POINT));
  });

  it("gives another organisation's document as not found on every call of a batch", async () => {
    const res = await batch(5, strangerKey);
    const body = (await res.json()) as Array<{ error?: { data: { app_code: string } } }>;
    expect(body).toHaveLength(20);
    expect(body.every((c) => c.error?.data.app_code === 'not_found')).toBe(true);
  });
});
