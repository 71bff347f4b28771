/**
 * Reads priced by the bytes they will read, before they run (issue 44): the nested read that passed
 * the node estimate and ran 13-27 s before answering "The response would be 12 MB" is refused up
 * front, and a tRPC batch of 20 documents.chunks(limit 200) is priced as one request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_BUDGET_BYTES } from '../../src/http/read-cost';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';

let t: TestApp;
let key: string;
let kbId: string;
let docId: string;
beforeAll(async () => {
  t = await createTestApp();
  ({ api_key: key } = await createOrgWithKey(t.deps, { plan: 'pro' }));
  kbId = (await restClient(t.app, key).post('/api/kbs', { name: 'Read cost' })).body.kb.id;
  const text = Array.from({ length: 6 }, (_, i) => `## Part ${i}\n\n${`Section ${i} describes the depot rules and the loading schedule in detail. `.repeat(25)}`).join('\n\n');
  const up = await uploadFile(t.app, key, kbId, { name: 'long.md', bytes: text });
  docId = up.body.document.id;
  await runQueuedJobs(t);
});
afterAll(() => t?.close());

describe('GraphQL', () => {
  it('refuses the nested read of issue 44 before it runs, naming what it would read', async () => {
    const query = `{ knowledgeBase(id: "${kbId}") { documents { chunks(first: 199) { nodes { id text headingPath duplicates } } } } }`;
    const res = await t.app.fetch(
      new Request('http://groundwork.test/graphql', { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ query }) }),
    );
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.data ?? null).toBeNull();
    expect(body.errors[0].extensions.app_code).toBe('invalid_input');
    expect(body.errors[0].message).toMatch(/would read about \d+\.\d MB .*chunk text at this organisation's average length.*at most 4\.0 MB/);
    // The same shape without the text is within budget: the price follows the fields asked for.
    const ids = `{ knowledgeBase(id: "${kbId}") { documents { chunks(first: 199) { nodes { id } } } } }`;
    const ok = await t.app.fetch(
      new Request('http://groundwork.test/graphql', { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ query: ids }) }),
    );
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as any).data.knowledgeBase.documents[0].chunks.nodes.length).toBeGreaterThan(0);
  });
});

describe('tRPC', () => {
  const batch = (limit: number) => {
    const input = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [String(i), { kb_id: kbId, id: docId, limit }]));
    return t.app.fetch(
      new Request(`http://groundwork.test/trpc/${Array(20).fill('documents.chunks').join(',')}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`, {
        headers: { 'x-api-key': key },
      }),
    );
  };

  it('prices a batch of 20 documents.chunks(limit 200) as one request, and refuses it over budget', async () => {
    // 20 x 200 chunk texts at this KB's ~1,900 characters is over the budget; no single call of it is.
    expect(200 * 2000).toBeLessThan(READ_BUDGET_BYTES);
    const res = await batch(200);
    expect(res.status).toBe(400);
    const body = (await res.json()) as Array<{ error?: { message: string; data: { app_code: string } } }>;
    expect(body).toHaveLength(20);
    for (const call of body) {
      expect(call.error?.data.app_code).toBe('invalid_input');
      expect(call.error?.message).toMatch(/a batch of 20 calls, priced as one request/);
    }
  });

  it('runs a batch within budget', async () => {
    const res = await batch(10);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Array<{ result?: { data: { chunks: unknown[] } } }>;
    expect(body.every((c) => c.result !== undefined)).toBe(true);
  });
});
