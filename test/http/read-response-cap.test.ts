/**
 * The response caps of GraphQL (src/graphql/limits.ts maxResponseBytes) and tRPC
 * (src/trpc/handler.ts), 4 MB, catch what the pre-execution read estimate gets wrong.
 *
 * GraphQL: the estimate assumes a KB lists 50 documents
 * (`KnowledgeBase.documents` is unpaged); this KB has 150, so fourteen chunks of each, read under three
 * aliases, are priced at a third of what they return: the read passes the estimate, the node
 * ceiling and the organisation's read line (450 chunk reads, under its queue of 500), runs, and
 * its 5+ MB result is replaced by a 400 invalid_input naming the size.
 *
 * tRPC: the estimate prices chunk text at the average length of the organisation's longest-chunked KB, in characters; text in
 * Cyrillic takes two bytes a character, so a batch of 20 documents.chunks(limit 200) is priced at
 * under 3 MB and returns over 4 MB.
 *
 * Real documents, ingested by the real jobs; nothing in src/ is told it is a test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHQL_LIMITS } from '../../src/graphql/limits';
import { READ_BUDGET_BYTES, ROW_BYTES } from '../../src/http/read-cost';
import { ORG_READ_QUEUE } from '../../src/services/org-share';
import { MAX_BATCH_CALLS } from '../../src/trpc/handler';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';

const DOCUMENTS = 150;
const ALIASES = 3;
const FIRST = 14;

const WORDS = (
  'depot pallet forklift shift manager loading bay schedule delivery driver helmet vest inventory ' +
  'shelf aisle barcode scanner invoice supplier carrier route truck trailer dock door ramp crate ' +
  'label weight volume temperature freezer chilled dry goods returns damage report inspection ' +
  'safety briefing overtime roster break canteen locker badge visitor contractor audit count'
).split(' ');

/** A log of about 19,000 characters (a dozen chunks or more), different for every `n` (seeded), in sentences. */
function depotLog(n: number): string {
  let seed = n * 7919 + 17;
  const next = () => ((seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff), seed >>> 16);
  const sentence = () => {
    const words = Array.from({ length: 10 + (next() % 8) }, () => WORDS[next() % WORDS.length]!);
    return `${words[0]![0]!.toUpperCase()}${words.join(' ').slice(1)}.`;
  };
  const paragraphs = Array.from({ length: 32 }, () => Array.from({ length: 6 }, sentence).join(' '));
  return `# Depot log ${n}\n\n${paragraphs.join('\n\n')}\n`;
}

/** A warehouse log in Russian, about 160,000 characters (300 chunks or more). */
const RU_WORDS = (
  'склад поддон погрузчик смена начальник погрузка график доставка водитель шлем жилет инвентарь ' +
  'полка проход сканер счёт поставщик перевозчик маршрут грузовик прицеп причал дверь пандус ящик ' +
  'этикетка вес объём температура морозильник проверка отчёт'
).split(' ');
function russianLog(): string {
  let seed = 17;
  const next = () => ((seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff), seed >>> 16);
  const sentence = () => `${Array.from({ length: 10 + (next() % 8) }, () => RU_WORDS[next() % RU_WORDS.length]!).join(' ')}.`;
  return `# Журнал склада\n\n${Array.from({ length: 400 }, () => Array.from({ length: 6 }, sentence).join(' ')).join('\n\n')}\n`;
}

let t: TestApp;
let key: string;
let kbId: string;
let ruKey: string;
let ruKbId: string;
let ruDocId: string;
beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
  ({ api_key: key } = await createOrgWithKey(t.deps, { plan: 'pro' }));
  kbId = (await restClient(t.app, key).post('/api/kbs', { name: 'Depot logs' })).body.kb.id;
  for (let n = 0; n < DOCUMENTS; n++) {
    const up = await uploadFile(t.app, key, kbId, { name: `depot-log-${n}.md`, bytes: depotLog(n) });
    expect(up.status).toBe(202);
  }
  // Another organisation, so its average chunk length is its own.
  ({ api_key: ruKey } = await createOrgWithKey(t.deps, { plan: 'pro' }));
  ruKbId = (await restClient(t.app, ruKey).post('/api/kbs', { name: 'Склад' })).body.kb.id;
  const up = await uploadFile(t.app, ruKey, ruKbId, { name: 'zhurnal.md', bytes: russianLog() });
  expect(up.status).toBe(202);
  ruDocId = up.body.document.id;
  await runQueuedJobs(t);
}, 300_000);
afterAll(() => t?.close());

const gql = (query: string) =>
  t.app.fetch(new Request('http://groundwork.test/graphql', { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ query }) }));

const aliased = (first: number) =>
  `{ ${Array.from({ length: ALIASES }, (_, i) => `k${i}: knowledgeBase(id: "${kbId}") { documents { chunks(first: ${first}) { nodes { text } } } }`).join(' ')} }`;

