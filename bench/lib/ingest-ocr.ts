/**
 * OCR part of the ingestion benchmark. Accuracy: pages of digital PDFs of the shared corpus are
 * rendered and read back by the service's own OCR path (src/ingest/ocr.ts: pdf.js on @napi-rs/canvas,
 * tesseract.js), and compared with the PDF's text layer (character error rate). Speed: the time per
 * page of that path, and the four scanned PDFs of the corpus uploaded to `ready` through the server.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { extractText, getDocumentProxy } from 'unpdf';
import { ocrPdfPages, stopOcr } from '../../src/ingest/ocr';
import { characterErrorRate, wordRecall } from './cer';
import { DOCS, fileForm, newKb, seconds, startBenchServer, waitAll } from './ingest-server';

/** Single-column pages of three digital PDFs (a protocol, a game manual, an annual-report narrative). */
export const CER_PAGES: Array<{ file: string; pages: number[] }> = [
  { file: 'NCT06152367_Prot_000.pdf', pages: [2, 5] },
  { file: 'DA-619p.pdf', pages: [6, 7] },
  { file: 'reliance.pdf', pages: [2, 3] },
];

export const SCANS = ['scan-bad.pdf', 'loremipsum-flat.pdf', 'single_table.pdf', 'table-multi-row-column-cells.pdf'];

export async function ocrAccuracy(): Promise<void> {
  const warm = performance.now();
  // First call starts the tesseract worker (model load); timed apart from the pages.
  await ocrPdfPages(readFileSync(path.join(DOCS, 'reliance.pdf')), [1]);
  const startMs = performance.now() - warm;
  const rows = [];
  let edits = 0;
  let refChars = 0;
  let ocrMs = 0;
  let words = 0;
  for (const { file, pages } of CER_PAGES) {
    const bytes = readFileSync(path.join(DOCS, file));
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(bytes)), { mergePages: false });
    for (const page of pages) {
      const t0 = performance.now();
      const [read] = await ocrPdfPages(bytes, [page]);
      const ms = performance.now() - t0;
      const r = characterErrorRate(read?.text ?? '', text[page - 1] ?? '');
      const recall = wordRecall(read?.text ?? '', text[page - 1] ?? '');
      edits += r.edits;
      refChars += r.refChars;
      ocrMs += ms;
      words += recall / CER_PAGES.reduce((a, p) => a + p.pages.length, 0);
      rows.push({ file, page, 'ref chars': r.refChars, 'ocr chars': read?.text.length ?? 0, 'render+OCR s': +(ms / 1000).toFixed(1), CER: `${(r.cer * 100).toFixed(1)} %`, 'words found': `${(recall * 100).toFixed(1)} %`, confidence: read?.confidence ?? '' });
    }
  }
  await stopOcr();
  console.log('\nOCR accuracy: digital PDF pages rendered at 144 dpi and read by src/ingest/ocr.ts, text layer as reference');
  console.table(rows);
  console.log(
    `OCR: ${rows.length} pages in ${seconds(ocrMs)} -> ${(rows.length / (ocrMs / 1000)).toFixed(2)} pages/s (${seconds(ocrMs / rows.length)} per page), ` +
      `CER ${((edits / refChars) * 100).toFixed(1)} % over ${refChars} reference chars, ${(words * 100).toFixed(1)} % of reference words found (mean per page, order ignored); worker start + first page ${seconds(startMs)}`,
  );
}

/** Needs row access for the text length, so it runs on PostgreSQL. */
export async function ocrScans(): Promise<void> {
  const b = await startBenchServer('postgres');
  try {
    const kbId = await newKb(b, 'Scans');
    const rows = [];
    for (const file of SCANS) {
      const t0 = performance.now();
      const res = await fetch(`${b.server.url}/api/ingest/upload`, { method: 'POST', headers: { 'x-api-key': b.key }, body: fileForm(kbId, [{ name: file, bytes: readFileSync(path.join(DOCS, file)) }]) });
      const id = ((await res.json()) as { document: { id: string } }).document.id;
      const { docs } = await waitAll(b, kbId, [id]);
      const ms = performance.now() - t0;
      const d = docs[0]!;
      const { rows: t } = await b.sql!.query<{ chars: string; sample: string }>(
        `select coalesce(sum(length(text)), 0) as chars, left(string_agg(text, ' ' order by position), 60) as sample from chunks where document_id = $1`,
        [id],
      );
      rows.push({ file, status: d.status, 'upload to ready s': +(ms / 1000).toFixed(1), ocr_pages: d.ocr_pages.join(','), chunks: d.chunk_count, 'chunk text chars': Number(t[0]!.chars), start: (t[0]!.sample ?? '').replace(/\s+/g, ' '), error: d.error ?? '' });
    }
    console.log('\nscanned PDFs of the shared corpus, one at a time, upload to ready (npm start on PostgreSQL, worker in-process; first one includes the OCR worker start)');
    console.table(rows);
  } finally {
    await b.stop();
  }
}
