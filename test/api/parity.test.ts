/**
 * The three transports are adapters over one service layer: the same operations through REST,
 * GraphQL and tRPC must return the same data and the same errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlClient, restClient, trpcClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

type Outcome = { ok: unknown } | { error: string; field?: string | null };

type Transport = {
  listKbs(): Promise<Outcome>;
  createKb(input: Record<string, unknown>): Promise<Outcome>;
  getKb(id: string): Promise<Outcome>;
  deleteKb(id: string): Promise<Outcome>;
  listDocuments(kbId: string): Promise<Outcome>;
};

const KB_FIELDS = 'id name description docCount widgetEnabled createdAt';
const camelToSnake = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]));

function rest(t: TestApp, key?: string): Transport {
  const api = restClient(t.app, key);
  const out = (r: { status: number; body: any }, pick: (b: any) => unknown): Outcome =>
    r.status < 300 ? { ok: pick(r.body) } : { error: r.body.error.code, field: r.body.error.field ?? null };
  return {
    listKbs: async () => out(await api.get('/api/kbs'), (b) => b.kbs),
    createKb: async (input) => out(await api.post('/api/kbs', input), (b) => b.kb),
    getKb: async (id) => out(await api.get(`/api/kbs/${id}`), (b) => b.kb),
    deleteKb: async (id) => out(await api.delete(`/api/kbs/${id}`), (b) => b),
    listDocuments: async (id) => out(await api.get(`/api/kbs/${id}/documents`), (b) => b.documents),
  };
}

function graphql(t: TestApp, key?: string): Transport {
  const gql = graphqlClient(t.app, key);
  const out = async (p: ReturnType<typeof gql>, pick: (d: any) => unknown): Promise<Outcome> => {
    const r = await p;
    const err = r.body.errors?.[0];
    return err ? { error: err.extensions?.app_code, field: err.extensions?.field ?? null } : { ok: pick(r.body.data) };
  };
  return {
    listKbs: () => out(gql(`{ knowledgeBases { ${KB_FIELDS} } }`), (d) => d.knowledgeBases.map(camelToSnake)),
    createKb: (input) =>
      out(gql(`mutation($input: CreateKnowledgeBaseInput!) { createKnowledgeBase(input: $input) { ${KB_FIELDS} } }`, { input }), (d) =>
        camelToSnake(d.createKnowledgeBase),
      ),
    getKb: (id) => out(gql(`query($id: ID!) { knowledgeBase(id: $id) { ${KB_FIELDS} } }`, { id }), (d) => camelToSnake(d.knowledgeBase)),
    deleteKb: (id) => out(gql(`mutation($id: ID!) { deleteKnowledgeBase(id: $id) { success } }`, { id }), (d) => d.deleteKnowledgeBase),
    listDocuments: (id) =>
      out(gql(`query($id: ID!) { knowledgeBase(id: $id) { documents { id filename status chunkCount } } }`, { id }), (d) =>
        d.knowledgeBase.documents,
      ),
  };
}

function trpc(t: TestApp, key?: string): Transport {
  const c = trpcClient(t.app, key);
  const out = (r: { status: number; body: any }, pick: (d: any) => unknown): Outcome =>
    r.body.error ? { error: r.body.error.data.app_code, field: r.body.error.data.field ?? null } : { ok: pick(r.body.result.data) };
  return {
    listKbs: async () => out(await c.query('kbs.list'), (d) => d.kbs),
    createKb: async (input) => out(await c.mutation('kbs.create', input), (d) => d.kb),
    getKb: async (id) => out(await c.query('kbs.get', { id }), (d) => d.kb),
    deleteKb: async (id) => out(await c.mutation('kbs.delete', { id }), (d) => d),
    listDocuments: async (id) => out(await c.query('documents.list', { kb_id: id }), (d) => d.documents),
  };
}

const transports = { rest, graphql, trpc } as const;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

/** Runs one scenario through a transport on a fresh free-plan org; ids and timestamps are masked. */
async function scenario(make: (t: TestApp, key?: string) => Transport) {
  const { api_key } = await createOrgWithKey(t.deps, { plan: 'free' });
  const other = await createOrgWithKey(t.deps, { plan: 'free' });
  const api = make(t, api_key);
  const stranger = make(t, other.api_key);
  const steps: Record<string, Outcome> = {};

  steps.emptyList = await api.listKbs();
  const created = await api.createKb({ name: '  Handbook ', description: 'HR' });
  steps.created = created;
  const id = (created as { ok: { id: string } }).ok.id;
  steps.get = await api.getKb(id);
  steps.list = await api.listKbs();
  steps.documents = await api.listDocuments(id);
  steps.overLimit = await api.createKb({ name: 'Second' });
  steps.emptyName = await api.createKb({ name: '' });
  steps.unknownField = await api.createKb({ name: 'x', colour: 'red' });
  steps.foreignGet = await stranger.getKb(id);
  steps.foreignDelete = await stranger.deleteKb(id);
  steps.foreignDocuments = await stranger.listDocuments(id);
  steps.malformedId = await api.getKb('not-an-id');
  steps.unauthenticated = await make(t, undefined).listKbs();
  steps.revokedOrBadKey = await make(t, 'gw_' + '0'.repeat(40)).listKbs();
  steps.deleted = await api.deleteKb(id);
  steps.deletedAgain = await api.deleteKb(id);
  steps.finalList = await api.listKbs();

  return JSON.parse(
    JSON.stringify(steps)
      .replaceAll(id, '<kb_id>')
      .replace(/"\d{4}-\d\d-\d\dT[\d:.]+Z"/g, '"<timestamp>"'),
  );
}

describe('transport parity', () => {
  it('REST, GraphQL and tRPC return the same data and the same errors', async () => {
    const results = {
      rest: await scenario(transports.rest),
      graphql: await scenario(transports.graphql),
      trpc: await scenario(transports.trpc),
    };
    // GraphQL cannot even express an unknown input field (the schema rejects it before the service),
    // so that one step is compared on its error code only.
    expect(results.graphql.unknownField.error).toBe('invalid_input');
    for (const r of Object.values(results)) delete r.unknownField;
    expect(results.rest).toMatchSnapshot();
    expect(results.graphql).toEqual(results.rest);
    expect(results.trpc).toEqual(results.rest);
  });
});