describe('the GraphQL response cap', () => {
  it('refuses a read that passed the estimate but returns more than 4 MB, with a clear 400', async () => {
    const docs = (await restClient(t.app, key).get(`/api/kbs/${kbId}/documents`)).body.documents as Array<{ status: string }>;
    expect(docs.map((d) => d.status)).toEqual(Array(DOCUMENTS).fill('ready'));
    const chunks = await t.db.selectFrom('chunks').select(['document_id', 'text', 'position']).where('kb_id', '=', kbId as never).execute();
    const perDoc = new Map<string, string[]>();
    for (const c of chunks) perDoc.set(c.document_id, [...(perDoc.get(c.document_id) ?? []), c.text]);
    expect(perDoc.size).toBe(DOCUMENTS);
    expect(Math.min(...[...perDoc.values()].map((v) => v.length))).toBeGreaterThanOrEqual(FIRST);
    // Why it passes: priced at 50 assumed documents with chunk text at the organisation's average
    // length (every chunk it has is in this KB), well under the budget; and under the node ceiling.
    const average = chunks.reduce((n, c) => n + c.text.length, 0) / chunks.length;
    expect(ALIASES * 50 * FIRST * average).toBeLessThan(READ_BUDGET_BYTES * 0.8);
    expect(ALIASES * (DOCUMENTS + DOCUMENTS * FIRST)).toBeLessThanOrEqual(GRAPHQL_LIMITS.maxNodes);
    expect(ALIASES * DOCUMENTS).toBeLessThan(ORG_READ_QUEUE);
    // Why it is over the cap: the first FIRST chunks of every document, once per alias, exceed 4 MB of text alone.
    const firstChunks = chunks.filter((c) => c.position < FIRST).reduce((n, c) => n + Buffer.byteLength(c.text), 0);
    expect(ALIASES * firstChunks).toBeGreaterThan(GRAPHQL_LIMITS.maxResponseBytes);

    const res = await gql(aliased(FIRST));
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/application\/(graphql-response\+)?json/);
    const body = (await res.json()) as { data?: unknown; errors: Array<{ message: string; extensions: Record<string, unknown> }> };
    expect(body.data ?? null).toBeNull();
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', app_code: 'invalid_input' });
    // The cap's wording, not the estimate's ("would read about"): it ran, and its result was withheld.
    expect(body.errors[0]!.message).toMatch(/^The response would be [5-9] MB; at most 4 MB are returned in one request: ask for fewer items or fields$/);
  }, 120_000);

  it('answers the same read at a page size whose result fits', async () => {
    const res = await gql(aliased(1));
    const body = (await res.json()) as { data: Record<string, { documents: Array<{ chunks: { nodes: Array<{ text: string }> } }> }> };
    expect(res.status, JSON.stringify(body).slice(0, 500)).toBe(200);
    expect(Object.keys(body.data)).toHaveLength(ALIASES);
    expect(body.data.k0!.documents).toHaveLength(DOCUMENTS);
    expect(body.data.k0!.documents.every((d) => d.chunks.nodes.length === 1 && d.chunks.nodes[0]!.text.length > 0)).toBe(true);
  }, 60_000);
});

describe('the tRPC response cap', () => {
  const batch = (limit: number) => {
    const input = Object.fromEntries(Array.from({ length: MAX_BATCH_CALLS }, (_, i) => [String(i), { kb_id: ruKbId, id: ruDocId, limit }]));
    const paths = Array(MAX_BATCH_CALLS).fill('documents.chunks').join(',');
    return t.app.fetch(new Request(`http://groundwork.test/trpc/${paths}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`, { headers: { 'x-api-key': ruKey } }));
  };

  it('refuses a batch that passed the estimate but returns more than 4 MB, with a clear 400', async () => {
    const chunks = await t.db.selectFrom('chunks').select('text').where('document_id', '=', ruDocId as never).execute();
    expect(chunks.length).toBeGreaterThanOrEqual(200);
    // Why it passes: 20 calls of 200 rows, each priced at ROW_BYTES and the average length in characters.
    const chars = chunks.reduce((n, c) => n + c.text.length, 0) / chunks.length;
    expect(MAX_BATCH_CALLS * 200 * (ROW_BYTES + chars)).toBeLessThan(READ_BUDGET_BYTES * 0.8);
    // Why it is over: the first 200 chunks' text in UTF-8, with the other fields of each row at the
    // estimate's own ROW_BYTES, 20 times, is over 4 MB.
    const first200 = (await t.db.selectFrom('chunks').select('text').where('document_id', '=', ruDocId as never).orderBy('position').limit(200).execute()).reduce((n, c) => n + Buffer.byteLength(c.text), 0);
    expect(MAX_BATCH_CALLS * (first200 + 200 * ROW_BYTES)).toBeGreaterThan(READ_BUDGET_BYTES);

    const res = await batch(200);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as { error: { message: string; data: Record<string, unknown> } };
    expect(body.error.data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400, app_code: 'invalid_input', field: 'limit' });
    expect(body.error.message).toMatch(/^The response would be [4-9] MB; at most 4 MB are returned in one request: ask for fewer items, or send fewer calls in one batch$/);
  }, 60_000);

  it('answers the same batch at a page size whose result fits', async () => {
    const res = await batch(20);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Array<{ result: { data: { chunks: Array<{ text: string }> } } }>;
    expect(body).toHaveLength(MAX_BATCH_CALLS);
    expect(body.every((r) => r.result.data.chunks.length === 20)).toBe(true);
  }, 60_000);
});
