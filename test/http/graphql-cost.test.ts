/**
 * GraphQL cost by what a query returns (issue 26): nested list reads are estimated before execution
 * (each list's `first` or assumed size, multiplied through nesting), refused above the node ceiling
 * with a clear 400, charged to the key's rate limit by their size, and counted again while they run
 * so an assumed size that is wrong cannot return more than the ceiling. Before: 15 aliases of
 * knowledgeBases { documents { chunks(first: 200) } } returned 68 MB in 35 s.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHQL_LIMITS } from '../../src/graphql/limits';
import { ORG_READ_CONCURRENCY, withOrgRead } from '../../src/services/org-share';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { waitUntil } from '../helpers/wait-for';

const LIMIT = 60;
let t: TestApp;
let key: string;
let orgId: string;
let kbId: string;
beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
  const created = await createOrgWithKey(t.deps, { plan: 'pro' });
  key = created.api_key;
  orgId = created.org.id;
  kbId = (await restClient(t.app, key).post('/api/kbs', { name: 'Big' })).body.kb.id;
});
afterAll(() => t?.close());

type Body = { data?: any; errors?: Array<{ message: string; extensions: Record<string, any> }> };
async function gql(query: string, opts: { key?: string; variables?: Record<string, unknown> } = {}) {
  const res = await t.app.fetch(
    new Request('http://groundwork.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': opts.key ?? key },
      body: JSON.stringify({ query, variables: opts.variables ?? {} }),
    }),
  );
  expect(res.headers.get('content-type')).toMatch(/json/);
  return { status: res.status, body: (await res.json()) as Body };
}

describe('estimated before execution', () => {
  it('refuses the nested read of issue 26 with a 400 naming its estimate', async () => {
    const { api_key } = await createOrgWithKey(t.deps, { plan: 'pro' });
    const field = 'knowledgeBases { documents { filename chunks(first: 200) { nodes { text headingPath } } } }';
    const query = `{ ${Array.from({ length: 15 }, (_, i) => `a${i}: ${field}`).join(' ')} }`;
    const res = await gql(query, { key: api_key });
    expect(res.status).toBe(400);
    // Refused before execution (not after a slow read): no data at all, not even a partial one.
    expect(res.body.data ?? null).toBeNull();
    expect(res.body.errors?.[0]?.extensions.app_code).toBe('invalid_input');
    expect(res.body.errors?.[0]?.message).toMatch(/may return 1,507,650 nodes.*at most 10,000/);
  });

  it('multiplies through variables and fragments too', async () => {
    const query = `query($n: Int) { knowledgeBase(id: "${kbId}") { ...D } } fragment D on KnowledgeBase { documents { chunks(first: $n) { nodes { id } } } }`;
    expect((await gql(query, { variables: { n: 200 } })).body.errors?.[0]?.message).toMatch(/may return 10,050 nodes/);
    expect((await gql(query, { variables: { n: 100 } })).body.errors).toBeUndefined();
  });

  it('names the argument the client wrote when `first` is out of range', async () => {
    const res = await gql(`{ knowledgeBase(id: "${kbId}") { documentPage(first: 201) { nodes { id } } } }`);
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]?.message).toBe('"first" on KnowledgeBase.documentPage must be between 1 and 200');
    expect(res.body.errors?.[0]?.message).not.toMatch(/limit/);
  });

  it('charges the key one point per 100 nodes it may return (more than its one root field)', async () => {
    const { api_key } = await createOrgWithKey(t.deps, { plan: 'pro' });
    // 10 KBs assumed + 10 x 200 documents = 2,010 nodes: 21 points of 60, a third is over.
    const query = '{ knowledgeBases { documentPage(first: 200) { nodes { id } } } }';
    expect((await gql(query, { key: api_key })).body.errors).toBeUndefined();
    expect((await gql(query, { key: api_key })).body.errors).toBeUndefined();
    const over = await gql(query, { key: api_key });
    expect(over.status).toBe(429);
    expect(over.body.errors?.[0]?.extensions.app_code).toBe('rate_limited');
  });
});

describe('validation errors', () => {
  it('answer 400 invalid_input like syntax errors, whatever the Accept header', async () => {
    for (const query of ['{ nope }', '{ knowledgeBase { id } }', '{ nope']) {
      const res = await gql(query);
      expect(res.status, query).toBe(400);
      expect(res.body.errors?.[0]?.extensions.app_code, query).toBe('invalid_input');
    }
  });
});

describe('counted while running', () => {
  it('stops a list larger than its assumed size at the node ceiling', async () => {
    // 10,001 documents where the estimate assumes 50.
    await sql`insert into documents (id, org_id, kb_id, source, filename, content_type, size_bytes, status, error, pages, created_at, updated_at)
      select 'doc_bulk' || g, ${orgId}, ${kbId}, 'upload', 'f' || g || '.txt', 'text/plain', 1, 'ready', null, null, now(), now()
      from generate_series(1, ${GRAPHQL_LIMITS.maxNodes + 1}) g`.execute(t.db);
    const res = await gql(`{ knowledgeBase(id: "${kbId}") { documents { id } } }`);
    expect(res.body.errors?.[0]?.extensions.app_code).toBe('invalid_input');
    expect(res.body.errors?.[0]?.message).toMatch(/returns more than 10000 nodes/);
    expect(res.body.data ?? null).toBeNull();
    // A page of them is fine.
    const page = await gql(`{ knowledgeBase(id: "${kbId}") { documentPage(first: 200) { nodes { id } } } }`);
    expect(page.body.data.knowledgeBase.documentPage.nodes).toHaveLength(200);
  });
});

describe('per-organisation read line', () => {
  it(`runs at most ${ORG_READ_CONCURRENCY} reads of one organisation at once; another's starts at once`, async () => {
    let active = 0;
    let peak = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const a = { org: { id: 'org_a' } } as never;
    const reads = Array.from({ length: 6 }, () =>
      withOrgRead(a, async () => {
        active++;
        peak = Math.max(peak, active);
        await gate;
        active--;
      }),
    );
    // The admitted reads are in; the rest queue behind them, however long the wait (peak says none got past).
    await waitUntil('the first reads admitted', () => active >= ORG_READ_CONCURRENCY);
    expect(active).toBe(ORG_READ_CONCURRENCY);
    expect(await withOrgRead({ org: { id: 'org_b' } } as never, async () => 'b first')).toBe('b first');
    release();
    await Promise.all(reads);
    expect(peak).toBe(ORG_READ_CONCURRENCY);
  });
});
