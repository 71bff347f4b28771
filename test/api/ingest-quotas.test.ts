/**
 * Ingestion that costs far more than it is worth is bounded before embedding (issue 26): text of
 * one character repeated is refused as having no words (a 20 MB one was 17,477 chunks and 20
 * minutes of worker time), repeats inside real text are collapsed, and an organisation past its
 * plan's chunk quota gets a failed document saying plan_limit_exceeded.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLANS } from '../../src/services/plans';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';
import { cpuMsOfAsync } from '../infra/cpu-time';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

async function orgWithKb(plan: 'free' | 'pro') {
  const created = await createOrgWithKey(t.deps, { plan });
  const kb = await restClient(t.app, created.api_key).post('/api/kbs', { name: 'KB' });
  return { key: created.api_key, orgId: created.org.id, kbId: kb.body.kb.id as string };
}

async function ingest(o: { key: string; kbId: string }, name: string, text: string) {
  const up = await uploadFile(t.app, o.key, o.kbId, { name, bytes: text, type: 'text/plain' });
  expect(up.status).toBe(202);
  await runQueuedJobs(t);
  return t.db.selectFrom('documents').select(['status', 'error', 'chunk_count']).where('id', '=', up.body.document.id).executeTakeFirstOrThrow();
}

describe('degenerate text', () => {
  it('refuses 2 MB of one character as having no words, within seconds', async () => {
    const o = await orgWithKb('pro');
    const { value: doc, cpuMs } = await cpuMsOfAsync(() => ingest(o, 'bomb.txt', 'a'.repeat(2 * 1024 * 1024)));
    expect(doc.status).toBe('failed');
    expect(doc.error).toMatch(/no words/);
    expect(doc.chunk_count).toBe(0);
    // Within seconds of work: CPU time, which a loaded machine does not inflate as it does wall time.
    expect(cpuMs).toBeLessThan(30_000);
  });

  it('collapses repeats inside real text instead of chunking them', async () => {
    const o = await orgWithKb('pro');
    const doc = await ingest(o, 'repeats.txt', `Refunds are paid within 14 days.\n\n${'ab'.repeat(500_000)}\n\n${'-'.repeat(100_000)}\n\nShipping takes three days.`);
    expect(doc.status).toBe('ready');
    expect(doc.chunk_count).toBe(1);
  });
});

describe('plan chunk quota', () => {
  it('fails a document that would take a free organisation past its chunk quota, before embedding', async () => {
    const o = await orgWithKb('free');
    // Stored passages the organisation already has, one short of the quota.
    await sql`insert into documents (id, org_id, kb_id, source, filename, content_type, size_bytes, status, error, pages, chunk_count, created_at, updated_at)
      values ('doc_quotafill', ${o.orgId}, ${o.kbId}, 'upload', 'old.txt', 'text/plain', 1, 'ready', null, null, ${PLANS.free.maxChunks - 1}, now(), now())`.execute(t.db);
    const text = Array.from({ length: 40 }, (_, i) => `Section ${i}: ${'policy details and words '.repeat(60)}${i}`).join('\n\n');
    const doc = await ingest(o, 'more.txt', text);
    expect(doc.status).toBe('failed');
    expect(doc.error).toMatch(/^plan_limit_exceeded: the free plan stores at most 5,000 passages per organisation; 4,999 are stored/);
    expect(await t.db.selectFrom('chunks').select('id').where('kb_id', '=', o.kbId as never).execute()).toHaveLength(0);
  });

  it('a pro organisation with the same stored count is far from its quota', async () => {
    const o = await orgWithKb('pro');
    const doc = await ingest(o, 'ok.md', '# Leave\n\nEmployees get 25 days of paid leave a year.');
    expect(doc.status).toBe('ready');
  });
});
