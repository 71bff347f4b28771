/**
 * Document operations through the three transports return the same shapes and errors: upload
 * (REST multipart, GraphQL multipart request spec, tRPC FormData), URL ingestion, get and delete.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlClient, restClient, trpcClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { CRAWL_ALLOW_PRIVATE: 'true' } });
});
afterAll(() => t?.close());

const DOC_FIELDS = 'id kbId filename source contentType status enabled chunkCount error sizeBytes pages stage progress { done total unit } ocrPages warnings { code message pages } language recrawl lastCrawledAt nextCrawlAt lastCrawlChanges { added changed removed unchanged } identity { subject kind period source confidence } createdAt updatedAt';
const snake = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]));
const mask = (d: Record<string, unknown>) => ({ ...d, id: '<id>', created_at: '<t>', updated_at: '<t>' });

async function setup() {
  const { api_key } = await createOrgWithKey(t.deps);
  const kbId: string = (await restClient(t.app, api_key).post('/api/kbs', { name: 'KB' })).body.kb.id;
  return { key: api_key, kbId };
}

async function graphqlUpload(key: string, kbId: string, name: string, content: string) {
  const form = new FormData();
  form.set('operations', JSON.stringify({ query: `mutation($kbId: ID!, $file: File!) { uploadDocument(kbId: $kbId, file: $file) { ${DOC_FIELDS} } }`, variables: { kbId, file: null } }));
  form.set('map', JSON.stringify({ 0: ['variables.file'] }));
  form.set('0', new Blob([content], { type: 'text/markdown' }), name);
  const res = await t.app.fetch(new Request('http://groundwork.test/graphql', { method: 'POST', headers: { 'x-api-key': key }, body: form }));
  return (await res.json()) as any;
}

async function trpcUpload(key: string, kbId: string, name: string, content: string) {
  const form = new FormData();
  form.set('file', new Blob([content]), name);
  form.set('kb_id', kbId);
  const res = await t.app.fetch(new Request('http://groundwork.test/trpc/documents.upload', { method: 'POST', headers: { 'x-api-key': key }, body: form }));
  return (await res.json()) as any;
}

describe('document parity', () => {
  it('uploads the same file to the same document shape through REST, GraphQL and tRPC', async () => {
    const { key, kbId } = await setup();
    const md = '# Title\n\nSome text.';
    const rest = (await uploadFile(t.app, key, kbId, { name: 'a.md', bytes: md })).body.document;
    const gql = snake((await graphqlUpload(key, kbId, 'a.md', md)).data.uploadDocument);
    const trpc = (await trpcUpload(key, kbId, 'a.md', md)).result.data.document;
    expect(mask(rest)).toEqual(expect.objectContaining({ status: 'processing', filename: 'a.md', content_type: 'md', size_bytes: md.length, source: 'upload', kb_id: kbId }));
    expect(mask(gql)).toEqual(mask(rest));
    expect(mask(trpc)).toEqual(mask(rest));
  });

  it('refuses an unsupported file the same way everywhere', async () => {
    const { key, kbId } = await setup();
    const exe = `MZ${'\u0000'.repeat(64)}`;
    const rest = await uploadFile(t.app, key, kbId, { name: 'x.exe', bytes: exe });
    const gql = await graphqlUpload(key, kbId, 'x.exe', exe);
    const trpc = await trpcUpload(key, kbId, 'x.exe', exe);
    expect(rest.body.error.code).toBe('unsupported_media_type');
    expect(gql.errors[0].extensions).toMatchObject({ app_code: 'unsupported_media_type', field: 'file' });
    expect(trpc.error.data).toMatchObject({ app_code: 'unsupported_media_type', field: 'file' });
    expect(gql.errors[0].message).toBe(rest.body.error.message);
    expect(trpc.error.message).toBe(rest.body.error.message);
  });

  it('ingests URLs, reads and deletes documents with identical results', async () => {
    const { key, kbId } = await setup();
    const input = { url: 'http://127.0.0.1:9/docs/', kb_id: kbId, max_pages: 3 };
    const rest = (await restClient(t.app, key).post('/api/ingest/url', input)).body.document;
    const gql = snake(
      (await graphqlClient(t.app, key)(`mutation($i: IngestUrlInput!) { ingestUrl(input: $i) { ${DOC_FIELDS} } }`, { i: { url: input.url, kbId, maxPages: 3 } })).body.data!
        .ingestUrl,
    );
    const trpc = (await trpcClient(t.app, key).mutation('documents.ingestUrl', input)).body.result.data.document;
    expect(rest).toMatchObject({ status: 'processing', source: 'url', filename: 'http://127.0.0.1:9/docs/' });
    expect(mask(gql)).toEqual(mask(rest));
    expect(mask(trpc)).toEqual(mask(rest));

    const got = (await restClient(t.app, key).get(`/api/kbs/${kbId}/documents/${rest.id}`)).body.document;
    const gotGql = snake((await graphqlClient(t.app, key)(`query($k: ID!, $d: ID!) { document(kbId: $k, id: $d) { ${DOC_FIELDS} } }`, { k: kbId, d: rest.id })).body.data!.document);
    const gotTrpc = (await trpcClient(t.app, key).query('documents.get', { kb_id: kbId, id: rest.id })).body.result.data.document;
    expect(gotGql).toEqual(got);
    expect(gotTrpc).toEqual(got);

    expect((await graphqlClient(t.app, key)(`mutation($k: ID!, $d: ID!) { deleteDocument(kbId: $k, id: $d) { success } }`, { k: kbId, d: gql.id })).body.data).toEqual({
      deleteDocument: { success: true },
    });
    expect((await trpcClient(t.app, key).mutation('documents.delete', { kb_id: kbId, id: trpc.id })).body.result.data).toEqual({ success: true });
    expect((await restClient(t.app, key).delete(`/api/kbs/${kbId}/documents/${rest.id}`)).body).toEqual({ success: true });
    const again = await trpcClient(t.app, key).mutation('documents.delete', { kb_id: kbId, id: trpc.id });
    expect(again.body.error.data.app_code).toBe('not_found');
  });

  it("shows an ingested document's identity as subject, kind, period, where the subject was read and how sure, the same everywhere", async () => {
    const { key, kbId } = await setup();
    const md = '# Contoso Freight Employee Handbook\n\nNew employees get 25 days of paid leave per year.\n\n## Travel\n\nBook rail for trips under 500 km.';
    const rest = (await uploadFile(t.app, key, kbId, { name: 'hb.md', bytes: md })).body.document;
    await runQueuedJobs(t);
    const got = (await restClient(t.app, key).get(`/api/kbs/${kbId}/documents/${rest.id}`)).body.document;
    // Only what a person checks: the context lines the ingester keeps (running headers, cover lines) stay internal.
    expect(Object.keys(got.identity).sort()).toEqual(['confidence', 'kind', 'period', 'source', 'subject']);
    expect(got.identity.subject).toContain('Contoso Freight');
    // The Markdown's first heading is its title: a name the document gives itself.
    expect(got.identity.confidence).toBe('high');
    expect(got.identity.source).not.toBeNull();
    const listed = (await restClient(t.app, key).get(`/api/kbs/${kbId}/documents`)).body.documents[0];
    const gql = snake((await graphqlClient(t.app, key)(`query($k: ID!, $d: ID!) { document(kbId: $k, id: $d) { ${DOC_FIELDS} } }`, { k: kbId, d: rest.id })).body.data!.document);
    const trpc = (await trpcClient(t.app, key).query('documents.get', { kb_id: kbId, id: rest.id })).body.result.data.document;
    expect(listed.identity).toEqual(got.identity);
    expect(gql.identity).toEqual(got.identity);
    expect(trpc.identity).toEqual(got.identity);
    const introspected = await graphqlClient(t.app, key)(`{ __type(name: "DocumentIdentity") { fields { name } } }`);
    expect(introspected.body.data!.__type.fields.map((f: { name: string }) => f.name).sort()).toEqual(['confidence', 'kind', 'period', 'source', 'subject']);
  });
});
