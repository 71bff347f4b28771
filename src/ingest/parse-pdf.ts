/**
 * PDF via pdf.js (through unpdf, which bundles a build that runs in Node without a worker or
 * canvas). pdf.js gives positioned text runs; we rebuild lines from baselines, paragraphs from
 * vertical gaps and font-size changes, and heading paths from the document outline (bookmarks)
 * when it has one, because font-size guessing is unreliable across generators.
 *
 * Pages are read one at a time and released, so memory stays flat on long documents; a long
 * document's later pages are read by a second thread at the same time (pdf-pages-thread.ts).
 */
import { getDocumentProxy, getResolvedPDFJS } from 'unpdf';
import { checkPdfInflation, PDF_INFLATION_RATIO, PDF_MAX_TOTAL_BYTES, pdfInflationLimits, type PdfInflationCheck } from './pdf-inflation';
import { judgeOcrReading, ocrPdfPages } from './ocr';
import type { DocumentWarning } from './types';
import { helperFrom, PDF_OPEN_OPTIONS, readPagesInHelper, type PagesRead } from './pdf-pages-thread';
import { UnmappedGlyphs } from './pdf-ligatures';
import { PermanentIngestError } from './errors';
import { cleanText, usableTitle } from './normalize';
import type { ParsedDocument, ParsedSection, ParseProgress } from './types';

type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;
type PdfPage = Awaited<ReturnType<PdfDocument['getPage']>>;

interface TextRun {
  str: string;
  dir: string;
  width: number;
  height: number;
  transform: number[];
  hasEOL: boolean;
}

interface Line {
  text: string;
  /** Baseline, PDF user space (grows upwards). */
  y: number;
  right: number;
  size: number;
  horizontal: boolean;
}

interface Paragraph {
  text: string;
  y: number;
  size: number;
}

interface OutlineEntry {
  path: string[];
  pageIndex: number;
  /** Top of the destination on the page, or null when the link targets the whole page. */
  top: number | null;
  order: number;
}

/**
 * Text kept from one PDF, in characters. Inflated streams are bounded before pdf.js opens the file
 * (pdf-inflation.ts); this bounds what piles up across pages (a 10,000-page
 * manual is ~30 M characters; beyond this it is not a document we can chunk and embed anyway).
 */
export const MAX_PDF_TEXT_CHARS = 50_000_000;
const MB = 1024 * 1024;

// A page with fewer letters/digits than this carries a stamp or page number at most, not text.
const MIN_CHARS_FOR_TEXT_PAGE = 20;
const RTL = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/g;
const LTR = /[A-Za-z\u00C0-\u024F\u0370-\u03FF\u0400-\u04FF]/g;
// pdf.js reports these by class name; all of them mean the bytes themselves are at fault.
const DAMAGED_ERRORS = new Set([
  'InvalidPDFException',
  'MissingPDFException',
  'UnexpectedResponseException',
  'UnknownErrorException',
  'FormatError',
  'AbortException',
]);
// "Chapter 3 ........ 12": a table-of-contents line, which must stay a line of its own.
const TOC_ENTRY = /(?:\.\s?){4,}\s*[\divxlc]+$/i;
// Paragraphs of the cover read for the document's identity: a filing's cover names its issuer and period within them.
const OPENING_PARAGRAPHS = 40;
const PAGE_NUMBER = /^(?:page\s*)?[-–—]?\s*\d{1,4}\s*[-–—]?(?:\s*(?:of|\/)\s*\d{1,4})?$/i;

const passwordProtected = (cause: unknown): PermanentIngestError =>
  new PermanentIngestError('pdf_encrypted', 'The PDF is password-protected.', { cause });
const damaged = (cause?: unknown): PermanentIngestError =>
  new PermanentIngestError('pdf_damaged', 'The PDF is damaged or is not a valid PDF.', { cause });

function errorName(err: unknown): string {
  return err && typeof err === 'object' && 'name' in err ? String((err as { name: unknown }).name) : '';
}

function isTextRun(item: unknown): item is TextRun {
  return typeof item === 'object' && item !== null && typeof (item as TextRun).str === 'string';
}

