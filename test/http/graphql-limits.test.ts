/**
 * GraphQL cost limits: parse (tokens), depth and aliases are refused with a 400 JSON error before
 * execution, and a request's root fields are charged against the same per-key rate limit as REST;
 * keyless requests (introspection) are rate-limited per IP. Before: 1,000 aliased `search` fields
 * counted as one request, 200,000 aliased `__typename` cost 1.3 GB, depth 5,000 was internal_error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHQL_LIMITS } from '../../src/graphql/limits';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

const LIMIT = 25;
let t: TestApp;
let apiKey: string;
beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
  ({ api_key: apiKey } = await createOrgWithKey(t.deps));
});
afterAll(() => t?.close());

async function gql(query: string, opts: { key?: string } = {}) {
  const res = await t.app.fetch(
    new Request('http://groundwork.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(opts.key ? { 'x-api-key': opts.key } : {}) },
      body: JSON.stringify({ query }),
    }),
  );
  expect(res.headers.get('content-type')).toMatch(/json/);
  return { status: res.status, body: (await res.json()) as { data?: unknown; errors?: Array<{ message: string; extensions: Record<string, unknown> }> } };
}

const aliases = (n: number, field: string) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: ${field}`).join(' ')} }`;
const nested = (depth: number) => `${'{ a '.repeat(depth)}${'}'.repeat(depth)}`;

describe('GraphQL limits before execution', () => {
  it('refuses 40,000 aliased __typename without a key at the parser, as a 400 (200,000 no longer fit the JSON limit)', async () => {
    const res = await gql(aliases(40_000, '__typename'));
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]?.extensions.app_code).toBe('invalid_input');
    expect(res.body.errors?.[0]?.message).toMatch(/Token limit of 2000/);
    expect(res.body.data).toBeUndefined();
  });

  it.each([5_000, 600, GRAPHQL_LIMITS.maxDepth + 1])('refuses a nesting %i deep with a 400 invalid_input, not internal_error', async (depth) => {
    const res = await gql(nested(depth), { key: apiKey });
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]?.extensions.app_code).toBe('invalid_input');
    expect(res.body.errors?.[0]?.message).toMatch(/Token limit|depth/i);
  });

  it('refuses more aliases than the limit, with or without a key', async () => {
    for (const key of [apiKey, undefined]) {
      const res = await gql(aliases(GRAPHQL_LIMITS.maxAliases + 1, 'knowledgeBases { id }'), { key });
      expect(res.status).toBe(400);
      expect(res.body.errors?.[0]?.message).toMatch(/Aliases limit/i);
    }
  });

  it('refuses 10,000 introspection aliases without a key', async () => {
    const res = await gql(aliases(10_000, '__schema { queryType { name } }'));
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]?.extensions.app_code).toBe('invalid_input');
  });
});

describe('GraphQL cost is charged against the REST rate limit', () => {
  it('charges one point per root field, shared with REST', async () => {
    const { api_key: key } = await createOrgWithKey(t.deps);
    const ten = aliases(10, 'knowledgeBases { id }');
    expect((await gql(ten, { key })).body.errors).toBeUndefined(); // 10 of 25
    expect((await gql(ten, { key })).body.errors).toBeUndefined(); // 20 of 25
    expect((await restClient(t.app, key).get('/api/kbs')).status).toBe(200); // 21 of 25
    const over = await gql(ten, { key }); // 31 > 25
    expect(over.status).toBe(429);
    expect(over.body.errors?.[0]?.extensions.app_code).toBe('rate_limited');
    expect(over.body.data ?? null).toBeNull();
    const rest = await restClient(t.app, key).get('/api/kbs');
    expect(rest.status).toBe(429);
    // Another key is untouched.
    expect((await gql(ten, { key: apiKey })).body.errors).toBeUndefined();
  });

  it('rate-limits keyless requests (introspection) per IP', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 3; i++) statuses.push((await gql('{ __schema { queryType { name } } }')).status);
    expect(statuses.slice(0, 5).every((s) => s === 200)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
  });
});
