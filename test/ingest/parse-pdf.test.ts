import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chunkDocument } from '../../src/ingest/chunker';
import { PermanentIngestError } from '../../src/ingest/errors';
import { parsePdf } from '../../src/ingest/parse-pdf';
import { HELPER_FONT_PREFIX, helperFrom, PDF_OPEN_OPTIONS, readPagesInHelper } from '../../src/ingest/pdf-pages-thread';
import { parsePdfInNicedThread } from '../../src/ingest/pdf-parse-thread';
import { getDocumentProxy } from 'unpdf';
import type { ParsedDocument } from '../../src/ingest/types';
import { readDoc } from './corpus';

/** The nice value of a thread of this process (Linux), by its id. */
const niceOf = (tid: string) => {
  const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
};
/** The nice value of each of this process's threads. */
const threadNices = () =>
  readdirSync('/proc/self/task').map((tid) => {
    return niceOf(tid);
  });

const textOf = (doc: ParsedDocument, page?: number): string =>
  doc.sections.filter((s) => page === undefined || s.page === page).map((s) => s.text).join('\n');

async function failure(bytes: Uint8Array): Promise<PermanentIngestError> {
  const err = await parsePdf(bytes).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PermanentIngestError);
  return err as PermanentIngestError;
}

describe('parsePdf', () => {
  it('extracts text per page with page numbers and rebuilt paragraphs', async () => {
    const doc = await parsePdf(readDoc('tracemonkey.pdf'));
    expect(doc.pages).toBe(14);
    expect(new Set(doc.sections.map((s) => s.page))).toEqual(new Set(Array.from({ length: 14 }, (_, i) => i + 1)));
    const first = textOf(doc, 1);
    expect(first).toContain('Trace-based Just-in-Time Type Specialization for Dynamic Languages');
    expect(first).toContain('Andreas Gal');
    // Lines of a paragraph are joined with spaces, not kept as broken lines.
    const abstract = doc.sections.find((s) => s.text.includes('Dynamic languages such as JavaScript are more difficult'));
    expect(abstract?.text).toContain('Since no concrete type information is available, traditional compilers need to emit');
    expect(textOf(doc, 14)).toMatch(/References|\[\d+\]/);
  });

  it('takes the title from the document information', async () => {
    const doc = await parsePdf(readDoc('embedded-images-tables.pdf'));
    expect(doc.title).toBe('Data on environmental sustainable corrosion inhibitor for stainless steel in aggressive environment');
  });

  it('drops repeated running headers but keeps their first occurrence', async () => {
    const doc = await parsePdf(readDoc('fr_olap.pdf'));
    const title = 'Résumés et interrogations de logs de requêtes OLAP';
    expect(doc.sections[0]?.text).toBe(title);
    expect(doc.sections.filter((s) => s.text === title)).toHaveLength(1);
  });

  it('orders right-to-left text and folds Arabic presentation forms', async () => {
    const doc = await parsePdf(readDoc('ArabicCIDTrueType.pdf'));
    const text = textOf(doc);
    expect(text).toContain('العربية');
    expect(text.startsWith('انواع')).toBe(true);
    expect(text).not.toMatch(/[\uFE70-\uFEFF]/);
  });

  it('reads Korean text', async () => {
    const text = textOf(await parsePdf(readDoc('korean-text-with-tables.pdf')));
    expect(text).toContain('적립 제외 대상');
    expect(text).toContain('삼성카드');
  });

  it('reads French and keeps accents', async () => {
    const text = textOf(await parsePdf(readDoc('fr_olap.pdf')));
    expect(text).toContain('Une façon d’assister l’analyse d’entrepôt de données');
    expect(text).toContain('Université François Rabelais');
  });

  it('reads a PDF with an owner password (no user password)', async () => {
    const doc = await parsePdf(readDoc('copy-protected.pdf'));
    expect(doc.pages).toBe(2);
    expect(textOf(doc)).toContain('LayoutParser');
  });

  it('skips empty pages without failing', async () => {
    const doc = await parsePdf(readDoc('layout-parser-paper-with-empty-pages.pdf'));
    expect(doc.pages).toBe(4);
    expect(doc.sections.length).toBeGreaterThan(0);
  });

  it('reads failure-after-repair.pdf, which pdf.js can open (pdfminer cannot)', async () => {
    const doc = await parsePdf(readDoc('failure-after-repair.pdf'));
    expect(doc.pages).toBe(76);
    expect(textOf(doc)).toContain('Understanding Breast Cancer');
  });

  it('refuses a password-protected PDF', async () => {
    const err = await failure(readDoc('password.pdf'));
    expect(err.code).toBe('pdf_encrypted');
    expect(err.message).toBe('The PDF is password-protected.');
  });

  it.each(['scan-bad.pdf', 'loremipsum-flat.pdf', 'single_table.pdf'])('refuses %s with OCR off: image only, no text layer, and says OCR is off', async (name) => {
    const err = await failure(readDoc(name));
    expect(err.code).toBe('no_text');
    expect(err.message).toBe('The PDF has no extractable text (scanned document?). OCR is turned off (OCR_MAX_PAGES=0).');
  });

  it('keeps the OCR text layer of a scanned PDF that has one', async () => {
    expect(textOf(await parsePdf(readDoc('pdf-with-ocr-text.pdf')))).toContain('Foundation');
  });

  it('refuses damaged PDFs', async () => {
    const good = readDoc('tracemonkey.pdf');
    const garbled = new Uint8Array(good);
    for (let i = 1000; i < garbled.length - 1000; i += 7) garbled[i]! ^= 0x5a;
    for (const bytes of [new TextEncoder().encode('%PDF-1.4\nnot really a pdf\n'), good.subarray(0, 4096), garbled]) {
      const err = await failure(bytes);
      expect(err.code).toBe('pdf_damaged');
      expect(err.message).toBe('The PDF is damaged or is not a valid PDF.');
    }
  });

  it('parses the 619-page DA-619p.pdf without hanging or blowing memory', async () => {
    const rssBefore = process.memoryUsage().rss;
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const doc = await parsePdf(readDoc('DA-619p.pdf'));
    const chunks = chunkDocument(doc);
    const ms = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const rssGrowthMb = (process.memoryUsage().rss - rssBefore) / 1024 / 1024;
    console.info(`DA-619p.pdf: ${ms.toFixed(0)} ms (${cpuMs.toFixed(0)} ms CPU), ${doc.sections.length} sections, ${chunks.length} chunks, RSS +${rssGrowthMb.toFixed(0)} MB`);

    expect(doc.pages).toBe(619);
    expect(doc.sections.some((s) => s.page === 619)).toBe(true);
    // 1,372 bookmarks become heading paths, switching mid-page where a bookmark points.
    expect(doc.sections.every((s) => s.headingPath.length > 0)).toBe(true);
    const page7 = doc.sections.filter((s) => s.page === 7);
    expect(page7[0]?.headingPath).toEqual(['Codex DAO', 'MAIN GAME', 'CREATURES', 'Arcane Horror']);
    expect(new Set(page7.map((s) => s.headingPath.at(-1))).size).toBeGreaterThan(1);
    expect(textOf(doc, 1)).toContain('Table of Contents');
    expect(chunks.every((c) => c.page !== undefined && c.tokenCount <= 512)).toBe(true);
    // No runaway: bounded in CPU time, which the other processes on a loaded machine do not inflate
    // as they do wall time (~5 s quiet; 59.7 s of wall at load 22 failed the former 45 s wall bound).
    expect(cpuMs).toBeLessThan(45_000);
    expect(rssGrowthMb).toBeLessThan(600);
    // Read by two threads (pdf-pages-thread.ts), the document is the one a single thread reads.
    expect(helperFrom(doc.pages!)).not.toBeNull();
    expect(await parsePdf(readDoc('DA-619p.pdf'), { twoThreads: false })).toEqual(doc);
  }, 300_000);

  it("the helper thread delivers a page's text runs as pdf.js reads them in this thread, serves one PDF at a time, and is ended by a parse that stops early", async () => {
    const bytes = readDoc('DA-619p.pdf');
    const pdf = await getDocumentProxy(new Uint8Array(bytes), PDF_OPEN_OPTIONS);
    const read = readPagesInHelper(bytes, 600, 619)!;
    try {
      // Busy with this file: another parse reads its pages itself.
      expect(readPagesInHelper(bytes, 300, 619)).toBeNull();
      for (const n of [600, 601, 619]) {
        const here = (await (await pdf.getPage(n)).getTextContent()).items.flatMap((i) => ('str' in i ? [{ str: i.str, transform: i.transform, width: i.width, hasEOL: i.hasEOL }] : []));
        const there = await read.page(n);
        if (!there || !('items' in there)) throw new Error(`page ${n} not delivered`);
        expect(there.items.map(({ str, transform, width, hasEOL }) => ({ str, transform, width, hasEOL }))).toEqual(here);
        expect(here.length).toBeGreaterThan(10);
        // Font names are per document instance: the helper's are marked as its own.
        expect(there.items.every((run) => run.fontName.startsWith(HELPER_FONT_PREFIX))).toBe(true);
      }
      // It runs at nice 10, so the threads serving requests get a core first (pdf-pages.worker.ts).
      expect(threadNices().filter((nice) => nice === 10).length).toBe(1);
    } finally {
      await pdf.destroy();
    }
    // Released before every page was read: pages not delivered are null (the parser reads them itself).
    await read.release();
    expect(await read.page(610)).toBeNull();
    const next = readPagesInHelper(bytes, 618, 619)!;
    expect(next).not.toBeNull();
    expect(await next.page(618)).toMatchObject({ page: 618 });
    expect(await next.page(619)).toMatchObject({ page: 619 });
    await next.release();
  }, 120_000);

  it("the niced parse thread (the embedded default's worker) gives the document parsed here, with its progress, one PDF at a time, and failures as parsePdf's", async () => {
    const bytes = readDoc('tracemonkey.pdf');
    const threadsBefore = new Set(readdirSync('/proc/self/task'));
    const progress: number[] = [];
    const parsing = parsePdfInNicedThread(bytes, { onProgress: (p) => progress.push(p.done) })!;
    // Busy with this file: another parse runs in its own thread.
    expect(parsePdfInNicedThread(bytes, {})).toBeNull();
    const doc = await parsing;
    expect(doc).toEqual(await parsePdf(bytes));
    expect(progress).toEqual([...Array(doc.pages).keys()]);
    // The thread it started runs at nice 10 (pdf-parse.worker.ts).
    const started = readdirSync('/proc/self/task').filter((tid) => !threadsBefore.has(tid));
    expect(started.map(niceOf)).toContain(10);

    const garbled = new Uint8Array(bytes);
    for (let i = 1000; i < garbled.length - 1000; i += 7) garbled[i]! ^= 0x5a;
    const err = await parsePdfInNicedThread(garbled, {})!.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermanentIngestError);
    expect(err).toMatchObject({ code: 'pdf_damaged', message: 'The PDF is damaged or is not a valid PDF.' });
    // Free again for the next PDF.
    const again = parsePdfInNicedThread(bytes, {});
    expect(again).not.toBeNull();
    expect((await again)!.sections).toEqual(doc.sections);
  }, 120_000);
});