function countMatches(text: string, re: RegExp): number {
  return text.match(re)?.length ?? 0;
}

function fontSize(run: TextRun): number {
  const [a = 0, b = 0] = run.transform;
  return Math.hypot(a, b) || run.height || 1;
}

function joinRuns(runs: TextRun[], horizontal: boolean): string {
  if (!horizontal) return runs.map((r) => r.str).join('');
  const rtl = runs.reduce((n, r) => n + countMatches(r.str, RTL), 0) > runs.reduce((n, r) => n + countMatches(r.str, LTR), 0);
  // Right-to-left runs arrive in visual (left-to-right) order; reading order is the reverse.
  const ordered = rtl ? [...runs].sort((p, q) => (q.transform[4] ?? 0) - (p.transform[4] ?? 0)) : runs;
  let text = '';
  let previous: TextRun | undefined;
  for (const run of ordered) {
    if (previous && run.str) {
      const size = Math.max(fontSize(run), fontSize(previous));
      const prevStart = previous.transform[4] ?? 0;
      const start = run.transform[4] ?? 0;
      const gap = rtl ? prevStart - (start + run.width) : start - (prevStart + previous.width);
      // Runs are often split mid-word; only a visible gap (or a jump back) is a word boundary.
      if ((gap > size * 0.15 || gap < -size) && !/\s$/.test(text) && !/^\s/.test(run.str)) text += ' ';
    }
    text += run.str;
    if (run.str) previous = run;
  }
  return text;
}

function buildLines(items: unknown[]): Line[] {
  const lines: Line[] = [];
  let runs: TextRun[] = [];
  const flush = (): void => {
    const visible = runs.filter((r) => r.str !== '');
    runs = [];
    if (visible.length === 0) return;
    const first = visible[0]!;
    const horizontal = visible.every((r) => Math.abs(r.transform[1] ?? 0) < 1e-3 && (r.transform[0] ?? 0) > 0);
    const text = joinRuns(visible, horizontal).replace(/\s+/g, ' ').trim();
    if (!text) return;
    lines.push({
      text,
      y: first.transform[5] ?? 0,
      right: maxOf(visible.map((r) => (r.transform[4] ?? 0) + r.width)),
      size: maxOf(visible.filter((r) => r.str.trim()).map(fontSize), fontSize(first)),
      horizontal,
    });
  };
  let baseline = 0;
  let pendingEOL = false;
  for (const item of items) {
    if (!isTextRun(item)) continue;
    const last = runs.findLast((r) => r.str !== '');
    if (last && item.str !== '') {
      const horizontal = Math.abs(item.transform[1] ?? 0) < 1e-3;
      const size = Math.max(fontSize(item), fontSize(last));
      const y = item.transform[5] ?? 0;
      const x = item.transform[4] ?? 0;
      // pdf.js marks an end of line whenever the baseline moves, superscripts included; we only
      // break when the baseline really changes, or when text jumps back to the left.
      const newLine = horizontal
        ? Math.abs(y - baseline) > size * 0.6 || (pendingEOL && x < (last.transform[4] ?? 0) + last.width - size)
        : pendingEOL;
      if (newLine) flush();
    }
    if (item.str !== '' && runs.every((r) => r.str === '')) baseline = item.transform[5] ?? 0;
    runs.push(item);
    if (item.str !== '') pendingEOL = item.hasEOL;
    else if (item.hasEOL) pendingEOL = true;
  }
  flush();
  return lines;
}

// Math.max(...values) overflows the call stack on very long arrays (a page of single glyphs).
function maxOf(values: number[], initial = -Infinity): number {
  return values.reduce((max, v) => (v > max ? v : max), initial);
}

function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function joinLines(lines: Line[]): string {
  const right = maxOf(lines.map((l) => l.right));
  let text = lines[0]!.text;
  for (let i = 1; i < lines.length; i++) {
    const prev = lines[i - 1]!;
    const line = lines[i]!;
    if (/\p{L}-$/u.test(text) && /^\p{Ll}/u.test(line.text)) {
      // Hyphenation at a line end: "exam-" + "ple".
      text = text.slice(0, -1) + line.text;
    } else if ((prev.horizontal && prev.right < right - prev.size * 4) || TOC_ENTRY.test(prev.text)) {
      // A line that stops well short of the paragraph's right edge ended on purpose (list item,
      // table row, table of contents entry): keep the break.
      text += '\n' + line.text;
    } else {
      text += ' ' + line.text;
    }
  }
  return text;
}

