/**
 * Key scopes and the audit log through the transports clients use: a `query` key searches and chats
 * on REST, GraphQL and tRPC and is refused everything else; every admin action a key takes is in the
 * audit log with who and from where; an organisation never reads another's log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../../src/context';
import type { Actor } from '../../src/services/access/actor';
import { deleteKb } from '../../src/services/kbs/delete-kb';
import { createKb } from '../../src/services/kbs/create-kb';
import { listApiKeys } from '../../src/services/api-keys/list-api-keys';
import { graphqlClient, restClient, trpcClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

async function orgWithKb() {
  const { org, api_key } = await createOrgWithKey(t.deps, { plan: 'pro' });
  const rest = restClient(t.app, api_key);
  const kbId: string = (await rest.post('/api/kbs', { name: 'Handbook' })).body.kb.id;
  const doc = 'The office opens at eight in the morning. Parking is behind the library.';
  expect((await uploadFile(t.app, api_key, kbId, { name: 'office.txt', bytes: doc })).status).toBe(202);
  await runQueuedJobs(t);
  return { org, api_key, kbId };
}

async function queryKeyOf(fullKey: string): Promise<string> {
  const res = await graphqlClient(t.app, fullKey)('mutation { createApiKey(name: "site", scope: "query") { apiKey key { scope } } }');
  expect(res.body.data?.createApiKey.key.scope).toBe('query');
  return res.body.data!.createApiKey.apiKey;
}

describe('a query key', () => {
  it('searches and chats on REST, GraphQL and tRPC', async () => {
    const { api_key, kbId } = await orgWithKb();
    const key = await queryKeyOf(api_key);
    const search = await restClient(t.app, key).post('/api/rag/search', { kb_id: kbId, query: 'When does the office open?' });
    expect(search.status).toBe(200);
    expect(search.body.citations.length).toBeGreaterThan(0);
    expect((await restClient(t.app, key).post('/api/rag/chat', { kb_id: kbId, message: 'Where is parking?' })).status).toBe(200);
    const gql = await graphqlClient(t.app, key)('query($kb: ID!) { search(kbId: $kb, query: "When does the office open?") { answer } }', { kb: kbId });
    expect(gql.body.errors).toBeUndefined();
    expect((await trpcClient(t.app, key).mutation('rag.search', { kb_id: kbId, query: 'When does the office open?' })).status).toBe(200);
  });

  it('is refused 403 with its reason for content, changes and keys on every transport', async () => {
    const { api_key, kbId } = await orgWithKb();
    const key = await queryKeyOf(api_key);
    const rest = restClient(t.app, key);
    for (const res of [await rest.get('/api/kbs'), await rest.get(`/api/kbs/${kbId}/documents`), await rest.delete(`/api/kbs/${kbId}`), await rest.post('/api/kbs', { name: 'x' })]) {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
      expect(res.body.error.message).toMatch(/query scope/);
    }
    const gql = graphqlClient(t.app, key);
    for (const q of ['{ knowledgeBases { id } }', '{ apiKeys { id } }', '{ auditLog { entries { id } } }', 'mutation { createApiKey(name: "escalate") { apiKey } }']) {
      const res = await gql(q);
      expect(res.body.errors?.[0]?.extensions?.code, q).toBe('FORBIDDEN');
    }
    const trpc = trpcClient(t.app, key);
    expect((await trpc.query('kbs.list')).status).toBe(403);
    expect((await trpc.query('keys.list')).status).toBe(403);
    expect((await trpc.mutation('kbs.delete', { id: kbId })).status).toBe(403);
    // Nothing was deleted.
    expect((await restClient(t.app, api_key).get(`/api/kbs/${kbId}`)).status).toBe(200);
  });
});

describe('roles in the service layer', () => {
  it('lets an editor create a KB but not delete one or see keys; a viewer reads only', async () => {
    const { org: dto } = await createOrgWithKey(t.deps);
    const org = await t.db.selectFrom('organizations').selectAll().where('id', '=', dto.id).executeTakeFirstOrThrow();
    const as = (role: Actor['role']) => createContext(t.deps, org, { requestId: 'test', actor: { type: 'user', id: null, label: `${role}@example.test`, role, scope: 'full' } });
    const { kb } = await createKb(as('editor'), { name: 'Team notes' });
    await expect(deleteKb(as('editor'), { id: kb.id })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(listApiKeys(as('editor'))).rejects.toMatchObject({ code: 'forbidden' });
    await expect(createKb(as('viewer'), { name: 'Nope' })).rejects.toMatchObject({ code: 'forbidden' });
    expect((await deleteKb(as('admin'), { id: kb.id })).success).toBe(true);
  });
});

describe('the audit log', () => {
  it('records each admin action with the key, the address and what changed, newest first, filtered', async () => {
    const { api_key, kbId } = await orgWithKb();
    const rest = restClient(t.app, api_key);
    const docs = (await rest.get(`/api/kbs/${kbId}/documents`)).body.documents;
    expect((await rest.delete(`/api/kbs/${kbId}/documents/${docs[0].id}`)).status).toBe(200);
    expect((await rest.delete(`/api/kbs/${kbId}`)).status).toBe(200);

    const gql = graphqlClient(t.app, api_key);
    const all = (await gql('{ auditLog { entries { action actor { type label } targetType targetId changes } nextBefore } }')).body.data!.auditLog;
    // The organisation's first key was created with it, by the system.
    expect(all.entries.map((e: { action: string }) => e.action)).toEqual(['kb.delete', 'document.delete', 'document.create', 'kb.create', 'key.create']);
    expect(all.entries[4].actor).toEqual({ type: 'system', label: 'system' });
    expect(all.entries[0]).toMatchObject({ actor: { type: 'api_key', label: `key ${api_key.slice(0, 12)}…` }, targetType: 'knowledge_base', targetId: kbId });
    expect(JSON.parse(all.entries[0].changes)).toEqual({ name: 'Handbook' });

    const kbOnly = (await gql('{ auditLog(action: "kb.") { entries { action } } }')).body.data!.auditLog.entries;
    expect(kbOnly.map((e: { action: string }) => e.action)).toEqual(['kb.delete', 'kb.create']);
    const page = (await gql('{ auditLog(first: 1) { entries { id action } nextBefore } }')).body.data!.auditLog;
    expect(page.entries).toHaveLength(1);
    const older = (await gql('query($b: String) { auditLog(first: 10, before: $b) { entries { action } } }', { b: page.nextBefore })).body.data!.auditLog;
    expect(older.entries[0].action).toBe('document.delete');

    const viaTrpc = await trpcClient(t.app, api_key).query('audit.list', { action: 'document.delete' });
    expect(viaTrpc.status).toBe(200);
    expect(viaTrpc.body.result.data.entries).toHaveLength(1);
  });

  it('never shows one organisation the entries of another, on GraphQL or tRPC', async () => {
    const a = await orgWithKb();
    const b = await createOrgWithKey(t.deps);
    const bLog = (await graphqlClient(t.app, b.api_key)('{ auditLog { entries { action targetId } } }')).body.data!.auditLog.entries;
    expect(bLog.map((e: { action: string }) => e.action)).toEqual(['key.create']);
    const bTrpc = await trpcClient(t.app, b.api_key).query('audit.list', { target_id: a.kbId });
    expect(bTrpc.body.result.data.entries).toEqual([]);
  });

  it('refuses a malformed filter with a clear 400', async () => {
    const { api_key } = await createOrgWithKey(t.deps);
    const res = await trpcClient(t.app, api_key).query('audit.list', { before: 'drop table' });
    expect(res.status).toBe(400);
  });
});
