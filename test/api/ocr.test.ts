/**
 * Scanned PDFs read by OCR, offline (tesseract.js with the model from @tesseract.js-data/eng, pages
 * rendered by pdf.js on @napi-rs/canvas): the four image-only PDFs of the shared corpus ingest to
 * ready with their text, page numbers kept and the OCR'd pages recorded; the page bound holds.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentId } from '../../src/ids';
import { stopOcr } from '../../src/ingest/ocr';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';

const DOCS = path.resolve(import.meta.dirname, '../../../shared/data/docs');
const SCANS: Array<[file: string, expected: RegExp]> = [
  ['scan-bad.pdf', /pdf\.js/i],
  ['loremipsum-flat.pdf', /Lorem ipsum dolor sit amet/],
  ['single_table.pdf', /Base 128/],
  ['table-multi-row-column-cells.pdf', /[A-Za-z]{4,}/],
];

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await stopOcr();
  await t?.close();
});

async function newKb(app: TestApp) {
  const { api_key } = await createOrgWithKey(app.deps, { plan: 'pro' });
  const api = restClient(app.app, api_key);
  return { api, key: api_key, kbId: (await api.post('/api/kbs', { name: 'Scans' })).body.kb.id as string };
}

describe('OCR', () => {
  it('ingests the four scanned PDFs of the shared corpus to ready with their text, marked as OCR', async () => {
    const { api, key, kbId } = await newKb(t);
    const ids: string[] = [];
    for (const [file] of SCANS) {
      const res = await uploadFile(t.app, key, kbId, { name: file, bytes: readFileSync(path.join(DOCS, file)) });
      expect(res.status).toBe(202);
      ids.push(res.body.document.id);
    }
    await runQueuedJobs(t);
    for (const [i, [file, expected]] of SCANS.entries()) {
      const d = (await api.get(`/api/kbs/${kbId}/documents/${ids[i]}`)).body.document;
      expect(d, file).toMatchObject({ status: 'ready', error: null, pages: 1, ocr_pages: [1], stage: null, progress: null });
      const chunks = await t.db.selectFrom('chunks').select(['text', 'page']).where('document_id', '=', ids[i] as DocumentId).execute();
      expect(chunks.length, file).toBeGreaterThan(0);
      expect(chunks.every((c) => c.page === 1), file).toBe(true);
      expect(chunks.map((c) => c.text).join(' '), file).toMatch(expected);
    }
    // scan-bad.pdf reads "| pdf.js" with high confidence but no word-shaped text: kept, with a
    // warning, not dropped as unreadable (that needs both to be low); the prose page is sure.
    const warningsOf = async (i: number) => (await api.get(`/api/kbs/${kbId}/documents/${ids[i]}`)).body.document.warnings;
    expect(await warningsOf(0)).toEqual([{ code: 'ocr_unsure', pages: [1], message: expect.stringMatching(/OCR was unsure of page 1 \(confidence down to \d+%/) }]);
    expect(await warningsOf(1)).toEqual([]);
    // Digital PDFs are not OCR'd.
    const digital = await uploadFile(t.app, key, kbId, { name: 'paper.pdf', bytes: readFileSync(path.join(DOCS, 'layout-parser-paper-with-empty-pages.pdf')) });
    await runQueuedJobs(t);
    expect((await api.get(`/api/kbs/${kbId}/documents/${digital.body.document.id}`)).body.document).toMatchObject({ status: 'ready', ocr_pages: [] });
  }, 300_000);

  it('names the bound when OCR is turned off', async () => {
    const off = await createTestApp({ env: { OCR_MAX_PAGES: '0' } });
    try {
      const { api, key, kbId } = await newKb(off);
      const res = await uploadFile(off.app, key, kbId, { name: 'scan.pdf', bytes: readFileSync(path.join(DOCS, 'scan-bad.pdf')) });
      await runQueuedJobs(off);
      const d = (await api.get(`/api/kbs/${kbId}/documents/${res.body.document.id}`)).body.document;
      expect(d.status).toBe('failed');
      expect(d.error).toBe('The PDF has no extractable text (scanned document?). OCR is turned off (OCR_MAX_PAGES=0).');
    } finally {
      await off.close();
    }
  });
});