function buildParagraphs(lines: Line[]): Paragraph[] {
  // Line spacing relative to font size, so body text and large titles are judged alike.
  const ratios: number[] = [];
  for (let i = 1; i < lines.length; i++) {
    const gap = lines[i - 1]!.y - lines[i]!.y;
    if (gap > 0 && Math.abs(lines[i]!.size - lines[i - 1]!.size) < 0.5) ratios.push(gap / lines[i]!.size);
  }
  const typicalRatio = ratios.length >= 3 ? median(ratios)! : 1.2;
  const breakRatio = Math.max(typicalRatio * 1.4, 1.35);

  const paragraphs: Paragraph[] = [];
  let current: Line[] = [];
  const flush = (): void => {
    if (current.length === 0) return;
    paragraphs.push({ text: joinLines(current), y: current[0]!.y, size: current[0]!.size });
    current = [];
  };
  for (const line of lines) {
    const prev = current[current.length - 1];
    if (prev && line.horizontal && prev.horizontal) {
      const size = Math.max(prev.size, line.size);
      const gap = prev.y - line.y;
      const fontChange = Math.abs(line.size - prev.size) > 0.2 * prev.size;
      // Moving up means a new column or text box; a wide gap means a new paragraph.
      if (fontChange || gap < -0.5 * size || gap > breakRatio * size) flush();
    }
    current.push(line);
  }
  flush();
  return paragraphs;
}

/**
 * Paragraphs at the top or bottom of many pages with the same text (digits aside) are running
 * headers and footers: they would otherwise land in a chunk per page and match every query
 * about the document's title. They are not thrown away: they often are the only place that says
 * whose document it is and which period it covers ("Acme Inc. | Q3 2023 Form 10-Q"), so their
 * texts (the first occurrence's, most frequent first) become the document's identity cues.
 */
