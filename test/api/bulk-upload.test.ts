/**
 * Bulk upload: several files in one request and ZIPs of documents, through REST, GraphQL and tRPC.
 * Each file is accepted or refused on its own with a reason; one file keeps the `{document}` answer;
 * ZIPs are unpacked within their limits; the rate limit counts requests, not files.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { pdfWithPages } from '../ingest/pdf-fixture';

const DOCS = path.resolve(import.meta.dirname, '../../../shared/data/docs');
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6300010000050001', 'hex');

let t: TestApp;
let small: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  small = await createTestApp({ env: { MAX_UPLOAD_BYTES: '20000', ZIP_MAX_INFLATED_BYTES: '60000', ZIP_MAX_ENTRIES: '6', RATE_LIMIT_PER_MINUTE: '3' } });
});
afterAll(async () => {
  await t?.close();
  await small?.close();
});

type Part = { name: string; bytes: Uint8Array | string };

async function upload(app: TestApp, key: string, kbId: string, parts: Part[], url = '/api/ingest/upload', extra: (f: FormData) => void = () => {}) {
  const form = new FormData();
  for (const p of parts) form.append('file', new Blob([p.bytes as BlobPart]), p.name);
  form.set('kb_id', kbId);
  extra(form);
  const res = await app.app.fetch(new Request(`http://groundwork.test${url}`, { method: 'POST', headers: { 'x-api-key': key }, body: form }));
  return { status: res.status, body: (await res.json()) as any };
}

async function newKb(app: TestApp, plan: 'free' | 'pro' = 'pro') {
  const { api_key } = await createOrgWithKey(app.deps, { plan });
  const kbId: string = (await restClient(app.app, api_key).post('/api/kbs', { name: 'Bulk' })).body.kb.id;
  return { key: api_key, kbId };
}

const byName = (files: any[]) => Object.fromEntries(files.map((f) => [f.filename, f]));

describe('bulk upload answers at once (issue 26)', () => {
  it('answers a 5,000-file ZIP within seconds, acknowledging every entry the archive limit allows', async () => {
    // Its own app: the entries it queues are not the other tests' jobs.
    const t = await createTestApp();
    onTestFinished(() => t.close());
    const { key, kbId } = await newKb(t);
    const entries = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`notes/n${i}.txt`, new TextEncoder().encode(`note ${i}`)]));
    const started = Date.now();
    const res = await upload(t, key, kbId, [{ name: 'many.zip', bytes: zipSync(entries) }]);
    const took = Date.now() - started;
    expect(res.status).toBe(202);
    expect(res.body.files).toHaveLength(5000);
    const accepted = res.body.files.filter((f: any) => f.status === 'accepted');
    expect(accepted.length).toBeGreaterThan(0);
    expect(accepted.map((f: any) => f.document_id)).toEqual(res.body.documents.map((d: any) => d.id));
    // The archive's entry limit (1,000) refuses the rest by name; none of the 1,000 is left out (was 90).
    expect(res.body.files.filter((f: any) => f.status === 'accepted' || f.status === 'queued')).toHaveLength(1000);
    const refused = res.body.files.filter((f: any) => f.status === 'refused');
    expect(refused).toHaveLength(4000);
    for (const f of refused) expect(f.error.message).toMatch(/1,?000/);
    expect(took).toBeLessThan(30_000); // 3 s budget; a wide margin for a loaded machine (was 276 s)
    const staged = await t.db.selectFrom('upload_staged_files').select((eb) => eb.fn.countAll<string>().as('n')).where('batch_id', '=', res.body.batch_id).executeTakeFirstOrThrow();
    expect(Number(staged.n)).toBe(1000 - accepted.length);
  }, 120_000);

  it('stores what its time budget leaves over and makes the documents in the background', async () => {
    const quick = await createTestApp({ env: { BULK_UPLOAD_BUDGET_MS: '100' } });
    try {
      const { key, kbId } = await newKb(quick);
      const parts = Array.from({ length: 80 }, (_, i) => ({ name: `f${i}.txt`, bytes: `file ${i}` }));
      const res = await upload(quick, key, kbId, parts);
      expect(res.status).toBe(202);
      expect(res.body.files).toHaveLength(80);
      const queued = res.body.files.filter((f: any) => f.status === 'queued');
      expect(queued.length).toBeGreaterThan(0);
      expect(queued.every((f: any) => f.error === null && f.document_id === null)).toBe(true);
      expect(res.body.documents.length + queued.length).toBe(80);
      const api = restClient(quick.app, key);
      const before = (await api.get(`/api/kbs/${kbId}/batches/${res.body.batch_id}`)).body.batch;
      expect(before).toMatchObject({ status: 'processing', counts: { processing: 80 } });

      await runQueuedJobs(quick);
      const after = (await api.get(`/api/kbs/${kbId}/batches/${res.body.batch_id}`)).body.batch;
      expect(after.files.map((f: any) => f.status)).toEqual(Array(80).fill('accepted'));
      expect(after.files.map((f: any) => f.filename)).toEqual(parts.map((p) => p.name));
      expect(after).toMatchObject({ status: 'done', percent: 100, counts: { processing: 0, ready: 80, failed: 0 } });
      expect(new Set(after.documents.map((d: any) => d.id))).toEqual(new Set(after.files.map((f: any) => f.document_id)));
    } finally {
      await quick.close();
    }
  }, 120_000);

  it('answers a queued file the KB already has as that document once the background reaches it', async () => {
    const quick = await createTestApp({ env: { BULK_UPLOAD_BUDGET_MS: '100' } });
    try {
      const { key, kbId } = await newKb(quick);
      const parts = Array.from({ length: 40 }, (_, i) => ({ name: `f${i}.txt`, bytes: `file ${i}` }));
      const res = await upload(quick, key, kbId, [...parts, { name: 'copy-of-f0.txt', bytes: 'file 0' }]);
      expect(res.status).toBe(202);
      expect(res.body.files.at(-1).status).toBe('queued');

      await runQueuedJobs(quick);
      const after = (await restClient(quick.app, key).get(`/api/kbs/${kbId}/batches/${res.body.batch_id}`)).body.batch;
      expect(after.files.map((f: any) => f.status)).toEqual([...Array(40).fill('accepted'), 'duplicate']);
      expect(after.files.at(-1)).toMatchObject({ filename: 'copy-of-f0.txt', document_id: after.files[0].document_id, error: null });
      const listed = (await restClient(quick.app, key).get(`/api/kbs/${kbId}/documents?limit=100`)).body;
      expect(listed.documents).toHaveLength(40);
    } finally {
      await quick.close();
    }
  }, 120_000);

  it('accepts a folder of 20 PDFs whole, keeping the Free plan at exactly 50 documents', async () => {
    const quick = await createTestApp({ env: { BULK_UPLOAD_BUDGET_MS: '100' } });
    try {
      const pdfs = Array.from({ length: 20 }, (_, i) => ({
        name: `report-${i}.pdf`,
        bytes: pdfWithPages([[{ text: `Quarterly report ${i}`, y: 720, size: 18 }, { text: `The depot ${i} shipped ${i * 7} pallets this quarter.`, y: 680 }]]),
      }));
      const pro = await newKb(quick);
      const res = await upload(quick, pro.key, pro.kbId, pdfs);
      expect(res.status).toBe(202);
      expect(res.body.files.every((f: any) => f.status === 'accepted' || f.status === 'queued')).toBe(true);
      await runQueuedJobs(quick);
      const batch = (await restClient(quick.app, pro.key).get(`/api/kbs/${pro.kbId}/batches/${res.body.batch_id}`)).body.batch;
      expect(batch).toMatchObject({ status: 'done', counts: { ready: 20, failed: 0, processing: 0 } });

      // Free, 45 documents already: 5 fit, the other 15 are refused at once with the plan's reason.
      const free = await newKb(quick, 'free');
      for (let i = 0; i < 45; i++) expect((await upload(quick, free.key, free.kbId, [{ name: `f${i}.txt`, bytes: `file ${i}` }])).status).toBe(202);
      const full = await upload(quick, free.key, free.kbId, pdfs);
      expect(full.status).toBe(202);
      const statuses = full.body.files.map((f: any) => f.status);
      expect(statuses.filter((s: string) => s === 'accepted' || s === 'queued')).toHaveLength(5);
      const overPlan = full.body.files.filter((f: any) => f.status === 'refused');
      expect(overPlan).toHaveLength(15);
      expect(overPlan.every((f: any) => f.error.code === 'plan_limit_exceeded' && /free plan allows 50 documents/.test(f.error.message))).toBe(true);
      await runQueuedJobs(quick);
      expect((await restClient(quick.app, free.key).get(`/api/kbs/${free.kbId}/documents?limit=100`)).body.documents).toHaveLength(50);
    } finally {
      await quick.close();
    }
  }, 180_000);

  it("counts its time budget from the request's arrival, so a body that took the budget to arrive creates one file and queues the rest", async () => {
    const quick = await createTestApp({ env: { BULK_UPLOAD_BUDGET_MS: '400' } });
    try {
      const { key, kbId } = await newKb(quick);
      const form = new FormData();
      for (let i = 0; i < 5; i++) form.append('file', new Blob([`file ${i}`]), `f${i}.txt`);
      form.set('kb_id', kbId);
      const encoded = new Response(form);
      const bytes = new Uint8Array(await encoded.arrayBuffer());
      // A slow client: half the body when the server starts reading it (after authentication), the
      // rest well after the whole budget.
      const half = Math.floor(bytes.length / 2);
      let pulls = 0;
      const body = new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            pulls++;
            if (pulls === 1) return controller.enqueue(bytes.subarray(0, half));
            await new Promise((r) => setTimeout(r, 1_500));
            controller.enqueue(bytes.subarray(half));
            controller.close();
          },
        },
        { highWaterMark: 0 },
      );
      const res = await quick.app.fetch(
        new Request('http://groundwork.test/api/ingest/upload', {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': encoded.headers.get('content-type')! },
          body,
          duplex: 'half',
        } as RequestInit),
      );
      expect(res.status).toBe(202);
      const answer = (await res.json()) as any;
      // At least one file is always created; the other four are stored for the background.
      expect(answer.documents).toHaveLength(1);
      expect(answer.files.filter((f: any) => f.status === 'queued')).toHaveLength(4);
    } finally {
      await quick.close();
    }
  });

  it('stores the ZIP entries its time budget leaves over, within the archive limits', async () => {
    const quick = await createTestApp({ env: { BULK_UPLOAD_BUDGET_MS: '100' } });
    try {
      const { key, kbId } = await newKb(quick);
      // Words that do not repeat, so no entry looks like a ZIP bomb (which is refused, not stored).
      const words = (i: number) => Array.from({ length: 20_000 }, (_, j) => ((i * 20_000 + j) * 2654435761 % 4294967296).toString(36)).join(' ');
      const entries = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`part-${i}.txt`, new TextEncoder().encode(words(i))]));
      const res = await upload(quick, key, kbId, [{ name: 'parts.zip', bytes: zipSync(entries, { level: 1 }) }]);
      expect(res.status).toBe(202);
      expect(res.body.files).toHaveLength(60);
      const left = res.body.files.filter((f: any) => f.status === 'queued');
      expect(left.length).toBeGreaterThan(0);
      expect(left.every((f: any) => f.filename.startsWith('part-'))).toBe(true);
      expect(res.body.documents.length + left.length).toBe(60);
    } finally {
      await quick.close();
    }
  }, 120_000);
});

describe('bulk upload (REST)', () => {
  it('accepts several files in one request and reports each, refusing the bad one with its reason', async () => {
    const { key, kbId } = await newKb(t);
    const res = await upload(t, key, kbId, [
      { name: 'paper.pdf', bytes: readFileSync(path.join(DOCS, 'layout-parser-paper-with-table.pdf')) },
      { name: 'notes.md', bytes: '# Notes\n\nThe depot opens at 6 am.' },
      { name: 'photo.png', bytes: PNG },
      { name: 'empty.txt', bytes: '' },
    ]);
    expect(res.status).toBe(202);
    expect(Object.keys(res.body).sort()).toEqual(['batch_id', 'documents', 'files']);
    expect(res.body.documents.map((d: any) => d.filename)).toEqual(['paper.pdf', 'notes.md']);
    const files = byName(res.body.files);
    expect(files['paper.pdf']).toMatchObject({ status: 'accepted', document_id: res.body.documents[0].id, error: null });
    expect(files['photo.png']).toMatchObject({ status: 'refused', document_id: null, error: { code: 'unsupported_media_type', message: expect.stringMatching(/PNG image/) } });
    expect(files['empty.txt']).toMatchObject({ status: 'refused', error: { code: 'invalid_input', message: 'The file is empty' } });
    await runQueuedJobs(t);
    const docs = (await restClient(t.app, key).get(`/api/kbs/${kbId}/documents`)).body.documents;
    expect(docs.map((d: any) => d.status)).toEqual(['ready', 'ready']);
  });

  it('keeps the single-file answer exactly as it was', async () => {
    const { key, kbId } = await newKb(t);
    const res = await upload(t, key, kbId, [{ name: 'one.md', bytes: '# One' }]);
    expect(res.status).toBe(202);
    expect(Object.keys(res.body)).toEqual(['document']);
    const refused = await upload(t, key, kbId, [{ name: 'photo.png', bytes: PNG }]);
    expect(refused.status).toBe(415);
    expect(refused.body.error.code).toBe('unsupported_media_type');
  });

  it('answers 400 with every reason when no file at all is accepted', async () => {
    const { key, kbId } = await newKb(t);
    const res = await upload(t, key, kbId, [{ name: 'a.png', bytes: PNG }, { name: 'b.png', bytes: PNG }]);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_input');
    expect(res.body.error.message).toMatch(/None of the 2 files.*details\.files/);
    // The message's promise is kept: each file with its own reason.
    expect(res.body.error.details.files).toEqual([
      { filename: 'a.png', status: 'refused', document_id: null, error: { code: 'unsupported_media_type', message: expect.stringMatching(/PNG|image/i) } },
      { filename: 'b.png', status: 'refused', document_id: null, error: { code: 'unsupported_media_type', message: expect.stringMatching(/PNG|image/i) } },
    ]);
    const trpc = await upload(t, key, kbId, [{ name: 'a.png', bytes: PNG }], '/trpc/documents.uploadMany', (f) => f.append('file', new Blob([PNG]), 'b.png'));
    expect(trpc.body.error.data.details.files.map((f: any) => f.error.code)).toEqual(['unsupported_media_type', 'unsupported_media_type']);
  });

  it('applies the plan limit per file', async () => {
    const { key, kbId } = await newKb(t, 'free');
    const api = restClient(t.app, key);
    for (let i = 0; i < 48; i++) expect((await upload(t, key, kbId, [{ name: `f${i}.txt`, bytes: `file ${i}` }])).status).toBe(202);
    const res = await upload(t, key, kbId, ['a', 'b', 'c', 'd'].map((n) => ({ name: `${n}.txt`, bytes: `text ${n}` })));
    expect(res.status).toBe(202);
    expect(res.body.files.map((f: any) => f.status)).toEqual(['accepted', 'accepted', 'refused', 'refused']);
    expect(res.body.files[2].error).toMatchObject({ code: 'plan_limit_exceeded', message: expect.stringMatching(/free plan allows 50 documents/) });
    expect((await api.get(`/api/kbs/${kbId}/documents`)).body.documents).toHaveLength(50);
  });

  it('unpacks a ZIP safely: skips system files, refuses traversal, nested archives and oversized entries, bounds what it inflates', async () => {
    const { key, kbId } = await newKb(small);
    const zeros = new Uint8Array(19_000).fill(0x61); // compresses to almost nothing
    const archive = zipSync({
      'docs/guide.md': new TextEncoder().encode('# Guide\n\nShift changes happen at noon.'),
      'docs/faq.txt': new TextEncoder().encode('Q: Where is the depot?\nA: Next to the station.'),
      '__MACOSX/docs/._guide.md': new Uint8Array([0, 5, 22, 7]),
      'docs/.DS_Store': new Uint8Array([0, 0, 0, 1]),
      '../../etc/evil.txt': new TextEncoder().encode('escape'),
      'inner.zip': zipSync({ 'x.txt': new TextEncoder().encode('nested') }),
      'huge.txt': new Uint8Array(50_000).fill(0x62),
      'pad1.txt': zeros,
      'pad2.txt': zeros,
      'pad3.txt': zeros,
    });
    const res = await upload(small, key, kbId, [{ name: 'folder.zip', bytes: archive }]);
    expect(res.status).toBe(202);
    const files = byName(res.body.files);
    expect(files['docs/guide.md']).toMatchObject({ status: 'accepted' });
    expect(files['docs/faq.txt']).toMatchObject({ status: 'accepted' });
    expect(files['__MACOSX/docs/._guide.md']).toMatchObject({ status: 'skipped' });
    expect(files['docs/.DS_Store']).toMatchObject({ status: 'skipped', error: { message: 'Hidden or system file' } });
    expect(files['../../etc/evil.txt']).toMatchObject({ status: 'refused', error: { code: 'invalid_input', message: /outside the archive/ } });
    expect(files['inner.zip']).toMatchObject({ status: 'refused', error: { code: 'unsupported_media_type', message: /Archives inside/ } });
    expect(files['huge.txt']).toMatchObject({ status: 'refused', error: { code: 'payload_too_large', message: /upload limit/ } });
    // 60,000 inflated bytes in all: the pads that would pass it are refused, measured, not trusted.
    const pads = ['pad1.txt', 'pad2.txt', 'pad3.txt'].map((n) => files[n].status);
    expect(pads).toContain('refused');
    expect(res.body.files.filter((f: any) => f.status === 'refused' && /inflates to more than/.test(f.error.message)).length).toBeGreaterThan(0);
    expect(res.body.documents.map((d: any) => d.filename)).toEqual(expect.arrayContaining(['docs/guide.md', 'docs/faq.txt']));
    // The rate limit (3 a minute here: the KB, the ZIP, the next) counted each request once, whatever it held.
    expect((await upload(small, key, kbId, [{ name: 'a.txt', bytes: 'a' }, { name: 'b.txt', bytes: 'b' }])).status).toBe(202);
    expect((await upload(small, key, kbId, [{ name: 'c.txt', bytes: 'c' }])).status).toBe(429);
  });

  it('refuses a damaged ZIP and a file over the limit in a multi-file request with a reason each', async () => {
    const { key, kbId } = await newKb(t);
    const cut = zipSync({ 'a.txt': new TextEncoder().encode('hello '.repeat(100)) });
    const big = await createTestApp({ env: { MAX_UPLOAD_BYTES: '1000' } });
    try {
      const { key: k2, kbId: kb2 } = await newKb(big);
      const res = await upload(big, k2, kb2, [{ name: 'ok.txt', bytes: 'fine' }, { name: 'big.txt', bytes: 'x'.repeat(5000) }]);
      expect(res.status).toBe(202);
      expect(byName(res.body.files)['big.txt']).toMatchObject({ status: 'refused', error: { code: 'payload_too_large' } });
    } finally {
      await big.close();
    }
    const res = await upload(t, key, kbId, [{ name: 'ok.txt', bytes: 'fine' }, { name: 'cut.zip', bytes: cut.subarray(0, 40) }]);
    expect(res.status).toBe(202);
    expect(byName(res.body.files)['cut.zip']).toMatchObject({ status: 'refused', error: { code: expect.stringMatching(/invalid_input|unsupported_media_type/) } });
  });
});

describe('bulk upload parity', () => {
  it('GraphQL uploadDocuments and tRPC documents.uploadMany answer like REST', async () => {
    const { key, kbId } = await newKb(t);
    const parts: Part[] = [{ name: 'a.md', bytes: '# A\n\ntext a' }, { name: 'b.png', bytes: PNG }];
    const rest = await upload(t, key, kbId, parts);
    // Each transport into a KB of its own: the same bytes again in one KB are a duplicate (duplicate-uploads.test.ts).
    const gqlKb = (await restClient(t.app, key).post('/api/kbs', { name: 'GraphQL' })).body.kb.id as string;
    const trpcKb = (await restClient(t.app, key).post('/api/kbs', { name: 'tRPC' })).body.kb.id as string;

    const form = new FormData();
    form.set('operations', JSON.stringify({
      query: 'mutation($kbId: ID!, $files: [File!]!) { uploadDocuments(kbId: $kbId, files: $files) { documents { filename status stage } files { filename status documentId error { code message } } } }',
      variables: { kbId: gqlKb, files: [null, null] },
    }));
    form.set('map', JSON.stringify({ 0: ['variables.files.0'], 1: ['variables.files.1'] }));
    parts.forEach((p, i) => form.set(String(i), new Blob([p.bytes as BlobPart]), p.name));
    const gqlRes = await t.app.fetch(new Request('http://groundwork.test/graphql', { method: 'POST', headers: { 'x-api-key': key }, body: form }));
    const gql = ((await gqlRes.json()) as any).data.uploadDocuments;

    const trpc = (await upload(t, key, trpcKb, parts, '/trpc/documents.uploadMany')).body.result.data;

    const shape = (files: any[]) => files.map((f) => ({ filename: f.filename, status: f.status, code: f.error?.code ?? null }));
    expect(shape(rest.body.files)).toEqual([{ filename: 'a.md', status: 'accepted', code: null }, { filename: 'b.png', status: 'refused', code: 'unsupported_media_type' }]);
    expect(shape(gql.files)).toEqual(shape(rest.body.files));
    expect(shape(trpc.files)).toEqual(shape(rest.body.files));
    expect(gql.documents).toEqual([{ filename: 'a.md', status: 'processing', stage: null }]);
    expect(trpc.documents.map((d: any) => d.filename)).toEqual(['a.md']);
  });
});

describe('README bulk section', () => {
  it('loads a folder with the curl loop and with the ZIP, exactly as printed', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const { mkdtempSync, mkdirSync, writeFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { serveApp } = await import('../helpers/browser');
    const readme = readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');
    const block = /To load a folder:\n\n```bash\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeTruthy();
    const { key, kbId } = await newKb(t);
    const served = await serveApp(t.app);
    const dir = mkdtempSync(path.join(tmpdir(), 'gw-readme-bulk-'));
    try {
      mkdirSync(path.join(dir, 'handbook'));
      writeFileSync(path.join(dir, 'handbook', 'leave.md'), '# Leave\n\nTwenty days a year.');
      writeFileSync(path.join(dir, 'handbook', 'hours.txt'), 'The office opens at 8.');
      const script = `set -euo pipefail\n${block!.replaceAll('kb_…', kbId)}`;
      // Asynchronously: the server answering curl lives in this process.
      const { stdout: out } = await promisify(execFile)('bash', ['-c', script], { cwd: dir, env: { ...process.env, GW: served.url, KEY: key }, encoding: 'utf8' });
      // curl prints each answer without a newline after it.
      const answers = out.trim().replace(/\}\s*\{"documents"/g, '}\n{"documents"').split('\n').map((l) => JSON.parse(l));
      expect(answers).toHaveLength(2);
      const statuses = answers.map((a) => a.files.map((f: any) => `${f.filename}:${f.status}`).sort());
      expect(statuses[0]).toEqual(['hours.txt:accepted', 'leave.md:accepted']);
      // The ZIP holds the same files, which the KB now has: reported, not stored twice.
      expect(statuses[1]).toEqual(['hours.txt:duplicate', 'leave.md:duplicate']);
    } finally {
      await served.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
