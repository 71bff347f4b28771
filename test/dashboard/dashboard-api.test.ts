/**
 * The dashboard's side of the API, at fetch level: the session cookie and the rules around it
 * (origin, CSRF header, expiry, sign-out, one-time links), tenant isolation through a session, the
 * GraphQL fields the dashboard added, and REST/GraphQL/tRPC parity of document pagination.
 */
import { readFileSync } from 'node:fs';
import { parse, validate } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../schema/index';
import { loadConfig } from '../../src/config';
import { createApp } from '../../src/app';
import { createContext } from '../../src/context';
import { createSignInLink } from '../../src/services/admin-sessions/create-sign-in-link';
import { watchDocuments } from '../../src/services/documents/watch-documents';
import { ORG_STREAMS } from '../../src/services/org-share';
import { voiceBlockedReason } from '../../src/services/voice/voice-availability';
import { graphqlClient, restClient, trpcClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';
import { readSse } from '../../widget/src/sse';

const ORIGIN = 'http://groundwork.test';
const HOST = 'groundwork.test';

let t: TestApp;
type Org = { key: string; slug: string; orgId: string; kbId: string; cookie: string };
let a: Org;
let b: Org;

/** A GraphQL request as the dashboard sends it; `headers` overrides (null removes). */
async function dash(cookie: string | null, query: string, variables: Record<string, unknown> = {}, headers: Record<string, string | null> = {}) {
  const h: Record<string, string> = { 'content-type': 'application/json', host: HOST, origin: ORIGIN, 'sec-fetch-site': 'same-origin', 'x-groundwork-csrf': '1' };
  if (cookie) h.cookie = `gw_admin=${cookie}`;
  for (const [k, v] of Object.entries(headers)) v === null ? delete h[k] : (h[k] = v);
  const res = await t.app.fetch(new Request(`${ORIGIN}/graphql`, { method: 'POST', headers: h, body: JSON.stringify({ query, variables }) }));
  return { res, body: (await res.json()) as { data?: any; errors?: { message: string; extensions: { app_code: string } }[] } };
}

async function signIn(key: string): Promise<string> {
  const { res, body } = await dash(null, 'mutation($k: String!) { signIn(apiKey: $k) { expiresAt } }', { k: key });
  expect(body.errors).toBeUndefined();
  const setCookie = res.headers.get('set-cookie')!;
  expect(setCookie).toMatch(/^gw_admin=[0-9A-Za-z]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/);
  // The secret is only in the cookie, never in the body.
  expect(JSON.stringify(body)).not.toContain(setCookie.split(';')[0]!.split('=')[1]);
  return /gw_admin=([^;]+)/.exec(setCookie)![1]!;
}

async function makeOrg(): Promise<Org> {
  const created = await createOrgWithKey(t.deps, { plan: 'pro' });
  const kb = await restClient(t.app, created.api_key).post('/api/kbs', { name: 'KB' });
  return { key: created.api_key, slug: created.org.slug, orgId: created.org.id, kbId: kb.body.kb.id, cookie: await signIn(created.api_key) };
}

/** A subscription as the dashboard's Sandbox sends it: POST with `accept: text/event-stream`, read as SSE. */
async function dashStream(auth: { cookie?: string; key?: string }, query: string, variables: Record<string, unknown>, headers: Record<string, string | null> = {}) {
  const h: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream', host: HOST, origin: ORIGIN, 'sec-fetch-site': 'same-origin', 'x-groundwork-csrf': '1' };
  if (auth.cookie) h.cookie = `gw_admin=${auth.cookie}`;
  if (auth.key) h['x-api-key'] = auth.key;
  for (const [k, v] of Object.entries(headers)) v === null ? delete h[k] : (h[k] = v);
  const res = await t.app.fetch(new Request(`${ORIGIN}/graphql`, { method: 'POST', headers: h, body: JSON.stringify({ query, variables }) }));
  const results: { data?: any; errors?: { message: string; extensions: { app_code: string } }[] }[] = [];
  const kinds: string[] = [];
  for await (const e of readSse(res.body!)) {
    kinds.push(e.event);
    if (e.event === 'next') results.push(JSON.parse(e.data));
  }
  return { res, results, kinds };
}

const CHAT_STREAM = `subscription($kbId: ID!, $m: String!, $s: ID) {
  chatStream(kbId: $kbId, message: $m, sessionId: $s) { type sessionId query text answer citations { marker docId chunkId filename snippet score } }
}`;

const code = (body: { errors?: { extensions: { app_code: string } }[] }) => body.errors?.[0]?.extensions.app_code;

beforeAll(async () => {
  t = await createTestApp();
  a = await makeOrg();
  b = await makeOrg();
});
afterAll(() => t?.close());

describe('dashboard session cookie', () => {
  it('authenticates GraphQL from the dashboard origin with the CSRF header', async () => {
    const { body } = await dash(a.cookie, '{ organization { slug } }');
    expect(body.data.organization.slug).toBe(a.slug);
  });

  it('is refused from another origin, a cross-site fetch, or without the CSRF header', async () => {
    const cases: Record<string, string | null>[] = [
      { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' },
      { origin: 'http://evil.example', 'sec-fetch-site': null },
      { origin: null, 'sec-fetch-site': 'same-site' },
      { origin: null, 'sec-fetch-site': null },
      { 'x-groundwork-csrf': null },
      { 'x-groundwork-csrf': '0' },
    ];
    for (const headers of cases) {
      const { body } = await dash(a.cookie, '{ organization { slug } }', {}, headers);
      expect(body.data ?? null).toBeNull();
      expect(code(body), JSON.stringify(headers)).toBe('forbidden');
    }
  });

  it('does not let a cross-site page sign in (login CSRF)', async () => {
    const { res, body } = await dash(null, 'mutation($k: String!) { signIn(apiKey: $k) { expiresAt } }', { k: a.key }, { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' });
    expect(code(body)).toBe('forbidden');
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('is not accepted by REST, which keeps API keys only; tRPC takes it under the same rules as GraphQL', async () => {
    const headers = { cookie: `gw_admin=${a.cookie}`, host: HOST, origin: ORIGIN, 'sec-fetch-site': 'same-origin', 'x-groundwork-csrf': '1' };
    expect((await t.app.fetch(new Request(`${ORIGIN}/api/kbs`, { headers }))).status).toBe(401);
    const listed = await t.app.fetch(new Request(`${ORIGIN}/trpc/kbs.list`, { headers }));
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { result: { data: { kbs: { id: string }[] } } }).result.data.kbs.map((k) => k.id)).toEqual([a.kbId]);
    const { 'x-groundwork-csrf': _csrf, ...noCsrf } = headers;
    expect((await t.app.fetch(new Request(`${ORIGIN}/trpc/kbs.list`, { headers: noCsrf }))).status).toBe(403);
    expect((await t.app.fetch(new Request(`${ORIGIN}/trpc/kbs.list`, { headers: { ...headers, origin: 'https://evil.example' } }))).status).toBe(403);
    const otherKb = await t.app.fetch(new Request(`${ORIGIN}/trpc/kbs.get?input=${encodeURIComponent(JSON.stringify({ id: b.kbId }))}`, { headers }));
    expect(otherKb.status).toBe(404);
  });

  it('API keys keep working on GraphQL, with or without a cookie', async () => {
    const gql = graphqlClient(t.app, b.key);
    expect((await gql('{ organization { slug } }')).body.data.organization.slug).toBe(b.slug);
  });

  it('refuses an expired session and a signed-out one', async () => {
    const expired = await signIn(a.key);
    const { createHash } = await import('node:crypto');
    await t.db.updateTable('admin_sessions').set({ expires_at: new Date(Date.now() - 1000) }).where('secret_hash', '=', createHash('sha256').update(expired).digest('hex')).execute();
    expect(code((await dash(expired, '{ organization { slug } }')).body)).toBe('unauthorized');

    const other = await signIn(a.key);
    const out = await dash(other, 'mutation { signOut }');
    expect(out.body.data.signOut).toBe(true);
    expect(out.res.headers.get('set-cookie')).toMatch(/^gw_admin=; .*Max-Age=0/);
    expect(code((await dash(other, '{ organization { slug } }')).body)).toBe('unauthorized');
    // Other sessions of the same organisation are untouched.
    expect((await dash(a.cookie, '{ organization { slug } }')).body.data.organization.slug).toBe(a.slug);
  });

  it('stores only a hash of the session secret', async () => {
    const rows = await t.db.selectFrom('admin_sessions').select('secret_hash').execute();
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((r) => r.secret_hash === a.cookie)).toBe(false);
  });

  it('a one-time sign-in link sets the cookie once, then is refused', async () => {
    const { token } = await createSignInLink(t.deps, a.orgId as never);
    // Its page's form posts the token (test/dashboard/sign-in-link-and-cors.test.ts covers the page).
    const spend = () =>
      t.app.fetch(new Request(`${ORIGIN}/admin/sign-in`, { method: 'POST', headers: { host: HOST, origin: ORIGIN, 'sec-fetch-site': 'same-origin' }, body: new URLSearchParams({ token }) }));
    const first = await spend();
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/admin');
    const secret = /gw_admin=([^;]+)/.exec(first.headers.get('set-cookie')!)![1]!;
    expect((await dash(secret, '{ organization { slug } }')).body.data.organization.slug).toBe(a.slug);
    const again = await spend();
    expect(again.status).toBe(401);
    expect((await again.json()).error.code).toBe('unauthorized');
  });
});

describe('tenant isolation through a session', () => {
  it("never reads or changes another organisation's KBs, documents, conversations or keys", async () => {
    const asA = (q: string, v: Record<string, unknown> = {}) => dash(a.cookie, q, v);
    expect((await asA('{ knowledgeBases { id } }')).body.data.knowledgeBases.map((k: any) => k.id)).toEqual([a.kbId]);
    expect(code((await asA('query($id: ID!) { knowledgeBase(id: $id) { name } }', { id: b.kbId })).body)).toBe('not_found');
    expect(code((await asA('query($id: ID!) { conversations(kbId: $id) { nodes { id } } }', { id: b.kbId })).body)).toBe('not_found');
    expect(code((await asA('query($id: ID!) { retrieve(kbId: $id, query: "x") { confident } }', { id: b.kbId })).body)).toBe('not_found');
    expect(code((await asA('mutation($id: ID!) { updateKnowledgeBase(input: { id: $id, name: "pwned" }) { id } }', { id: b.kbId })).body)).toBe('not_found');
    expect(code((await asA('mutation($id: ID!) { deleteKnowledgeBase(id: $id) { success } }', { id: b.kbId })).body)).toBe('not_found');
    const bKeys = (await graphqlClient(t.app, b.key)('{ apiKeys { id } }')).body.data.apiKeys;
    expect(code((await asA('mutation($id: ID!) { revokeApiKey(id: $id) { id } }', { id: bKeys[0].id })).body)).toBe('not_found');
    const aKeys = (await asA('{ apiKeys { id } }')).body.data.apiKeys.map((k: any) => k.id);
    expect(aKeys).not.toContain(bKeys[0].id);
    // B is intact.
    const bKb = await restClient(t.app, b.key).get(`/api/kbs/${b.kbId}`);
    expect(bKb.body.kb.name).toBe('KB');
  });
});

describe('document pages: keyset pagination in GraphQL, REST and tRPC', () => {
  let ids: string[];
  beforeAll(async () => {
    for (let i = 0; i < 5; i++) expect((await uploadFile(t.app, a.key, a.kbId, { name: `doc-${i}.md`, bytes: `# Doc ${i}\n\nKites fly ${i} hours.` })).status).toBe(202);
    await runQueuedJobs(t);
    ids = (await restClient(t.app, a.key).get(`/api/kbs/${a.kbId}/documents`)).body.documents.map((d: any) => d.id);
    expect(ids).toHaveLength(5);
  });

  it('walks the same pages through each API, newest first, ending with a null cursor', async () => {
    const rest = restClient(t.app, a.key);
    const trpc = trpcClient(t.app, a.key);
    const walk = async (page: (cursor: string | null) => Promise<{ ids: string[]; next: string | null }>) => {
      const seen: string[][] = [];
      let cursor: string | null = null;
      do {
        const p = await page(cursor);
        seen.push(p.ids);
        cursor = p.next;
      } while (cursor);
      return seen;
    };
    const viaRest = await walk(async (c) => {
      const r = await rest.get(`/api/kbs/${a.kbId}/documents?limit=2${c ? `&cursor=${c}` : ''}`);
      return { ids: r.body.documents.map((d: any) => d.id), next: r.body.next_cursor };
    });
    const viaGraphql = await walk(async (c) => {
      const r = await dash(a.cookie, 'query($id: ID!, $after: String) { knowledgeBase(id: $id) { documentPage(first: 2, after: $after) { nodes { id } nextCursor } } }', { id: a.kbId, after: c });
      const p = r.body.data.knowledgeBase.documentPage;
      return { ids: p.nodes.map((d: any) => d.id), next: p.nextCursor };
    });
    const viaTrpc = await walk(async (c) => {
      const r = await trpc.query('documents.list', { kb_id: a.kbId, limit: 2, ...(c ? { cursor: c } : {}) });
      return { ids: r.body.result.data.documents.map((d: any) => d.id), next: r.body.result.data.next_cursor };
    });
    expect(viaRest).toEqual([ids.slice(0, 2), ids.slice(2, 4), ids.slice(4)]);
    expect(viaGraphql).toEqual(viaRest);
    expect(viaTrpc).toEqual(viaRest);
    // Without limit the original response, plus a null next_cursor.
    expect((await rest.get(`/api/kbs/${a.kbId}/documents`)).body.next_cursor).toBeNull();
  });

  it('filters by status and refuses a bad cursor or limit with a clear 400', async () => {
    const rest = restClient(t.app, a.key);
    expect((await rest.get(`/api/kbs/${a.kbId}/documents?status=ready&limit=10`)).body.documents).toHaveLength(5);
    expect((await rest.get(`/api/kbs/${a.kbId}/documents?status=failed`)).body.documents).toHaveLength(0);
    const bad = await rest.get(`/api/kbs/${a.kbId}/documents?limit=2&cursor=doc_unknown`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_input', field: 'cursor' });
    expect((await rest.get(`/api/kbs/${a.kbId}/documents?limit=0`)).status).toBe(400);
    // A cursor from another KB is unknown here, not a way in.
    const bDoc = await uploadFile(t.app, b.key, b.kbId, { name: 'b.md', bytes: '# B\n\nsecret' });
    expect((await restClient(t.app, a.key).get(`/api/kbs/${a.kbId}/documents?limit=2&cursor=${bDoc.body.document?.id ?? bDoc.body.id}`)).status).toBe(400);
  });

  it("counts documents by status and lists a document's chunks", async () => {
    const r = await dash(a.cookie, 'query($id: ID!, $doc: ID!) { knowledgeBase(id: $id) { documentCounts { ready processing failed } } document(kbId: $id, id: $doc) { filename chunks(first: 10) { nodes { position text headingPath } nextAfter } } }', { id: a.kbId, doc: ids[0] });
    expect(r.body.data.knowledgeBase.documentCounts).toEqual({ ready: 5, processing: 0, failed: 0 });
    expect(r.body.data.document.chunks.nodes[0]).toMatchObject({ position: 0, headingPath: [expect.stringMatching(/^Doc \d$/)] });
    expect(r.body.data.document.chunks.nodes[0].text).toMatch(/Kites fly \d hours/);
    expect(r.body.data.document.chunks.nextAfter).toBeNull();
  });
});

describe('Sandbox, keys and usage fields', () => {
  it('retrieve returns ranked passages with lexical and vector scores; conversations page through chats', async () => {
    const r = await dash(a.cookie, 'query($id: ID!) { retrieve(kbId: $id, query: "How long do kites fly?", topK: 3) { confident passages { rank filename score lexicalScore vectorScore } } }', { id: a.kbId });
    const ret = r.body.data.retrieve;
    expect(ret.confident).toBe(true);
    expect(ret.passages.map((p: any) => p.rank)).toEqual([1, 2, 3]);
    expect(ret.passages[0].lexicalScore).toBeGreaterThan(0);
    expect(ret.passages[0].score).toBeGreaterThanOrEqual(ret.passages[1].score);

    const sessions: string[] = [];
    for (let i = 0; i < 3; i++) {
      const c = await dash(a.cookie, 'mutation($id: ID!, $m: String!) { chat(kbId: $id, message: $m) { sessionId } }', { id: a.kbId, m: `How long does kite ${i} fly?` });
      sessions.push(c.body.data.chat.sessionId);
    }
    const p1 = (await dash(a.cookie, 'query($id: ID!) { conversations(kbId: $id, first: 2) { nodes { id messageCount firstQuestion } nextCursor } }', { id: a.kbId })).body.data.conversations;
    expect(p1.nodes.map((n: any) => n.id)).toEqual([sessions[2], sessions[1]]);
    expect(p1.nodes[0]).toMatchObject({ messageCount: 2, firstQuestion: 'How long does kite 2 fly?' });
    const p2 = (await dash(a.cookie, 'query($id: ID!, $after: String) { conversations(kbId: $id, first: 2, after: $after) { nodes { id } nextCursor } }', { id: a.kbId, after: p1.nextCursor })).body.data.conversations;
    expect(p2).toEqual({ nodes: [{ id: sessions[0] }], nextCursor: null });
  });

  it('creates (shown once), lists and revokes API keys; usage counts against the plan', async () => {
    const created = (await dash(a.cookie, 'mutation { createApiKey(name: "CI") { apiKey key { id prefix } } }')).body.data.createApiKey;
    expect(created.apiKey.startsWith(created.key.prefix)).toBe(true);
    const list = (await dash(a.cookie, '{ apiKeys { id prefix name revokedAt } }')).body.data.apiKeys;
    expect(list.find((k: any) => k.id === created.key.id)).toMatchObject({ name: 'CI', revokedAt: null });
    expect(JSON.stringify(list)).not.toContain(created.apiKey);
    const revoked = (await dash(a.cookie, 'mutation($id: ID!) { revokeApiKey(id: $id) { revokedAt } }', { id: created.key.id })).body.data.revokeApiKey;
    expect(revoked.revokedAt).toMatch(/^\d{4}-/);
    expect((await restClient(t.app, created.apiKey).get('/api/kbs')).status).toBe(401);

    const tooLong = await dash(a.cookie, 'mutation($n: String) { createApiKey(name: $n) { apiKey } }', { n: 'x'.repeat(101) });
    expect(code(tooLong.body)).toBe('invalid_input');
    const badPage = await dash(a.cookie, 'query($id: ID!, $doc: ID!) { document(kbId: $id, id: $doc) { chunks(first: 1000) { nextAfter } } }', { id: a.kbId, doc: (await restClient(t.app, a.key).get(`/api/kbs/${a.kbId}/documents`)).body.documents[0].id });
    expect(code(badPage.body)).toBe('invalid_input');

    const usage = (await dash(a.cookie, '{ usage { knowledgeBases maxKnowledgeBases documents maxDocuments questionsAsked voiceMinutes } }')).body.data.usage;
    expect(usage).toEqual({ knowledgeBases: 1, maxKnowledgeBases: 100, documents: 5, maxDocuments: 100000, questionsAsked: 3, voiceMinutes: 0 });
  });

  it('voiceBlockedReason names the plan, then the missing provider, and is null when voice can be switched on', async () => {
    const free = await createOrgWithKey(t.deps, { plan: 'free' });
    const r = await graphqlClient(t.app, free.api_key)('{ organization { settings { voiceAvailable voiceBlockedReason } } }');
    expect(r.body.data.organization.settings).toEqual({ voiceAvailable: false, voiceBlockedReason: expect.stringMatching(/Starter plan; this organisation is on Free/) });
    const withoutKey = loadConfig({ NODE_ENV: 'test', DATA_DIR: '/nonexistent' });
    const withKey = loadConfig({ NODE_ENV: 'test', DATA_DIR: '/nonexistent', OPENAI_API_KEY: 'sk-test' });
    expect(voiceBlockedReason({ plan: 'starter' }, withoutKey)).toMatch(/OPENAI_API_KEY/);
    expect(voiceBlockedReason({ plan: 'starter' }, withKey)).toBeNull();
    const app = createApp({ ...t.deps, config: withKey });
    const starter = await createOrgWithKey(t.deps, { plan: 'starter' });
    const s = await graphqlClient(app, starter.api_key)('{ organization { settings { voiceBlockedReason } } }');
    expect(s.body.data.organization.settings.voiceBlockedReason).toBeNull();
  });
});

describe('chatStream: the Sandbox chat as a subscription over SSE', () => {
  beforeAll(async () => {
    const bytes = '# Zephyr kite\n\nThe Zephyr kite flies for six hours on one battery pack. Its frame is carbon fibre and its sail is ripstop nylon.';
    expect((await uploadFile(t.app, a.key, a.kbId, { name: 'zephyr.md', bytes })).status).toBe(202);
    await runQueuedJobs(t);
  });

  it('streams session, citations, several deltas, then done, agreeing with the chat mutation', async () => {
    const question = 'How long does the Zephyr kite fly on one battery pack?';
    const { res, results, kinds } = await dashStream({ cookie: a.cookie }, CHAT_STREAM, { kbId: a.kbId, m: question });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(kinds.at(-1)).toBe('complete');
    expect(results.every((r) => r.errors === undefined)).toBe(true);
    const events = results.map((r) => r.data.chatStream);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('session');
    expect(types[1]).toBe('citations');
    expect(types.at(-1)).toBe('done');
    const deltas = events.filter((e) => e.type === 'delta');
    expect(deltas.length, JSON.stringify(events)).toBeGreaterThan(1);
    expect(types.slice(2, -1).every((x) => x === 'delta')).toBe(true);
    const done = events.at(-1);
    expect(done.answer.length).toBeGreaterThan(0);
    expect(deltas.map((d) => d.text).join('').trim()).toBe(done.answer);
    expect(done.citations.length).toBeGreaterThan(0);
    expect(new Set(events.map((e) => e.sessionId))).toEqual(new Set([events[0].sessionId]));
    expect(events[1].citations.length).toBeGreaterThanOrEqual(done.citations.length);

    // The non-streamed mutation answers the same question identically (same service, same model).
    const chat = (await dash(a.cookie, 'mutation($id: ID!, $m: String!) { chat(kbId: $id, message: $m) { response citations { marker docId chunkId filename snippet score } } }', { id: a.kbId, m: question })).body.data.chat;
    expect(chat.response).toBe(done.answer);
    expect(chat.citations).toEqual(done.citations);

    // The exchange is stored, so the session continues as chat memory.
    const messages = (await dash(a.cookie, 'query($id: ID!, $s: ID!) { chatMessages(kbId: $id, sessionId: $s) { role content } }', { id: a.kbId, s: done.sessionId })).body.data.chatMessages;
    expect(messages).toEqual([{ role: 'user', content: question }, { role: 'assistant', content: done.answer }]);
    // An API key works as for queries.
    const viaKey = await dashStream({ key: a.key }, CHAT_STREAM, { kbId: a.kbId, m: question }, { origin: null, 'sec-fetch-site': null, 'x-groundwork-csrf': null });
    expect(viaKey.results.at(-1)!.data.chatStream.answer).toBe(done.answer);
  });

  it('is refused without auth, with a cookie from another origin or without the CSRF header, and across tenants', async () => {
    const refused = async (auth: { cookie?: string; key?: string }, headers: Record<string, string | null>, kbId = a.kbId) => {
      const { results } = await dashStream(auth, CHAT_STREAM, { kbId, m: 'How long do kites fly?' }, headers);
      expect(results).toHaveLength(1);
      expect(results[0]!.data ?? null).toBeNull();
      return code(results[0]!);
    };
    expect(await refused({}, {})).toBe('unauthorized');
    expect(await refused({ cookie: a.cookie }, { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' })).toBe('forbidden');
    expect(await refused({ cookie: a.cookie }, { 'x-groundwork-csrf': null })).toBe('forbidden');
    expect(await refused({ cookie: a.cookie }, {}, b.kbId)).toBe('not_found');
  });

  it('a model failing mid-answer ends the stream with a GraphQL error of the shared code table', async () => {
    // The answer model as an unreachable provider would behave (the offline one cannot fail).
    const failing = {
      specificationVersion: 'v2', provider: 'failing', modelId: 'failing', supportedUrls: {},
      doGenerate: async () => { throw new Error('upstream exploded'); },
      doStream: async () => { throw new Error('upstream exploded'); },
    };
    const app = createApp({ ...t.deps, models: { ...t.deps.models, answerModel: failing as never } });
    const res = await app.fetch(new Request(`${ORIGIN}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': a.key }, body: JSON.stringify({ query: CHAT_STREAM, variables: { kbId: a.kbId, m: 'How long does the Zephyr kite fly on one battery pack?' } }) }));
    const results: any[] = [];
    for await (const e of readSse(res.body!)) if (e.event === 'next') results.push(JSON.parse(e.data));
    expect(results.slice(0, 2).map((r) => r.data.chatStream.type)).toEqual(['session', 'citations']);
    const last = results.at(-1);
    expect(last.data).toBeNull();
    expect(last.errors[0].extensions.app_code).toBe('unavailable');
    expect(JSON.stringify(last)).not.toContain('upstream exploded');
  });

  it('is charged against the rate limit like any request', async () => {
    // Three a minute: the KB's creation, then two chats. (On PostgreSQL the count is shared by every app.)
    const limited = createApp({ ...t.deps, config: { ...t.deps.config, rateLimitPerMinute: 3 } });
    const org = await createOrgWithKey(t.deps, { plan: 'pro' });
    const kb = await restClient(limited, org.api_key).post('/api/kbs', { name: 'KB' });
    const send = async () => {
      const res = await limited.fetch(new Request(`${ORIGIN}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': org.api_key }, body: JSON.stringify({ query: CHAT_STREAM, variables: { kbId: kb.body.kb.id, m: 'Anything?' } }) }));
      const out: any[] = [];
      for await (const e of readSse(res.body!)) if (e.event === 'next') out.push(JSON.parse(e.data));
      return out;
    };
    expect((await send()).at(-1).data.chatStream.type).toBe('done');
    expect((await send()).at(-1).data.chatStream.type).toBe('done');
    expect(code((await send())[0])).toBe('rate_limited');
  });
});

describe('the dashboard app', () => {
  it('every GraphQL document it sends is valid against the schema', async () => {
    const queries = await import('../../src/dashboard/app/queries');
    const { print } = await import('graphql');
    // Operations only (fragments are validated inside the operations that spread them).
    const operations = Object.values(queries).map((doc) => print(doc as never)).filter((text) => /^\s*(query|mutation|subscription)\b/.test(text));
    expect(operations.length).toBeGreaterThan(20);
    for (const text of operations) {
      // The printed text is exactly what goes over the wire.
      expect(validate(schema, parse(text)).map((e) => e.message), text).toEqual([]);
    }
  });

  it("shows a processing document's stage and progress through the documents query the poll re-sends", async () => {
    const { KbDocuments } = await import('../../src/dashboard/app/queries');
    const { progressLabel } = await import('../../src/dashboard/app/progress-label');
    const { print } = await import('graphql');
    const up = await uploadFile(t.app, a.key, a.kbId, { name: 'progress.md', bytes: '# Progress\n\nKites again.' });
    const id = up.body.document?.id ?? up.body.id;
    // The worker's progress reporter mid-way through embedding (ingestion is too quick to catch in the act).
    await t.db.updateTable('documents').set({ stage: 'embedding', progress_done: 512, progress_total: 2496, progress_unit: 'chunks' }).where('id', '=', id).execute();
    const page = async () => (await dash(a.cookie, print(KbDocuments as never), { id: a.kbId, first: 50, status: 'processing' })).body.data.knowledgeBase.documentPage.nodes;
    const doc = (await page()).find((d: any) => d.id === id);
    expect(doc).toMatchObject({ status: 'processing', stage: 'embedding', progress: { done: 512, total: 2496, unit: 'chunks' } });
    expect(progressLabel(doc.stage, doc.progress)).toBe('embedding 512/2,496 chunks');
    expect(progressLabel('ocr', { done: 1, total: 4, unit: 'pages' })).toBe('ocr 1/4 pages');
    expect(progressLabel('chunking', null)).toBe('chunking');
    expect(progressLabel(null, null)).toBeNull();
    await runQueuedJobs(t);
    expect((await page()).find((d: any) => d.id === id)).toBeUndefined();
    const settled = (await dash(a.cookie, 'query($kb: ID!, $id: ID!) { document(kbId: $kb, id: $id) { status stage progress { done } } }', { kb: a.kbId, id })).body.data.document;
    expect(settled).toEqual({ status: 'ready', stage: null, progress: null });
  });

  it('keeps the first screen within 100 KB of gzipped JavaScript and CSS (npm run bench -- dashboard prints it)', async () => {
    const { buildDashboard } = await import('../../src/dashboard/build-dashboard');
    const { gzipSync } = await import('node:zlib');
    const built = await buildDashboard();
    expect(gzipSync(built.js, { level: 9 }).byteLength + gzipSync(built.css, { level: 9 }).byteLength).toBeLessThan(100 * 1024);
  });

  it('serves the shell with a strict CSP, the bundle under its hash, and / redirects to /admin', async () => {
    const root = await t.app.fetch(new Request(`${ORIGIN}/`));
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/admin');
    const shell = await t.app.fetch(new Request(`${ORIGIN}/admin`));
    expect(shell.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await shell.text();
    const src = /src="(\/admin\/app\.js\?v=[\w-]+)"/.exec(html)![1]!;
    const js = await t.app.fetch(new Request(`${ORIGIN}${src}`, { headers: { 'accept-encoding': 'gzip' } }));
    expect(js.headers.get('cache-control')).toContain('immutable');
    expect(js.headers.get('content-encoding')).toBe('gzip');
    const bad = await t.app.fetch(new Request(`${ORIGIN}/admin/preview?org=<script>&kb=x`));
    expect(bad.status).toBe(400);
    expect(readFileSync(new URL('../../src/dashboard/app/main.tsx', import.meta.url), 'utf8')).not.toMatch(/localStorage\.setItem\([^)]*key/i);
  });
});

describe('documentUpdates: live document status over SSE', () => {
  const UPDATES = `subscription($kbId: ID!) { documentUpdates(kbId: $kbId) { id status stage progress { done total unit } chunkCount } }`;

  it('streams a processing document until it is ready, then completes', async () => {
    const bytes = '# Heron kayak\n\nThe Heron kayak weighs eleven kilograms and seats one paddler.';
    const upload = await uploadFile(t.app, b.key, b.kbId, { name: 'heron.md', bytes });
    expect(upload.status).toBe(202);
    const docId = upload.body.document.id as string;
    const streaming = dashStream({ cookie: b.cookie }, UPDATES, { kbId: b.kbId });
    // The first read sees the document processing; then the worker ingests it.
    await new Promise((r) => setTimeout(r, 300));
    await runQueuedJobs(t);
    const { res, results, kinds } = await streaming;
    expect(res.status).toBe(200);
    expect(kinds.at(-1)).toBe('complete');
    expect(results.every((r) => r.errors === undefined)).toBe(true);
    const states = results.flatMap((r) => r.data.documentUpdates).filter((d: { id: string }) => d.id === docId);
    expect(states[0].status).toBe('processing');
    expect(states.at(-1)).toMatchObject({ status: 'ready', stage: null, progress: null });
    expect(states.at(-1).chunkCount).toBeGreaterThan(0);
  });

  it('completes at once when nothing is processing, and refuses a KB of another organisation', async () => {
    const idle = await dashStream({ key: b.key }, UPDATES, { kbId: b.kbId }, { origin: null, 'sec-fetch-site': null, 'x-groundwork-csrf': null });
    expect(idle.kinds).toEqual(['complete']);
    const foreign = await dashStream({ cookie: b.cookie }, UPDATES, { kbId: a.kbId });
    expect(foreign.results[0]?.errors?.[0]?.extensions.app_code).toBe('not_found');
  });

  it('holds at most ORG_STREAMS watches open per organisation; a closed one frees its slot, another organisation is not affected', async () => {
    const upload = await uploadFile(t.app, b.key, b.kbId, { name: 'slow.md', bytes: '# Slow\n\nStill processing while watched.' });
    expect(upload.status).toBe(202);
    const orgRow = (id: string) => t.deps.db.selectFrom('organizations').selectAll().where('id', '=', id as never).executeTakeFirstOrThrow();
    const ctx = createContext(t.deps, await orgRow(b.orgId), { requestId: 'watch-test' });
    const aborts = Array.from({ length: ORG_STREAMS }, () => new AbortController());
    const watches = await Promise.all(aborts.map((c) => watchDocuments(ctx, b.kbId, c.signal, 50)));
    await expect(watchDocuments(ctx, b.kbId, new AbortController().signal, 50)).rejects.toMatchObject({ code: 'rate_limited' });
    // Another organisation has its own slots.
    const other = new AbortController();
    await watchDocuments(createContext(t.deps, await orgRow(a.orgId), { requestId: 'watch-test-a' }), a.kbId, other.signal, 50);
    other.abort();
    // A watch that was read and then closed frees its slot (its finally ran), and one closed unread too (its abort).
    expect((await watches[0]!.next()).done).toBe(false);
    await watches[0]!.return(undefined);
    aborts[1]!.abort();
    const again = [new AbortController(), new AbortController()];
    await Promise.all(again.map((c) => watchDocuments(ctx, b.kbId, c.signal, 50)));
    await expect(watchDocuments(ctx, b.kbId, new AbortController().signal, 50)).rejects.toMatchObject({ code: 'rate_limited' });
    for (const c of [...aborts, ...again]) c.abort();
    await runQueuedJobs(t);
  });
});
