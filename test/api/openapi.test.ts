import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_TYPES_FILE, printedDashboardTypes, printedSchema } from '../../schema/print-schema';
import { restClient } from '../helpers/api-client';
import { createTestApp, type TestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

/** Every documented REST route, with the error statuses it must document. */
const DOCUMENTED: Array<[method: string, path: string, errors: number[]]> = [
  ['get', '/api/kbs', [401, 429, 500]],
  ['post', '/api/kbs', [400, 401, 403, 413, 415, 429, 500]],
  ['get', '/api/kbs/{id}', [401, 404, 429, 500]],
  ['delete', '/api/kbs/{id}', [401, 404, 429, 500]],
  ['get', '/api/kbs/{id}/documents', [401, 404, 429, 500]],
];

describe('OpenAPI document', () => {
  it('is served without a key and lists every route with its errors', async () => {
    const res = await restClient(t.app).get('/api/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes.ApiKey).toEqual({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    for (const [method, path, errors] of DOCUMENTED) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method.toUpperCase()} ${path}`).toBeDefined();
      for (const status of errors) {
        const schema = op.responses[String(status)]?.content?.['application/json']?.schema;
        expect(schema, `${method} ${path} ${status}`).toBeDefined();
      }
    }
    expect(doc.paths['/api/kbs'].post.requestBody.content['application/json'].schema.required).toEqual(['name']);
    expect(doc.paths['/api/ingest/upload'].post.requestBody.content['multipart/form-data']).toBeDefined();
    const search = doc.paths['/api/rag/search'].post;
    expect(search.requestBody.content['application/json'].schema.properties.top_k).toMatchObject({ type: 'integer', minimum: 1, maximum: 50, default: 5 });
    expect(search.responses['200'].content['text/event-stream']).toBeDefined();
  });

  it('has a servers entry, paths as called (with /api) and the keyless widget endpoints', async () => {
    const doc = (await restClient(t.app).get('/api/openapi.json')).body;
    expect(doc.servers).toEqual([{ url: 'http://groundwork.test', description: 'This server' }]);
    expect(Object.keys(doc.paths).every((p) => p.startsWith('/api/'))).toBe(true);
    for (const path of ['/api/widget/session', '/api/widget/chat', '/api/widget/history']) {
      expect(doc.paths[path]?.post, path).toBeDefined();
    }
    expect(doc.paths['/api/widget/session'].post.security).toBeUndefined();
    expect(doc.paths['/api/widget/session'].post.requestBody.content['application/json'].schema.required).toEqual(['org', 'kb']);
  });
});

describe('GraphiQL', () => {
  it('is off unless NODE_ENV=development is set (or GRAPHIQL=true)', async () => {
    const { testConfig } = await import('../helpers/test-app');
    const { loadConfig } = await import('../../src/config');
    expect(loadConfig({ DATA_DIR: '/x' }).graphiql).toBe(false);
    expect(loadConfig({ DATA_DIR: '/x', NODE_ENV: 'production' }).graphiql).toBe(false);
    expect(loadConfig({ DATA_DIR: '/x', NODE_ENV: 'development' }).graphiql).toBe(true);
    expect(testConfig({ GRAPHIQL: 'true' }).graphiql).toBe(true);
    const page = await t.app.fetch(new Request('http://groundwork.test/graphql', { headers: { accept: 'text/html' } }));
    expect(page.headers.get('content-type') ?? '').not.toMatch(/html/);
  });
});

describe('GraphQL SDL', () => {
  it('committed schema/schema.graphql matches the Pothos schema (run npm run schema:print)', () => {
    const committed = readFileSync(new URL('../../schema/schema.graphql', import.meta.url), 'utf8');
    expect(committed).toBe(printedSchema());
  });

  it("committed src/dashboard/app/graphql-env.d.ts (the dashboard's gql.tada types) matches the schema", () => {
    expect(readFileSync(DASHBOARD_TYPES_FILE, 'utf8')).toBe(printedDashboardTypes());
  });
});