function runningHeadersAndFooters(pages: Paragraph[][]): { repeats: Set<Paragraph>; texts: string[] } {
  const repeats = new Set<Paragraph>();
  const textPages = pages.filter((p) => p.length > 0).length;
  if (textPages < 4) return { repeats, texts: [] };
  const key = (p: Paragraph): string => p.text.replace(/\d+/g, '#').replace(/\s+/g, ' ').trim().toLowerCase();
  const edges = (paragraphs: Paragraph[]): Paragraph[] =>
    paragraphs.length <= 4 ? paragraphs : [...paragraphs.slice(0, 2), ...paragraphs.slice(-2)];
  const counts = new Map<string, number>();
  for (const paragraphs of pages) {
    for (const k of new Set(edges(paragraphs).map(key))) counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const threshold = Math.max(3, textPages * 0.4);
  // The first occurrence stays in the text: a running header usually repeats the title the first page shows.
  const first = new Map<string, string>();
  for (const paragraphs of pages) {
    for (const p of edges(paragraphs)) {
      const k = key(p);
      if ((counts.get(k) ?? 0) < threshold || p.text.length >= 200) continue;
      if (first.has(k)) repeats.add(p);
      else first.set(k, cleanText(p.text).trim());
    }
  }
  const texts = [...first.entries()].sort((a, b) => counts.get(b[0])! - counts.get(a[0])!).map(([, text]) => text);
  return { repeats, texts };
}

function destinationTop(dest: unknown[]): number | null {
  const mode = (dest[1] as { name?: string } | undefined)?.name;
  const value = mode === 'XYZ' ? dest[3] : mode === 'FitH' || mode === 'FitBH' ? dest[2] : mode === 'FitR' ? dest[5] : null;
  return typeof value === 'number' ? value : null;
}

async function readOutline(pdf: PdfDocument): Promise<OutlineEntry[]> {
  const outline = await pdf.getOutline().catch(() => null);
  if (!outline) return [];
  const entries: OutlineEntry[] = [];
  const walk = async (items: typeof outline, parent: string[]): Promise<void> => {
    for (const item of items) {
      const title = cleanText(item.title ?? '').replace(/\s+/g, ' ').trim();
      const path = title ? [...parent, title] : parent;
      try {
        const dest = typeof item.dest === 'string' ? await pdf.getDestination(item.dest) : item.dest;
        const target = Array.isArray(dest) ? dest[0] : undefined;
        const pageIndex =
          typeof target === 'number' ? target : target && typeof target === 'object' ? await pdf.getPageIndex(target) : undefined;
        if (title && pageIndex !== undefined) {
          entries.push({ path, pageIndex, top: destinationTop(dest as unknown[]), order: entries.length });
        }
      } catch {
        // A dangling bookmark only costs us a heading.
      }
      if (item.items?.length) await walk(item.items, path);
    }
  };
  await walk(outline, []);
  return entries;
}

function inflationRefusal(reason: Exclude<PdfInflationCheck, { ok: true }>['reason'], fileBytes: number): PermanentIngestError {
  const { maxStreamBytes, maxTotalBytes } = pdfInflationLimits(fileBytes);
  switch (reason) {
    case 'stream_too_large':
      return new PermanentIngestError('too_large', `The PDF is too large to process: one of its streams inflates beyond ${maxStreamBytes / MB} MB, the limit for one stream.`);
    case 'total_too_large':
      return new PermanentIngestError(
        'too_large',
        `The PDF is too large to process: its streams inflate beyond ${Math.round(maxTotalBytes / MB)} MB in all, the limit for this file (${PDF_INFLATION_RATIO} times its size, at least ${maxStreamBytes / MB} MB and at most ${PDF_MAX_TOTAL_BYTES / MB} MB).`,
      );
    case 'unreadable_filter':
      return new PermanentIngestError('pdf_damaged', 'The PDF cannot be checked safely: a stream names its filters through a compressed object.');
    case 'overlapping_streams':
      return new PermanentIngestError('pdf_damaged', 'The PDF is damaged: its streams overlap one another.');
  }
}

async function openPdf(bytes: Uint8Array): Promise<PdfDocument> {
  const inflation = await checkPdfInflation(bytes);
  if (!inflation.ok) throw inflationRefusal(inflation.reason, bytes.length);
  try {
    // pdf.js takes ownership of the buffer it is given, so it gets a copy.
    return await getDocumentProxy(new Uint8Array(bytes), PDF_OPEN_OPTIONS);
  } catch (err) {
    if (errorName(err) === 'PasswordException') throw passwordProtected(err);
    if (DAMAGED_ERRORS.has(errorName(err))) throw damaged(err);
    throw err;
  }
}

export interface ParsePdfOptions {
  onProgress?: ParseProgress;
  /** Pages without a text layer but with images are read by OCR, at most this many (0: never). */
  ocrMaxPages?: number;
  /** false: one thread reads every page, however long the document (the result is the same). */
  twoThreads?: boolean;
}

// An OCR'd page is kept from this many letters/digits: a scan may hold a single word.
const MIN_CHARS_FOR_OCR_PAGE = 3;

async function paintsImages(page: { getOperatorList(): Promise<{ fnArray: number[] }> }): Promise<boolean> {
  const { OPS } = await getResolvedPDFJS();
  const images = new Set<number>([
    OPS.paintImageXObject,
    OPS.paintImageXObjectRepeat,
    OPS.paintInlineImageXObject,
    OPS.paintInlineImageXObjectGroup,
    OPS.paintImageMaskXObject,
    OPS.paintImageMaskXObjectGroup,
    OPS.paintImageMaskXObjectRepeat,
  ]);
  const ops = await page.getOperatorList();
  return ops.fnArray.some((fn) => images.has(fn));
}

/** OCR text as paragraphs (tesseract separates blocks by blank lines), top to bottom. */
function ocrParagraphs(text: string): Paragraph[] {
  const blocks = cleanText(text)
    .split(/\n\s*\n/)
    .map((b) => b.replace(/\s*\n\s*/g, ' ').replace(/\s+/g, ' ').trim())
    .filter((b) => /[\p{L}\p{N}]/u.test(b));
  return blocks.map((b, i) => ({ text: b, y: 10_000 - i, size: 10 }));
}

export async function parsePdf(bytes: Uint8Array, options: ParsePdfOptions = {}): Promise<ParsedDocument> {
  const pdf = await openPdf(bytes);
  // A long document's later pages are read by a second thread meanwhile (pdf-pages-thread.ts).
  let helper: PagesRead | null = null;
  try {
    const outline = await readOutline(pdf);
    // A single bookmark is usually the document's own title, not structure.
    const headings = outline.length >= 2 ? outline : [];
    const byPage = new Map<number, OutlineEntry[]>();
    for (const entry of headings) {
      const list = byPage.get(entry.pageIndex) ?? [];
      list.push(entry);
      byPage.set(entry.pageIndex, list);
    }
    for (const list of byPage.values()) {
      list.sort((a, b) => (b.top ?? Infinity) - (a.top ?? Infinity) || a.order - b.order);
    }

    const pages: Paragraph[][] = [];
    let textPages = 0;
    let failedPages = 0;
    let textChars = 0;
    const ocrMax = options.ocrMaxPages ?? 0;
    const scanned: number[] = [];
    const glyphs = new UnmappedGlyphs();
    const from = options.twoThreads === false ? null : helperFrom(pdf.numPages);
    helper = from === null ? null : readPagesInHelper(bytes, from, pdf.numPages);
    for (let pageNumber = 1; pageNumber <= pdf.numPages; pageNumber++) {
      options.onProgress?.({ stage: 'parsing', done: pageNumber - 1, total: pdf.numPages, unit: 'pages' });
      let page: PdfPage | null = null;
      try {
        const read = helper && pageNumber >= from! ? await helper.page(pageNumber) : null;
        if (read && 'error' in read) throw Object.assign(new Error(`page ${pageNumber} could not be read`), { name: read.error });
        if (!read) page = await pdf.getPage(pageNumber);
        const items = read ? read.items : (await page!.getTextContent()).items;
        glyphs.mark(items);
        const paragraphs = buildParagraphs(buildLines(items));
        pages.push(paragraphs);
        const pageText = paragraphs.map((p) => p.text).join(' ');
        textChars += pageText.length;
        if (textChars > MAX_PDF_TEXT_CHARS) {
          throw new PermanentIngestError('too_large', 'The PDF has more text than can be processed (over 50 million characters).');
        }
        if (countMatches(pageText, /[\p{L}\p{N}]/gu) >= MIN_CHARS_FOR_TEXT_PAGE) textPages++;
        // Only a page that shows an image can be a scan; a blank page is left alone.
        else if (await (async () => paintsImages((page ??= await pdf.getPage(pageNumber))))().catch(() => false)) scanned.push(pageNumber);
        page?.cleanup();
      } catch (err) {
        if (err instanceof PermanentIngestError) throw err;
        if (errorName(err) === 'PasswordException') throw passwordProtected(err);
        failedPages++;
        pages.push([]);
      }
    }

    const ocrPages: number[] = [];
    // OCR readings too unsure to index, and those indexed but worth a person's look.
    const unreadable: OcrDoubt[] = [];
    const unsure: OcrDoubt[] = [];
    if (scanned.length > 0 && ocrMax > 0) {
      const chosen = scanned.slice(0, ocrMax);
      options.onProgress?.({ stage: 'ocr', done: 0, total: chosen.length, unit: 'pages' });
      const read = await ocrPdfPages(bytes, chosen, (done) => options.onProgress?.({ stage: 'ocr', done, total: chosen.length, unit: 'pages' }));
      for (const reading of read) {
        const { page, text, confidence, quality } = reading;
        const paragraphs = ocrParagraphs(text);
        // A scanned page with (almost) nothing legible is unreadable whatever tesseract's confidence.
        const legible = countMatches(paragraphs.map((p) => p.text).join(' '), /[\p{L}\p{N}]/gu) >= MIN_CHARS_FOR_OCR_PAGE;
        const verdict = legible ? judgeOcrReading(reading) : 'unreadable';
        if (verdict === 'unreadable') {
          unreadable.push({ page, confidence, quality });
          continue;
        }
        if (verdict === 'unsure') unsure.push({ page, confidence, quality });
        pages[page - 1] = paragraphs;
        ocrPages.push(page);
        textPages++;
      }
    }

    const { repeats: boilerplate, texts: running } = runningHeadersAndFooters(pages);
    const sections: ParsedSection[] = [];
    let headingPath: string[] = [];
    pages.forEach((paragraphs, index) => {
      const pending = [...(byPage.get(index) ?? [])];
      for (const paragraph of paragraphs) {
        // A bookmark applies from its top down; tolerate tops placed at the baseline.
        while (pending.length > 0 && (pending[0]!.top === null || paragraph.y <= pending[0]!.top + paragraph.size)) {
          headingPath = pending.shift()!.path;
        }
        if (boilerplate.has(paragraph) || PAGE_NUMBER.test(paragraph.text)) continue;
        const text = cleanText(paragraph.text).trim();
        if (text) sections.push({ text, headingPath, page: index + 1 });
      }
      if (pending.length > 0) headingPath = pending[pending.length - 1]!.path;
    });

    if (failedPages === pdf.numPages) throw damaged();
    if (textPages === 0) {
      const why =
        scanned.length === 0
          ? ''
          : ocrMax === 0
            ? ' OCR is turned off (OCR_MAX_PAGES=0).'
            : unreadable.length > 0
              ? ` OCR could not read ${unreadable.length === 1 ? 'its scanned page' : `any of its ${unreadable.length} scanned pages`} in any orientation (best confidence ${Math.round(Math.max(...unreadable.map((u) => u.confidence)))}%, text mostly not words): the scan may be too faint, blurred or noisy.`
              : ' OCR found no readable text on its scanned pages.';
      throw new PermanentIngestError('no_text', `The PDF has no extractable text (scanned document?).${why}`);
    }

    if (glyphs.found) {
      const decode = await glyphs.decoder(sections.map((section) => section.text));
      for (const section of sections) section.text = decode(section.text);
    }

    const info = (await pdf.getMetadata().catch(() => undefined))?.info as { Title?: unknown } | undefined;
    const title = usableTitle(info?.Title) ?? (outline.length === 1 ? usableTitle(outline[0]!.path[0]) : undefined);
    // The first page with text is the cover (or the first page of a report without one).
    const cover = pages.find((p) => p.length > 0) ?? [];
    const opening = cover.slice(0, OPENING_PARAGRAPHS).map((p) => ({ text: cleanText(p.text).trim(), size: p.size })).filter((p) => p.text);
    const cues = { opening, running: running.filter((t) => !PAGE_NUMBER.test(t)) };
    const warnings = ocrWarnings(unsure, unreadable);
    return { ...(title ? { title } : {}), cues, pages: pdf.numPages, sections, ...(ocrPages.length > 0 ? { ocrPages } : {}), ...(warnings.length > 0 ? { warnings } : {}) };
  } finally {
    await helper?.release();
    await pdf.destroy();
  }
}

type OcrDoubt = { page: number; confidence: number; quality: number };

const pageList = (pages: OcrDoubt[]) => `${pages.length === 1 ? 'page' : 'pages'} ${pages.map((p) => p.page).join(', ')}`;

/** What a person should check on a document OCR was unsure of. */
function ocrWarnings(unsure: OcrDoubt[], unreadable: OcrDoubt[]): DocumentWarning[] {
  const out: DocumentWarning[] = [];
  if (unsure.length > 0) {
    const worst = Math.round(Math.min(...unsure.map((u) => u.confidence)));
    const words = Math.round(100 * Math.min(...unsure.map((u) => u.quality)));
    out.push({
      code: 'ocr_unsure',
      message: `OCR was unsure of ${pageList(unsure)} (confidence down to ${worst}%, word-shaped text down to ${words}%): their text may be wrong`,
      pages: unsure.map((u) => u.page),
    });
  }
  if (unreadable.length > 0) {
    out.push({ code: 'ocr_unreadable', message: `OCR could not read ${pageList(unreadable)}; they are left out of the index`, pages: unreadable.map((u) => u.page) });
  }
  return out;
}
