/**
 * Eval runs end to end on a real database: cases asked through the search answer path by the
 * `evals__run` job, per-case results and summary figures, resumption, comparison with the previous
 * run, the regression flag and its signed webhook (retried after a failure, against a local receiver).
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createContext, type ServiceContext } from '../../src/context';
import type { EvalRunId, OrgId } from '../../src/ids';
import { compareEvalRuns } from '../../src/services/evals/compare-eval-runs';
import { createEvalCase } from '../../src/services/evals/create-eval-case';
import { updateEvalSettings } from '../../src/services/evals/eval-settings';
import { exportEvalCases } from '../../src/services/evals/export-eval-cases';
import { importEvalCases } from '../../src/services/evals/import-eval-cases';
import { getEvalRun, listEvalRuns } from '../../src/services/evals/list-eval-runs';
import { startEvalRun } from '../../src/services/evals/start-eval-run';
import { updateEvalCase } from '../../src/services/evals/update-eval-case';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';

const ZEPHYR = `# Zephyr-9\n\nThe Zephyr-9 drone is made by Northwind Aerial.\n\nThe Zephyr-9 can fly for 47 minutes on one charge.\n\nThe Zephyr-9 weighs 1,250 grams.`;
const KETTLE = `# Kettle K2\n\nThe K2 kettle boils one litre of water in 3 minutes.\n\nThe K2 kettle switches itself off when it is empty.`;

let t: TestApp;
let ctx: ServiceContext;
let kbId: string;

beforeAll(async () => {
  t = await createTestApp({ env: { CRAWL_ALLOW_PRIVATE: 'true' } });
  const { api_key, org } = await createOrgWithKey(t.deps);
  const row = await t.db.selectFrom('organizations').selectAll().where('id', '=', org.id as OrgId).executeTakeFirstOrThrow();
  ctx = createContext(t.deps, row, { requestId: 'test' });
  const api = restClient(t.app, api_key);
  kbId = (await api.post('/api/kbs', { name: 'Products' })).body.kb.id;
  expect((await uploadFile(t.app, api_key, kbId, { name: 'zephyr.md', bytes: ZEPHYR })).status).toBe(202);
  expect((await uploadFile(t.app, api_key, kbId, { name: 'kettle.md', bytes: KETTLE })).status).toBe(202);
  await runQueuedJobs(t);
});
afterAll(() => t?.close());

const CASES = [
  { question: 'How long can the Zephyr-9 fly on one charge?', answer: '47 minutes', documents: ['zephyr.md'] },
  { question: 'How much does the Zephyr-9 weigh?', answer: '1250 grams', documents: ['zephyr'] },
  { question: 'How fast does the K2 kettle boil a litre of water?', answer: '3 minutes', documents: ['kettle.md'] },
  { question: 'What is the opening time of the Lisbon aquarium on Sundays?', answerable: false },
];

async function runAndWait(): Promise<EvalRunId> {
  const { run } = await startEvalRun(ctx, { kb_id: kbId });
  expect(run).toMatchObject({ status: 'queued', trigger: 'manual', progress: { done: 0, total: CASES.length }, settings: { top_k: 5, judge: false } });
  await runQueuedJobs(t);
  return run.id as EvalRunId;
}

describe('eval runs', () => {
  let first: EvalRunId;

  it('imports a set, exports it back, and refuses to run an empty one', async () => {
    await expect(startEvalRun(ctx, { kb_id: kbId })).rejects.toMatchObject({ code: 'invalid_input' });
    const jsonl = CASES.map((c) => JSON.stringify(c)).join('\n');
    const imported = await importEvalCases(ctx, { kb_id: kbId, format: 'jsonl', content: jsonl });
    expect(imported.imported).toBe(4);
    expect(imported.cases.map((c) => [c.question, c.source, c.answerable])).toEqual(CASES.map((c) => [c.question, 'import', c.answerable ?? true]));
    expect((await exportEvalCases(ctx, { kb_id: kbId, format: 'jsonl' })).content).toBe(`${jsonl}\n`);
    await expect(importEvalCases(ctx, { kb_id: kbId, format: 'jsonl', content: '{"question":"x"}\n{"answer":"y"}' })).rejects.toMatchObject({
      code: 'invalid_input',
      message: 'line 2: "question" is required',
    });
    expect((await exportEvalCases(ctx, { kb_id: kbId, format: 'csv' })).content.split('\r\n')).toHaveLength(CASES.length + 2);
  });

  it('asks every case through the answer path and stores results and figures', async () => {
    first = await runAndWait();
    const { run, results } = await getEvalRun(ctx, { kb_id: kbId, id: first });
    expect(run.status).toBe('completed');
    expect(run.progress).toEqual({ done: 4, total: 4 });
    expect(results).toHaveLength(4);
    const [fly, weight, kettle, aquarium] = results;
    expect(fly).toMatchObject({ doc_hit_rank: 1, answer_contains: true, refused: false, error: null });
    expect(fly!.answer).toContain('47 minutes');
    expect(fly!.passages[0]).toMatchObject({ rank: 1, document_name: 'zephyr.md' });
    expect(weight).toMatchObject({ doc_hit_rank: 1, answer_contains: true });
    expect(kettle).toMatchObject({ doc_hit_rank: 1, answer_contains: true });
    expect(aquarium).toMatchObject({ refused: true, answer_contains: null, doc_hit_rank: null });
    expect(run.summary).toMatchObject({ cases: 4, hit_at_1: 1, hit_at_k: 1, answer_contains: 1, refusal_precision: 1, refusal_recall: 1, errors: 0 });
    expect(run.summary!.latency_p95_ms).toBeGreaterThanOrEqual(run.summary!.latency_p50_ms!);
    expect(run.regression).toBeNull();
  });

  it('compares a run with the previous one case by case and flags a regression, sent signed to the webhook', async () => {
    const received: Array<{ body: string; signature: string }> = [];
    let calls = 0;
    const { settings } = await updateEvalSettings(ctx, { kb_id: kbId, webhook_url: 'http://127.0.0.1:1/placeholder' });
    const secret = settings.webhook_secret!;
    expect(secret).toMatch(/^whsec_/);
    const receiver = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        calls++;
        const signature = String(req.headers['x-groundwork-signature'] ?? '');
        const [, ts, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(signature) ?? [];
        const valid = v1 === createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex');
        // The first delivery fails, to be retried; a wrong signature would never be accepted.
        if (calls === 1 || !valid) {
          res.writeHead(503).end();
          return;
        }
        received.push({ body, signature });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/evals`;
      expect((await updateEvalSettings(ctx, { kb_id: kbId, webhook_url: url })).settings).toMatchObject({ webhook_url: url, webhook_secret: secret });

      // The set now expects the kettle answer in another document: that case gets worse.
      const kettleCase = (await exportEvalCases(ctx, { kb_id: kbId })).content;
      expect(kettleCase).toContain('kettle.md');
      const cases = (await t.db.selectFrom('eval_cases').select(['id', 'question']).where('kb_id', '=', kbId as never).execute()).find((c) => c.question.includes('K2'))!;
      await updateEvalCase(ctx, { kb_id: kbId, id: cases.id, documents: ['manual.pdf'], answer: '5 minutes' });
      const second = await runAndWait();
      const { run } = await getEvalRun(ctx, { kb_id: kbId, id: second });
      expect(run.summary).toMatchObject({ hit_at_k: 0.6667, answer_contains: 0.6667 });
      expect(run.regression).toMatchObject({ flagged: true, previous_run_id: first, threshold: 0.05, drops: { hit_at_k: [1, 0.6667], answer_contains: [1, 0.6667] } });

      const compared = await compareEvalRuns(ctx, { kb_id: kbId, run_id: second });
      expect(compared.base.id).toBe(first);
      expect(compared.counts).toEqual({ better: 0, worse: 1, same: 3, added: 0, removed: 0 });
      expect(compared.cases.find((c) => c.change === 'worse')!.case_id).toBe(cases.id);

      // The failed delivery is retried after its backoff: the test moves the job's clock, not the test's.
      expect(calls).toBe(1);
      expect((await getEvalRun(ctx, { kb_id: kbId, id: second })).run.regression!.webhook).toBe('queued');
      await sql`update graphile_worker._private_jobs set run_at = now() where task_id = (select id from graphile_worker._private_tasks where identifier = 'evals__webhook')`.execute(t.db);
      await runQueuedJobs(t);
      expect(calls).toBe(2);
      expect(received).toHaveLength(1);
      const payload = JSON.parse(received[0]!.body);
      expect(payload).toMatchObject({ type: 'eval.regression', kb: { id: kbId, name: 'Products' }, run: { id: second, regression: { flagged: true } } });
      expect((await getEvalRun(ctx, { kb_id: kbId, id: second })).run.regression!.webhook).toBe('delivered');
    } finally {
      await new Promise((r) => receiver.close(r));
    }
  });

  it('runs again after a retrieval setting changes, and resumes a run without asking a case twice', async () => {
    await updateEvalSettings(ctx, { kb_id: kbId, top_k: 3 });
    const queued = (await listEvalRuns(ctx, { kb_id: kbId })).runs[0]!;
    expect(queued).toMatchObject({ trigger: 'settings', status: 'queued', settings: { top_k: 3 } });
    // As if a worker had stopped after the first case: its result stays, the rest are asked.
    await t.db
      .insertInto('eval_results')
      .values({
        run_id: queued.id as EvalRunId,
        case_id: (await t.db.selectFrom('eval_runs').select('cases').where('id', '=', queued.id as EvalRunId).executeTakeFirstOrThrow()).cases[0]!.id as never,
        position: 0,
        question: 'kept',
        expected: JSON.stringify({ answer: null, documents: [], pages: [], answerable: true }),
        passages: '[]',
        doc_hit_rank: null,
        page_hit_rank: null,
        answer: 'kept',
        answer_contains: null,
        refused: false,
        latency_ms: 1,
        judge: null,
        judge_note: null,
        error: null,
      })
      .execute();
    await runQueuedJobs(t);
    const { run, results } = await getEvalRun(ctx, { kb_id: kbId, id: queued.id });
    expect(run.status).toBe('completed');
    expect(results.map((r) => r.question)).toEqual(['kept', CASES[1]!.question, CASES[2]!.question, CASES[3]!.question]);
    expect(results.slice(1).every((r) => r.passages.length <= 3)).toBe(true);
  });

  it('saves a Sandbox question, and a conversation turn by its message', async () => {
    const saved = await createEvalCase(ctx, { kb_id: kbId, question: '  What does the K2 kettle do when empty? ', source: 'sandbox', answerable: true });
    expect(saved.case).toMatchObject({ question: 'What does the K2 kettle do when empty?', source: 'sandbox', documents: [], answer: null });
    await expect(createEvalCase(ctx, { kb_id: kbId })).rejects.toMatchObject({ code: 'invalid_input', details: { field: 'question' } });
    await expect(createEvalCase(ctx, { kb_id: kbId, message_id: 'msg_doesnotexist' })).rejects.toMatchObject({ code: 'not_found' });
  });
});
