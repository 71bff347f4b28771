/**
 * `npm run cli -- eval run` as a CI gate, on a fixture KB in a real database: it prints the table or
 * exactly the JSON figures, passes above the thresholds and exits 1 below them, with the KB's stored
 * set or a file's cases.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { tempDirMaker } from '../helpers/temp-dirs';
import { uploadFile } from '../helpers/upload';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DOC = `# Zephyr-9\n\nThe Zephyr-9 drone is made by Northwind Aerial.\n\nThe Zephyr-9 can fly for 47 minutes on one charge.`;

let t: TestApp;
let kbId: string;
let dir: string;
const tempDir = tempDirMaker('gw-eval-cli-');

function cli(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { ...process.env, DATABASE_URL: t.database.connectionString!, LOG_LEVEL: 'warn', NODE_ENV: 'production', DATA_DIR: dir };
  return new Promise((resolve) => {
    execFile(process.execPath, ['src/app-bundle/launch.mjs', 'cli', ...args], { cwd: ROOT, env, timeout: 120_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  t = await createTestApp({ kind: 'postgres' });
  dir = tempDir();
  const { api_key } = await createOrgWithKey(t.deps);
  const api = restClient(t.app, api_key);
  kbId = (await api.post('/api/kbs', { name: 'Drones' })).body.kb.id;
  expect((await uploadFile(t.app, api_key, kbId, { name: 'zephyr.md', bytes: DOC })).status).toBe(202);
  await runQueuedJobs(t);
  await api.post(`/api/kbs/${kbId}/evals/import`, {
    content: [
      { question: 'How long can the Zephyr-9 fly on one charge?', answer: '47 minutes', documents: ['zephyr.md'] },
      { question: 'What is the boiling point of mercury?', answerable: false },
    ]
      .map((c) => JSON.stringify(c))
      .join('\n'),
  });
});
afterAll(() => t?.close());

describe('eval run', () => {
  it('passes the gate on the stored set and prints exactly the JSON figures', async () => {
    const res = await cli('eval', 'run', '--kb', kbId, '--min-hit', '0.8', '--json');
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ cases: 2, hit_at_1: 1, hit_at_k: 1, answer_contains: 1, refusal_precision: 1, refusal_recall: 1 });
    const runs = (await t.db.selectFrom('eval_runs').select(['trigger', 'status']).where('kb_id', '=', kbId as never).execute());
    expect(runs).toEqual([{ trigger: 'cli', status: 'completed' }]);
  });

  it('fails below --min-hit with a file whose cases expect another document, and prints the table', async () => {
    const file = path.join(dir, 'cases.jsonl');
    writeFileSync(
      file,
      [
        { question: 'How long can the Zephyr-9 fly on one charge?', answer: '47 minutes', documents: ['zephyr.md'] },
        { question: 'Who makes the Zephyr-9?', answer: 'Northwind Aerial', documents: ['catalogue.pdf'] },
      ]
        .map((c) => JSON.stringify(c))
        .join('\n'),
    );
    const res = await cli('eval', 'run', '--kb', kbId, '--file', file, '--min-hit', '0.8');
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('eval below threshold: hit@k 50.0% < 80.0%');
    expect(res.stdout).toMatch(/^#\s+document\s+contains\s+answer\s+latency\s+question$/m);
    expect(res.stdout).toMatch(/^2\s+miss\s+yes\s+answered\s+\d+ ms\s+Who makes the Zephyr-9\?$/m);
    expect(res.stdout).toContain('hit@5 50.0%');
    const answer = await cli('eval', 'run', '--kb', kbId, '--file', file, '--min-answer', '1', '--json');
    expect(answer.code, answer.stderr).toBe(0);
  });

  it('says what is wrong with a bad KB id or threshold', async () => {
    const missing = await cli('eval', 'run', '--kb', 'kb_doesnotexist');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('error: Knowledge base not found\n');
    const bad = await cli('eval', 'run', '--kb', kbId, '--min-hit', '80');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--min-hit must be a number from 0 to 1');
  });
});
