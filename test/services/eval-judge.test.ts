/**
 * The optional judge (with OPENAI_API_KEY) against the local OpenAI fake: it grades answers through
 * the AI SDK registry's model; a failed request (429 after its retry, 400) or a reply that is no
 * verdict marks that case `judge: error` and the run still completes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JUDGE_TASK_MARKER } from '../../src/ai/judge';
import { createContext } from '../../src/context';
import type { OrgId } from '../../src/ids';
import { importEvalCases } from '../../src/services/evals/import-eval-cases';
import { getEvalRun } from '../../src/services/evals/list-eval-runs';
import { startEvalRun } from '../../src/services/evals/start-eval-run';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';

const DOC = `# Zephyr-9\n\nThe Zephyr-9 can fly for 47 minutes on one charge.\n\nThe Zephyr-9 weighs 1,250 grams.\n\nThe Zephyr-9 has a range of 8 kilometres.\n\nThe Zephyr-9 is sold in grey.`;

let fake: FakeOpenAI;
let t: TestApp;

beforeAll(async () => {
  fake = await startFakeOpenAI({
    reply: (req) => {
      const system = req.messages.find((m) => m.role === 'system')?.content ?? '';
      if (system.startsWith(JUDGE_TASK_MARKER)) {
        if (req.lastUserText.includes('colour')) return 'Maybe, hard to say.';
        return req.lastUserText.includes('three quarters of an hour') ? 'PASS: 47 minutes is about three quarters of an hour.' : 'FAIL: it differs.';
      }
      const q = req.lastUserText;
      if (q.includes('fly')) return 'It flies for 47 minutes on one charge [1].';
      if (q.includes('weigh')) return 'It weighs 1,250 grams [1].';
      if (q.includes('range')) return 'Its range is 8 kilometres [1].';
      if (q.includes('colour')) return 'It is sold in grey [1].';
      return "I couldn't find this in the knowledge base.";
    },
    fail: (req) => {
      const system = req.messages.find((m) => m.role === 'system')?.content ?? '';
      if (!system.startsWith(JUDGE_TASK_MARKER)) return undefined;
      if (req.lastUserText.includes('weigh')) return { status: 429, retryAfterMs: 5 };
      if (req.lastUserText.includes('range')) return { status: 400 };
      return undefined;
    },
  });
  t = await createTestApp({ env: { OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: fake.url, OPENAI_MODEL: 'gpt-test' } });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

describe('eval judge', () => {
  it('grades answers, and a judge failure marks only its case', async () => {
    const { api_key, org } = await createOrgWithKey(t.deps);
    const api = restClient(t.app, api_key);
    const kbId: string = (await api.post('/api/kbs', { name: 'Drones' })).body.kb.id;
    expect((await uploadFile(t.app, api_key, kbId, { name: 'zephyr.md', bytes: DOC })).status).toBe(202);
    await runQueuedJobs(t);
    const ctx = createContext(t.deps, await t.db.selectFrom('organizations').selectAll().where('id', '=', org.id as OrgId).executeTakeFirstOrThrow(), { requestId: 'judge' });
    const cases = [
      { question: 'How long can the Zephyr-9 fly?', answer: 'three quarters of an hour' },
      { question: 'How much does the Zephyr-9 weigh?', answer: '1250 grams' },
      { question: 'What is the range of the Zephyr-9?', answer: '8 kilometres' },
      { question: 'Which colour is the Zephyr-9 sold in?', answer: 'grey' },
    ];
    await importEvalCases(ctx, { kb_id: kbId, content: cases.map((c) => JSON.stringify(c)).join('\n') });
    const { run: queued } = await startEvalRun(ctx, { kb_id: kbId });
    expect(queued.settings).toMatchObject({ judge: true, answer_model: 'gpt-test' });
    await runQueuedJobs(t);
    const { run, results } = await getEvalRun(ctx, { kb_id: kbId, id: queued.id });
    expect(run.status).toBe('completed');
    expect(results.map((r) => [r.answer_contains, r.judge])).toEqual([
      [false, 'pass'],
      [true, 'error'],
      [true, 'error'],
      [true, 'error'],
    ]);
    expect(results[0]!.judge_note).toContain('three quarters');
    expect(results[3]!.judge_note).toContain('neither PASS nor FAIL');
    expect(run.summary).toMatchObject({ judge_pass: 1, answer_contains: 0.75, errors: 0 });
    const judged = fake.requests.filter((r) => r.messages[0]?.content.startsWith(JUDGE_TASK_MARKER));
    // The 429 is retried once; the 400 is not.
    expect(judged.filter((r) => r.lastUserText.includes('weigh'))).toHaveLength(2);
    expect(judged.filter((r) => r.lastUserText.includes('range'))).toHaveLength(1);
  });
});
