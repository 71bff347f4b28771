/**
 * Evals through REST, GraphQL and tRPC: the same services behind thin adapters, documented in
 * OpenAPI, and no organisation reads, changes or runs another's test set or runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlClient, restClient, trpcClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';

const DOC = `# Zephyr-9\n\nThe Zephyr-9 drone is made by Northwind Aerial.\n\nThe Zephyr-9 can fly for 47 minutes on one charge.`;

let t: TestApp;
let keyA: string;
let keyB: string;
let kbA: string;
let kbB: string;

beforeAll(async () => {
  t = await createTestApp();
  keyA = (await createOrgWithKey(t.deps)).api_key;
  keyB = (await createOrgWithKey(t.deps)).api_key;
  kbA = (await restClient(t.app, keyA).post('/api/kbs', { name: 'A' })).body.kb.id;
  kbB = (await restClient(t.app, keyB).post('/api/kbs', { name: 'B' })).body.kb.id;
  expect((await uploadFile(t.app, keyA, kbA, { name: 'zephyr.md', bytes: DOC })).status).toBe(202);
  await runQueuedJobs(t);
});
afterAll(() => t?.close());

describe('REST /api/kbs/:id/evals', () => {
  let caseId: string;
  let runId: string;

  it('creates, changes, lists, exports, imports and deletes cases', async () => {
    const api = restClient(t.app, keyA);
    const created = await api.post(`/api/kbs/${kbA}/evals/cases`, { question: 'How long can the Zephyr-9 fly?', answer: '47 minutes', documents: ['zephyr.md'] });
    expect(created.status).toBe(201);
    expect(created.body.case).toMatchObject({ kb_id: kbA, source: 'manual', answerable: true, pages: [] });
    caseId = created.body.case.id;
    const changed = await api.patch(`/api/kbs/${kbA}/evals/cases/${caseId}`, { pages: [1] });
    expect(changed.status).toBe(200);
    expect(changed.body.case).toMatchObject({ pages: [1], answer: '47 minutes' });
    const bad = await api.post(`/api/kbs/${kbA}/evals/cases`, { question: '', answerable: 'no' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_input' });

    const imported = await api.post(`/api/kbs/${kbA}/evals/import`, { format: 'csv', content: 'question,answerable\nWhat is the capital of Peru?,false\n' });
    expect(imported.status).toBe(200);
    expect(imported.body.imported).toBe(1);
    const badImport = await api.post(`/api/kbs/${kbA}/evals/import`, { content: '{"question":"ok"}\n{"question":1}' });
    expect(badImport.status).toBe(400);
    expect(badImport.body.error.message).toMatch(/^line 2: /);

    const exported = await api.raw(`/api/kbs/${kbA}/evals/export`);
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    expect((await exported.text()).trim().split('\n').map((l) => JSON.parse(l))).toEqual([
      { question: 'How long can the Zephyr-9 fly?', answer: '47 minutes', documents: ['zephyr.md'], pages: [1] },
      { question: 'What is the capital of Peru?', answerable: false },
    ]);
    const csv = await api.raw(`/api/kbs/${kbA}/evals/export?format=csv`);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);

    const extra = (await api.post(`/api/kbs/${kbA}/evals/cases`, { question: 'Temporary?' })).body.case.id;
    expect((await api.delete(`/api/kbs/${kbA}/evals/cases/${extra}`)).body).toEqual({ success: true });
    expect((await api.get(`/api/kbs/${kbA}/evals/cases`)).body.cases).toHaveLength(2);
  });

  it('starts a run, reports it with results, lists runs and compares two', async () => {
    const api = restClient(t.app, keyA);
    const started = await api.raw(`/api/kbs/${kbA}/evals/runs`, { method: 'POST' });
    expect(started.status).toBe(202);
    runId = ((await started.json()) as any).run.id;
    await runQueuedJobs(t);
    const got = await api.get(`/api/kbs/${kbA}/evals/runs/${runId}`);
    expect(got.status).toBe(200);
    expect(got.body.run).toMatchObject({ status: 'completed', progress: { done: 2, total: 2 }, summary: { cases: 2, hit_at_k: 1, answer_contains: 1, refusal_recall: 1 } });
    expect(got.body.results.map((r: any) => r.question)).toEqual(['How long can the Zephyr-9 fly?', 'What is the capital of Peru?']);
    const noBase = await api.get(`/api/kbs/${kbA}/evals/runs/${runId}/compare`);
    expect(noBase.status).toBe(400);

    const second = await api.post(`/api/kbs/${kbA}/evals/runs`, { top_k: 2 });
    expect(second.body.run.settings.top_k).toBe(2);
    await runQueuedJobs(t);
    const compared = await api.get(`/api/kbs/${kbA}/evals/runs/${second.body.run.id}/compare`);
    expect(compared.status).toBe(200);
    expect(compared.body).toMatchObject({ base: { id: runId }, counts: { same: 2, better: 0, worse: 0 } });
    expect((await api.get(`/api/kbs/${kbA}/evals/runs`)).body.runs.map((r: any) => r.id)).toEqual([second.body.run.id, runId]);
    const settings = await api.patch(`/api/kbs/${kbA}/evals/settings`, { webhook_url: 'ftp://example.com' });
    expect(settings.status).toBe(400);
    expect((await api.get(`/api/kbs/${kbA}/evals/settings`)).body.settings).toEqual({ kb_id: kbA, top_k: 5, webhook_url: null, webhook_secret: null });
  });

  it("gives another organisation 404 for every eval route of this KB, case or run", async () => {
    const b = restClient(t.app, keyB);
    for (const res of [
      await b.get(`/api/kbs/${kbA}/evals/cases`),
      await b.post(`/api/kbs/${kbA}/evals/cases`, { question: 'x' }),
      await b.patch(`/api/kbs/${kbA}/evals/cases/${caseId}`, { question: 'x' }),
      await b.patch(`/api/kbs/${kbB}/evals/cases/${caseId}`, { question: 'x' }),
      await b.delete(`/api/kbs/${kbB}/evals/cases/${caseId}`),
      await b.post(`/api/kbs/${kbA}/evals/import`, { content: '{"question":"x"}' }),
      await b.get(`/api/kbs/${kbA}/evals/export`),
      await b.get(`/api/kbs/${kbA}/evals/settings`),
      await b.patch(`/api/kbs/${kbA}/evals/settings`, { top_k: 3 }),
      await b.post(`/api/kbs/${kbA}/evals/runs`, {}),
      await b.get(`/api/kbs/${kbA}/evals/runs`),
      await b.get(`/api/kbs/${kbA}/evals/runs/${runId}`),
      await b.get(`/api/kbs/${kbB}/evals/runs/${runId}`),
      await b.get(`/api/kbs/${kbB}/evals/runs/${runId}/compare?base=${runId}`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect((await restClient(t.app, keyA).get(`/api/kbs/${kbA}/evals/cases`)).body.cases.map((c: any) => c.question)).not.toContain('x');
  });

  it('is documented in OpenAPI', async () => {
    const doc = (await restClient(t.app).get('/api/openapi.json')).body;
    for (const [method, path] of [
      ['get', '/api/kbs/{id}/evals/cases'],
      ['post', '/api/kbs/{id}/evals/cases'],
      ['patch', '/api/kbs/{id}/evals/cases/{caseId}'],
      ['delete', '/api/kbs/{id}/evals/cases/{caseId}'],
      ['post', '/api/kbs/{id}/evals/import'],
      ['get', '/api/kbs/{id}/evals/export'],
      ['post', '/api/kbs/{id}/evals/runs'],
      ['get', '/api/kbs/{id}/evals/runs'],
      ['get', '/api/kbs/{id}/evals/runs/{runId}'],
      ['get', '/api/kbs/{id}/evals/runs/{runId}/compare'],
    ] as const) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.responses['404'].content['application/json'].schema, `${method} ${path} 404`).toBeDefined();
    }
    expect(doc.paths['/api/kbs/{id}/evals/cases'].post.requestBody.content['application/json'].schema.properties.answerable.type).toBe('boolean');
  });
});

describe('GraphQL and tRPC', () => {
  it('create cases, run and read runs the same way', async () => {
    const gql = graphqlClient(t.app, keyA);
    const created = await gql(`mutation($input: EvalCaseInput!) { createEvalCase(input: $input) { id question source answerable } }`, {
      input: { kbId: kbA, question: 'Who makes the Zephyr-9?', answer: 'Northwind Aerial', source: 'sandbox' },
    });
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data!.createEvalCase).toMatchObject({ source: 'sandbox', answerable: true });
    const trpc = trpcClient(t.app, keyA);
    const viaTrpc = await trpc.mutation('evals.createCase', { kb_id: kbA, question: 'Is the Zephyr-9 waterproof in the sea?', answerable: false });
    expect(viaTrpc.status).toBe(200);
    expect(viaTrpc.body.result.data.case).toMatchObject({ answerable: false });

    const started = await gql(`mutation($kbId: ID!) { startEvalRun(kbId: $kbId) { id status total } }`, { kbId: kbA });
    expect(started.body.data!.startEvalRun).toMatchObject({ status: 'queued', total: 4 });
    await runQueuedJobs(t);
    const id = started.body.data!.startEvalRun.id;
    const run = await gql(`query($kbId: ID!, $id: ID!) { evalRun(kbId: $kbId, id: $id) { status summary { cases hitAtK answerContains } results { question answerContains refused } } }`, { kbId: kbA, id });
    expect(run.body.data!.evalRun).toMatchObject({ status: 'completed', summary: { cases: 4, answerContains: 1 } });
    const viaTrpcRun = await trpc.query('evals.run', { kb_id: kbA, id });
    expect(viaTrpcRun.body.result.data.run.summary).toEqual(expect.objectContaining({ cases: 4, answer_contains: 1 }));
    const compared = await gql(`query($kbId: ID!, $id: ID!) { evalComparison(kbId: $kbId, runId: $id) { better worse same cases { change } } }`, { kbId: kbA, id });
    expect(compared.body.data!.evalComparison).toMatchObject({ worse: 0 });
  });

  it("refuse another organisation's KB, cases and runs as not found", async () => {
    const runId = (await restClient(t.app, keyA).get(`/api/kbs/${kbA}/evals/runs`)).body.runs[0].id;
    const caseId = (await restClient(t.app, keyA).get(`/api/kbs/${kbA}/evals/cases`)).body.cases[0].id;
    const gql = graphqlClient(t.app, keyB);
    for (const [query, variables] of [
      [`query($kbId: ID!) { evalCases(kbId: $kbId) { id } }`, { kbId: kbA }],
      [`query($kbId: ID!) { evalRuns(kbId: $kbId) { id } }`, { kbId: kbA }],
      [`query($kbId: ID!, $id: ID!) { evalRun(kbId: $kbId, id: $id) { id } }`, { kbId: kbB, id: runId }],
      [`query($kbId: ID!) { evalExport(kbId: $kbId) }`, { kbId: kbA }],
      [`mutation($kbId: ID!) { startEvalRun(kbId: $kbId) { id } }`, { kbId: kbA }],
      [`mutation($kbId: ID!, $id: ID!) { deleteEvalCase(kbId: $kbId, id: $id) { success } }`, { kbId: kbB, id: caseId }],
    ] as const) {
      const res = await gql(query, variables);
      expect(res.body.errors?.[0]?.extensions?.code, query).toBe('NOT_FOUND');
    }
    const trpc = trpcClient(t.app, keyB);
    for (const res of [
      await trpc.query('evals.cases', { kb_id: kbA }),
      await trpc.query('evals.run', { kb_id: kbB, id: runId }),
      await trpc.mutation('evals.startRun', { kb_id: kbA }),
      await trpc.mutation('evals.updateCase', { kb_id: kbB, id: caseId, question: 'x' }),
      await trpc.query('evals.compare', { kb_id: kbA, run_id: runId, base_id: runId }),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error.data.app_code).toBe('not_found');
    }
  });
});
