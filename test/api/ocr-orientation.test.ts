/**
 * OCR that is unsure says so (issue 44: a rotated scan came back as one chunk of
 * "2 = 3 iB g 5 ZN E TE z 5 pos £" under a green badge). Scans are made here: text rendered onto a
 * @napi-rs/canvas, turned, and embedded as the JPEG image of an image-only PDF; a page of noise too.
 * A rotated scan is read in its right orientation; a page OCR cannot read is left out with a
 * warning on the document; a document with nothing readable fails with a clear reason.
 */
import { createCanvas } from '@napi-rs/canvas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopOcr } from '../../src/ingest/ocr';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';

const LINES = [
  'The Riverside depot opens at seven in the morning.',
  'Deliveries arrive on Tuesdays and Fridays before noon.',
  'Forklift drivers must wear a helmet and a safety vest.',
  'Report every damaged pallet to the shift manager at once.',
];

/** A page of text at 150 dpi (A4), turned clockwise by `degrees`, as a JPEG. */
function scanJpeg(degrees: 0 | 90 | 180 | 270): { jpeg: Buffer; width: number; height: number } {
  const page = createCanvas(1240, 1754);
  const ctx = page.getContext('2d');
  ctx.fillStyle = 'white';
  ctx.fillRect(0, 0, page.width, page.height);
  ctx.fillStyle = 'black';
  ctx.font = '34px "Liberation Sans"';
  LINES.forEach((line, i) => ctx.fillText(line, 90, 200 + i * 70));
  const sideways = degrees % 180 !== 0;
  const turned = createCanvas(sideways ? page.height : page.width, sideways ? page.width : page.height);
  const t = turned.getContext('2d');
  t.translate(turned.width / 2, turned.height / 2);
  t.rotate((degrees * Math.PI) / 180);
  t.drawImage(page, -page.width / 2, -page.height / 2);
  return { jpeg: turned.toBuffer('image/jpeg', 90), width: turned.width, height: turned.height };
}

/** A page of random grey pixels: nothing to read. */
function noiseJpeg(): { jpeg: Buffer; width: number; height: number } {
  const c = createCanvas(240, 320);
  const ctx = c.getContext('2d');
  const img = ctx.createImageData(c.width, c.height);
  let seed = 7;
  for (let i = 0; i < img.data.length; i += 4) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const v = seed % 256;
    img.data[i] = img.data[i + 1] = img.data[i + 2] = v;
    img.data[i + 3] = 255;
  }
  ctx.putImageData(img, 0, 0);
  return { jpeg: c.toBuffer('image/jpeg', 90), width: c.width, height: c.height };
}

/** An image-only PDF: each page one JPEG (DCTDecode) scaled to the page, as a scanner writes it. */
function imagePdf(images: Array<{ jpeg: Buffer; width: number; height: number }>): Buffer {
  const objects: Buffer[] = [];
  const pageIds = images.map((_, i) => 3 + i * 3);
  objects.push(Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'));
  objects.push(Buffer.from(`<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${images.length} >>`));
  images.forEach((img, i) => {
    const [w, h] = [Math.round((img.width * 72) / 150), Math.round((img.height * 72) / 150)];
    const content = Buffer.from(`q ${w} 0 0 ${h} 0 0 cm /Im0 Do Q`);
    objects.push(Buffer.from(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${w} ${h}] /Resources << /XObject << /Im0 ${4 + i * 3} 0 R >> >> /Contents ${5 + i * 3} 0 R >>`));
    objects.push(Buffer.concat([Buffer.from(`<< /Type /XObject /Subtype /Image /Width ${img.width} /Height ${img.height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length ${img.jpeg.length} >>\nstream\n`), img.jpeg, Buffer.from('\nendstream')]));
    objects.push(Buffer.concat([Buffer.from(`<< /Length ${content.length} >>\nstream\n`), content, Buffer.from('\nendstream')]));
  });
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  const offsets: number[] = [];
  let at = parts[0]!.length;
  objects.forEach((o, i) => {
    offsets.push(at);
    const obj = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), o, Buffer.from('\nendobj\n')]);
    parts.push(obj);
    at += obj.length;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`;
  return Buffer.concat([...parts, Buffer.from(xref)]);
}

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
