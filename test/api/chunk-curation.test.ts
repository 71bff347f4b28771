/**
 * Chunk curation through REST, GraphQL and tRPC (one service): search within a document's chunks,
 * duplicates marked, a switched-off chunk kept but out of retrieval on both the lexical and the
 * vector side, an edited chunk re-embedded and marked, and an edit that survives re-ingestion only
 * while ingestion still produces the chunk it was made against.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KbId } from '../../src/ids';
import { retrieve } from '../../src/answering/retrieval/retrieve';
import { storeChunks } from '../../src/services/documents/store-chunks';
import { graphqlClient, restClient, trpcClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

const CHUNK_FIELDS = 'id position text headingPath page url tokenCount enabled editedAt duplicates';
const snake = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]));

const ZEPHYR = 'The Zephyr-9 drone flies for 42 minutes on one battery and folds into a backpack.';
const HANGAR = 'Warranty claims for the Albatross hangar are handled by the Lisbon office within ten days.';

async function setup() {
  const { api_key } = await createOrgWithKey(t.deps);
  const rest = restClient(t.app, api_key);
  const kbId: string = (await rest.post('/api/kbs', { name: 'Fleet' })).body.kb.id;
  const a = (await uploadFile(t.app, api_key, kbId, { name: 'zephyr.md', bytes: `# Zephyr\n\n${ZEPHYR}` })).body.document.id as string;
  // Not the same file (that upload would answer the first document as a duplicate), the same passage.
  const b = (await uploadFile(t.app, api_key, kbId, { name: 'zephyr-copy.md', bytes: `# Zephyr\n\n${ZEPHYR}\n` })).body.document.id as string;
  const c = (await uploadFile(t.app, api_key, kbId, { name: 'hangar.md', bytes: `# Hangar\n\n${HANGAR}` })).body.document.id as string;
  await runQueuedJobs(t);
  return { key: api_key, kbId, a, b, c, rest, gql: graphqlClient(t.app, api_key), trpc: trpcClient(t.app, api_key) };
}

async function retrievedIds(kbId: string, query: string, mode: 'lexical' | 'dense') {
  const kb = await t.deps.db.selectFrom('knowledge_bases').select(['id', 'embedding_model']).where('id', '=', kbId as KbId).executeTakeFirstOrThrow();
  return (await retrieve(t.deps, kb, query, { topK: 10, mode })).chunks.map((c) => c.chunk_id as string);
}

describe('chunk curation on three transports', () => {
  it('lists and searches chunks the same way everywhere, with duplicates within the KB marked', async () => {
    const s = await setup();
    const rest = (await s.rest.get(`/api/kbs/${s.kbId}/documents/${s.a}/chunks?q=${encodeURIComponent('42 MINUTES')}`)).body;
    const gql = (await s.gql(`query($k: ID!, $d: ID!) { document(kbId: $k, id: $d) { chunks(query: "42 MINUTES") { nodes { ${CHUNK_FIELDS} } nextAfter } } }`, { k: s.kbId, d: s.a })).body.data!.document.chunks;
    const trpc = (await s.trpc.query('documents.chunks', { kb_id: s.kbId, id: s.a, query: '42 MINUTES' })).body.result.data;
    expect(rest.chunks).toHaveLength(1);
    expect(rest.chunks[0]).toMatchObject({ enabled: true, edited_at: null, duplicates: 1 });
    expect(rest.chunks[0].text).toContain('42 minutes');
    expect(gql.nodes.map(snake)).toEqual(rest.chunks);
    expect(trpc).toEqual(rest);
    // A search that matches nothing is an empty page, and LIKE's wildcards are taken literally.
    expect((await s.rest.get(`/api/kbs/${s.kbId}/documents/${s.a}/chunks?q=%25`)).body.chunks).toEqual([]);
    // The hangar text exists once in the KB.
    expect((await s.rest.get(`/api/kbs/${s.kbId}/documents/${s.c}/chunks`)).body.chunks[0].duplicates).toBe(0);
  });

  it('a switched-off chunk stays listed but leaves retrieval, lexical and vector; switched on it is back', async () => {
    const s = await setup();
    const chunk = (await s.rest.get(`/api/kbs/${s.kbId}/documents/${s.c}/chunks`)).body.chunks[0];
    expect(await retrievedIds(s.kbId, 'Albatross hangar warranty Lisbon', 'lexical')).toContain(chunk.id);
    expect(await retrievedIds(s.kbId, 'Albatross hangar warranty Lisbon', 'dense')).toContain(chunk.id);

    const off = await s.rest.raw(`/api/kbs/${s.kbId}/documents/${s.c}/chunks/${chunk.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enabled: false }),
    });
    expect(off.status).toBe(200);
    const offBody = (await off.json()) as { chunk: { enabled: boolean } };
    expect(offBody.chunk).toMatchObject({ id: chunk.id, enabled: false, text: chunk.text });
    expect(await retrievedIds(s.kbId, 'Albatross hangar warranty Lisbon', 'lexical')).not.toContain(chunk.id);
    expect(await retrievedIds(s.kbId, 'Albatross hangar warranty Lisbon', 'dense')).not.toContain(chunk.id);
    // Still there, marked.
    expect((await s.rest.get(`/api/kbs/${s.kbId}/documents/${s.c}/chunks`)).body.chunks[0]).toMatchObject({ id: chunk.id, enabled: false });
    // The Sandbox's retrieval (GraphQL) does not see it either.
    const seen = (await s.gql(`query($k: ID!) { retrieve(kbId: $k, query: "Albatross hangar warranty", topK: 10) { passages { chunkId } } }`, { k: s.kbId })).body.data!.retrieve.passages;
    expect(seen.map((p: { chunkId: string }) => p.chunkId)).not.toContain(chunk.id);

    const gqlOn = (await s.gql(`mutation($k: ID!, $d: ID!, $c: ID!) { updateChunk(kbId: $k, documentId: $d, chunkId: $c, enabled: true) { ${CHUNK_FIELDS} } }`, { k: s.kbId, d: s.c, c: chunk.id })).body.data!.updateChunk;
    expect(gqlOn.enabled).toBe(true);
    expect(await retrievedIds(s.kbId, 'Albatross hangar warranty Lisbon', 'lexical')).toContain(chunk.id);

    const trpcOff = (await s.trpc.mutation('documents.updateChunk', { kb_id: s.kbId, id: s.c, chunk_id: chunk.id, enabled: false })).body.result.data.chunk;
    expect(trpcOff).toEqual({ ...snake(gqlOn), enabled: false });
    expect(await retrievedIds(s.kbId, 'Albatross hangar warranty Lisbon', 'dense')).not.toContain(chunk.id);
  });

  it('an edited chunk is re-embedded and marked, and retrieval finds its new words, not its old ones', async () => {
    const s = await setup();
    const chunk = (await s.rest.get(`/api/kbs/${s.kbId}/documents/${s.c}/chunks`)).body.chunks[0];
    const text = 'Warranty claims for the Albatross hangar go to the Porto office, answered within five days.';
    const edited = (await s.gql(`mutation($k: ID!, $d: ID!, $c: ID!, $t: String) { updateChunk(kbId: $k, documentId: $d, chunkId: $c, text: $t) { ${CHUNK_FIELDS} } }`, { k: s.kbId, d: s.c, c: chunk.id, t: text })).body.data!.updateChunk;
    expect(edited).toMatchObject({ id: chunk.id, text, enabled: true, position: chunk.position });
    expect(Date.parse(edited.editedAt)).toBeGreaterThan(0);
    expect(await retrievedIds(s.kbId, 'Porto', 'lexical')).toContain(chunk.id);
    expect(await retrievedIds(s.kbId, 'Lisbon', 'lexical')).not.toContain(chunk.id);
    const row = await t.deps.db.selectFrom('chunks').select(['embedding_model', 'source_hash']).where('id', '=', chunk.id).executeTakeFirstOrThrow();
    expect(row.embedding_model).toBe(t.deps.embeddings.default.id);
    expect(row.source_hash).toMatch(/^[0-9a-f]{32}$/);
    // The same listing through the other transports.
    const viaTrpc = (await s.trpc.query('documents.chunks', { kb_id: s.kbId, id: s.c })).body.result.data.chunks[0];
    expect(viaTrpc).toEqual(snake(edited));
  });

  it('re-ingesting keeps an edit while the source chunk is unchanged, and drops it when the source changed', async () => {
    const s = await setup();
    const chunk = (await s.rest.get(`/api/kbs/${s.kbId}/documents/${s.c}/chunks`)).body.chunks[0];
    const text = 'Hangar warranty: the Porto office.';
    await s.trpc.mutation('documents.updateChunk', { kb_id: s.kbId, id: s.c, chunk_id: chunk.id, text, enabled: false });
    expect((await s.rest.post(`/api/kbs/${s.kbId}/documents/${s.c}/reingest`, {})).status).toBe(202);
    await runQueuedJobs(t);
    const after = (await s.rest.get(`/api/kbs/${s.kbId}/documents/${s.c}/chunks`)).body.chunks;
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ text, enabled: false });
    expect(after[0].edited_at).not.toBeNull();

    // The source now produces a different chunk: the edit no longer applies.
    const doc = { id: s.c as never, kb_id: s.kbId as never };
    await storeChunks(t.deps, doc, [{ text: 'Hangar warranty claims now go to Madrid.', headingPath: ['Hangar'], position: 0, tokenCount: 8, embedding: null }], { pages: null, dimensions: null, model: null });
    const changed = (await s.rest.get(`/api/kbs/${s.kbId}/documents/${s.c}/chunks`)).body.chunks;
    expect(changed[0]).toMatchObject({ text: 'Hangar warranty claims now go to Madrid.', enabled: true, edited_at: null });
  });

  it('refuses bad input and other organisations the same way on every transport', async () => {
    const s = await setup();
    const other = await setup();
    const chunk = (await s.rest.get(`/api/kbs/${s.kbId}/documents/${s.c}/chunks`)).body.chunks[0];
    const patch = (key: string, kb: string, doc: string, id: string, body: unknown) =>
      restClient(t.app, key).raw(`/api/kbs/${kb}/documents/${doc}/chunks/${id}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    // Another organisation's key cannot reach the chunk, even naming it exactly.
    const foreign = await patch(other.key, s.kbId, s.c, chunk.id, { enabled: false });
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe('not_found');
    const gqlForeign = await other.gql(`mutation($k: ID!, $d: ID!, $c: ID!) { updateChunk(kbId: $k, documentId: $d, chunkId: $c, enabled: false) { id } }`, { k: s.kbId, d: s.c, c: chunk.id });
    expect(gqlForeign.body.errors![0]!.extensions!.app_code).toBe('not_found');
    const trpcForeign = await other.trpc.mutation('documents.updateChunk', { kb_id: s.kbId, id: s.c, chunk_id: chunk.id, enabled: false });
    expect(trpcForeign.body.error.data.app_code).toBe('not_found');
    // A chunk of another document of the same KB is not found under this one.
    expect((await patch(s.key, s.kbId, s.a, chunk.id, { enabled: false })).status).toBe(404);
    // Empty text, nothing to change.
    const empty = await patch(s.key, s.kbId, s.c, chunk.id, { text: '   ' });
    expect(empty.status).toBe(400);
    expect((await patch(s.key, s.kbId, s.c, chunk.id, {})).status).toBe(400);
    const trpcEmpty = await s.trpc.mutation('documents.updateChunk', { kb_id: s.kbId, id: s.c, chunk_id: chunk.id, text: '' });
    expect(trpcEmpty.body.error.data.app_code).toBe('invalid_input');
    // Nothing changed.
    expect((await s.rest.get(`/api/kbs/${s.kbId}/documents/${s.c}/chunks`)).body.chunks[0]).toEqual(chunk);
  });
});
