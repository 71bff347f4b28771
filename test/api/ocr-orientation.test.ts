/**
 * OCR that is unsure says so (issue 44: a rotated scan came back as one chunk of
 * "2 = 3 iB g 5 ZN E TE z 5 pos £" under a green badge), on scans made by test/helpers/scan-pdf.ts.
 * A rotated scan is read in its right orientation; a page OCR cannot read is left out with a
 * warning on the document; a document with nothing readable fails with a clear reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopOcr } from '../../src/ingest/ocr';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { imagePdf, noiseJpeg, scanJpeg } from '../helpers/scan-pdf';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';

let t: TestApp;
let api: ReturnType<typeof restClient>;
let key: string;
let kbId: string;
beforeAll(async () => {
  t = await createTestApp();
  ({ api_key: key } = await createOrgWithKey(t.deps, { plan: 'pro' }));
  api = restClient(t.app, key);
  kbId = (await api.post('/api/kbs', { name: 'Scans' })).body.kb.id;
});
afterAll(async () => {
  await stopOcr();
  await t?.close();
});

async function ingest(name: string, bytes: Buffer) {
  const up = await uploadFile(t.app, key, kbId, { name, bytes });
  expect(up.status).toBe(202);
  await runQueuedJobs(t);
  const doc = (await api.get(`/api/kbs/${kbId}/documents/${up.body.document.id}`)).body.document;
  const chunks = doc.status === 'ready' ? (await api.get(`/api/kbs/${kbId}/documents/${doc.id}/chunks`)).body : null;
  return { doc, text: chunks ? JSON.stringify(chunks) : '' };
}

describe('OCR that is unsure says so', () => {
  it('reads a scan fed in sideways in its right orientation', async () => {
    const { doc, text } = await ingest('sideways.pdf', imagePdf([scanJpeg(90)]));
    expect(doc).toMatchObject({ status: 'ready', ocr_pages: [1], warnings: [] });
    expect(text).toMatch(/Riverside depot opens at seven/);
    expect(text).toMatch(/safety vest/);
  }, 180_000);

  it('leaves out a page it cannot read and marks the document with a warning', async () => {
    const { doc, text } = await ingest('mixed.pdf', imagePdf([scanJpeg(0), noiseJpeg()]));
    expect(doc.status).toBe('ready');
    expect(doc.ocr_pages).toEqual([1]);
    expect(doc.warnings).toEqual([{ code: 'ocr_unreadable', pages: [2], message: expect.stringMatching(/could not read page 2/) }]);
    expect(text).toMatch(/Deliveries arrive on Tuesdays/);
    const gql = await t.app.fetch(
      new Request('http://groundwork.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ query: `{ document(kbId: "${kbId}", id: "${doc.id}") { warnings { code pages } } }` }),
      }),
    );
    expect(((await gql.json()) as any).data.document.warnings).toEqual([{ code: 'ocr_unreadable', pages: [2] }]);
  }, 180_000);

  it('fails a document whose every page is unreadable, saying why', async () => {
    const { doc } = await ingest('noise.pdf', imagePdf([noiseJpeg()]));
    expect(doc.status).toBe('failed');
    expect(doc.error).toMatch(/OCR could not read its scanned page in any orientation.*faint, blurred or noisy/);
  }, 180_000);
});
