/**
 * Ingestion benchmark on the offline default, through `npm start` exactly as a user runs it (embedded
 * database, worker inside the web process). Parts, each runnable alone with `--part`:
 *
 *   corpus   (default) every PDF/DOCX/MD file of ../shared/data/docs uploaded, then the 619-page PDF
 *            and the 872-page DOCX alone: pages/s, chunks/s, wall times, the server's peak RSS
 *   pdf      the 619-page PDF alone, upload to ready (target: under 8 s), and `pdftotext` on the same
 *            file before and after it: the ratio carries over between machines and loads better
 *   ocr      OCR accuracy (character error rate against the text layer of digital PDF pages) and
 *            speed per page, then the four scanned PDFs upload to ready (on PostgreSQL)
 *   recrawl  the 101-page site crawled, 3 pages changed and 2 removed, re-crawled (on PostgreSQL)
 *   bulk     the shared corpus in one upload request vs one request per file, then the zip part
 *   zip      a ZIP of 1,000 files from one organisation, another organisation's small file meanwhile
 *   all      every part above
 *
 *   npm run bench -- ingest [--part corpus|pdf|ocr|recrawl|bulk|zip|all] [--db embedded|postgres]
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { rssMb } from '../test/helpers/server-process';
import { bulk, bulkZip } from './lib/ingest-bulk';
import { ocrAccuracy, ocrScans } from './lib/ingest-ocr';
import { recrawl } from './lib/ingest-recrawl';
import { DOCS, fileForm, newKb, startBenchServer, waitAll, type BenchServer } from './lib/ingest-server';

const PARTS = ['corpus', 'pdf', 'ocr', 'recrawl', 'bulk', 'zip', 'all'] as const;
const { values } = parseArgs({ options: { db: { type: 'string', default: 'embedded' }, part: { type: 'string', default: 'corpus' } } });
const db = values.db === 'postgres' ? 'postgres' : 'embedded';
if (!PARTS.includes(values.part as (typeof PARTS)[number])) {
  process.stderr.write(`--part must be one of ${PARTS.join(', ')}\n`);
  process.exit(2);
}

async function upload(b: BenchServer, kbId: string, file: string) {
  const res = await fetch(`${b.server.url}/api/ingest/upload`, { method: 'POST', headers: { 'x-api-key': b.key }, body: fileForm(kbId, [{ name: file, bytes: readFileSync(path.join(DOCS, file)) }]) });
  if (res.status !== 202) throw new Error(`${file}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { document: { id: string } }).document.id;
}

async function bigFiles(b: BenchServer, files: string[]) {
  for (const big of files) {
    const kb = await newKb(b, big);
    const peak = { mb: rssMb(b.server.child.pid!) };
    const t0 = performance.now();
    const id = await upload(b, kb, big);
    const { docs } = await waitAll(b, kb, [id], peak);
    const d = docs[0]!;
    console.log(
      `${big}: ${d.status} in ${((performance.now() - t0) / 1000).toFixed(1)} s (upload to ready), ${d.pages ?? '-'} pages, ${d.chunk_count} chunks, ${d.ocr_pages.length} pages OCR'd, peak RSS ${Math.round(peak.mb)} MB`,
    );
  }
}

async function corpus() {
  const b = await startBenchServer(db);
  try {
    const files = readdirSync(DOCS).filter((f) => /\.(pdf|docx|md)$/i.test(f)).sort();
    const corpusKb = await newKb(b, 'Corpus');
    const peakCorpus = { mb: rssMb(b.server.child.pid!) };
    const ids = [];
    for (const f of files) ids.push(await upload(b, corpusKb, f));
    const result = await waitAll(b, corpusKb, ids, peakCorpus);
    const ready = result.docs.filter((d) => d.status === 'ready');
    const pages = ready.reduce((a, d) => a + (d.pages ?? 0), 0);
    const chunks = ready.reduce((a, d) => a + d.chunk_count, 0);
    console.log(`\nshared corpus: ${files.length} PDF/DOCX/MD files on ${db}`);
    console.table(
      result.docs
        .map((d) => ({ file: d.filename, status: d.status, pages: d.pages ?? '', chunks: d.chunk_count, error: d.error ?? '' }))
        .sort((a, c) => a.file.localeCompare(c.file)),
    );
    console.log(
      `corpus: ${ready.length} ready, ${result.docs.length - ready.length} failed, ${pages} pages, ${chunks} chunks in ${(result.ms / 1000).toFixed(1)} s ` +
        `-> ${(pages / (result.ms / 1000)).toFixed(1)} pages/s, ${(chunks / (result.ms / 1000)).toFixed(1)} chunks/s; peak RSS ${Math.round(peakCorpus.mb)} MB`,
    );
    await bigFiles(b, ['DA-619p.pdf', 'handbook-872p.docx']);
  } finally {
    await b.stop();
  }
}

/** `pdftotext` on the same file, seconds (null when poppler-utils is missing): the machine's pace in the same run. */
function pdftotextSeconds(file: string): number | null {
  const t0 = performance.now();
  try {
    execFileSync('pdftotext', [path.join(DOCS, file), '-'], { stdio: ['ignore', 'ignore', 'ignore'], maxBuffer: 1 << 30 });
  } catch {
    return null;
  }
  return (performance.now() - t0) / 1000;
}

async function pdf() {
  const b = await startBenchServer(db);
  try {
    console.log(`\n619-page PDF on ${db} (target: ready in under 8 s)`);
    const before = pdftotextSeconds('DA-619p.pdf');
    const t0 = performance.now();
    await bigFiles(b, ['DA-619p.pdf']);
    const ours = (performance.now() - t0) / 1000;
    const after = pdftotextSeconds('DA-619p.pdf');
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    if (before !== null && after !== null) {
      const mean = (before + after) / 2;
      console.log(`pdftotext on the same file: ${before.toFixed(1)} s before, ${after.toFixed(1)} s after; ready took ${(ours / mean).toFixed(1)}x pdftotext; load average ${load}`);
    } else console.log(`pdftotext not found (apt install poppler-utils): no ratio; load average ${load}`);
  } finally {
    await b.stop();
  }
}

const part = values.part;
if (part === 'corpus') await corpus();
if (part === 'pdf' || part === 'all') await pdf();
if (part === 'ocr' || part === 'all') {
  await ocrAccuracy();
  await ocrScans();
}
if (part === 'recrawl' || part === 'all') await recrawl();
if (part === 'bulk' || part === 'all') await bulk(db);
if (part === 'zip' || part === 'bulk' || part === 'all') await bulkZip(db);
if (part === 'all') await corpus();
