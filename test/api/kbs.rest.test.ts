import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

describe('REST /api/kbs', () => {
  it('creates, lists and deletes knowledge bases with the spec’s shapes', async () => {
    const { api_key } = await createOrgWithKey(t.deps);
    const api = restClient(t.app, api_key);

    const created = await api.post('/api/kbs', { name: 'Product docs', description: 'Manuals' });
    expect(created.status).toBe(201);
    expect(created.body.kb).toMatchObject({ name: 'Product docs', doc_count: 0 });
    expect(created.body.kb.id).toMatch(/^kb_[0-9A-Za-z]{20}$/);
    expect(created.body.kb.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const list = await api.get('/api/kbs');
    expect(list.status).toBe(200);
    expect(list.body.kbs).toEqual([expect.objectContaining({ id: created.body.kb.id, name: 'Product docs', doc_count: 0 })]);

    const docs = await api.get(`/api/kbs/${created.body.kb.id}/documents`);
    expect(docs).toMatchObject({ status: 200, body: { documents: [] } });

    const del = await api.delete(`/api/kbs/${created.body.kb.id}`);
    expect(del).toMatchObject({ status: 200, body: { success: true } });
    expect((await api.get('/api/kbs')).body.kbs).toEqual([]);
    expect((await api.delete(`/api/kbs/${created.body.kb.id}`)).status).toBe(404);
  });

  it('rejects bad input with a 400 naming the field', async () => {
    const { api_key } = await createOrgWithKey(t.deps);
    const api = restClient(t.app, api_key);
    const missing = await api.post('/api/kbs', {});
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'invalid_input', field: 'name' });

    const mistyped = await api.post('/api/kbs', { name: 42 });
    expect(mistyped.body.error).toMatchObject({ code: 'invalid_input', field: 'name' });

    const unknown = await api.post('/api/kbs', { name: 'x', colour: 'red' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'invalid_input', field: 'colour' });

    const malformed = await api.raw('/api/kbs', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":' });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error.code).toBe('invalid_input');
  });

  it('requires a valid API key', async () => {
    const noKey = await restClient(t.app).get('/api/kbs');
    expect(noKey.status).toBe(401);
    expect(noKey.body.error.code).toBe('unauthorized');
    const badKey = await restClient(t.app, 'gw_' + 'x'.repeat(40)).get('/api/kbs');
    expect(badKey.status).toBe(401);
  });
});
