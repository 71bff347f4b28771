/**
 * OCR for PDF pages without a text layer, offline: pdf.js (unpdf) renders the page onto a
 * @napi-rs/canvas (prebuilt binaries in its npm package), and tesseract.js (WebAssembly, in a worker
 * thread) reads it with the English LSTM model shipped in @tesseract.js-data/eng. Nothing is
 * downloaded at run time: langPath points into node_modules and the cache is off.
 *
 * One tesseract worker per process, created on first use (about 5 s) and ended after a minute idle.
 *
 * A page read with low confidence or text that does not look like words may be a scan fed in
 * sideways or upside down: the rendered page is turned 90, 180 and 270 degrees and read again, and
 * the best reading is kept (a rotated scan read upright gave "2 = 3 iB g 5 ZN E TE z 5 pos £").
 * Every page says how sure the reading is (`confidence`, `quality`); judgeOcrReading says what that is worth.
 */
import { createRequire } from 'node:module';
import { PermanentIngestError } from './errors';
import './pdfjs-node';

const RENDER_SCALE = 2; // 144 dpi: tesseract's accuracy drops below ~120 dpi, time grows above
// A page may declare any size (a 200-inch MediaBox at 144 dpi is 3.3 GB of pixels): the render is
// scaled down to at most this many pixels (64 MB of RGBA; an A4 page at 144 dpi is 2 M).
export const MAX_RENDER_PIXELS = 16_000_000;

/** The render scale for a page of `width` x `height` points. */
export function renderScale(width: number, height: number): number {
  const area = Math.max(1, width * height);
  return Math.min(RENDER_SCALE, Math.sqrt(MAX_RENDER_PIXELS / area));
}
const IDLE_MS = 60_000;
const require = createRequire(import.meta.url);

type OcrWorker = { recognize(image: Buffer): Promise<{ data: { text: string; confidence: number } }>; terminate(): Promise<unknown> };

let worker: Promise<OcrWorker> | null = null;
let idleTimer: NodeJS.Timeout | null = null;
let busy = 0;

function unavailable(err: unknown): PermanentIngestError {
  const what = err instanceof Error ? err.message.split('\n')[0] : String(err);
  return new PermanentIngestError(
    'ocr_unavailable',
    `The PDF has no extractable text and OCR is unavailable on this server (${what}); reinstall the packages tesseract.js, @tesseract.js-data/eng and @napi-rs/canvas.`,
    { cause: err },
  );
}

async function getWorker(): Promise<OcrWorker> {
  worker ??= (async () => {
    try {
      const tesseract = await import('tesseract.js');
      const eng = require('@tesseract.js-data/eng') as { langPath: string };
      const created = await tesseract.createWorker('eng', tesseract.OEM.LSTM_ONLY, { langPath: eng.langPath, gzip: true, cacheMethod: 'none' });
      return created as unknown as OcrWorker;
    } catch (err) {
      worker = null;
      throw unavailable(err);
    }
  })();
  return worker;
}

function releaseLater(): void {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    if (busy > 0 || !worker) return;
    const w = worker;
    worker = null;
    void w.then((x) => x.terminate()).catch(() => undefined);
  }, IDLE_MS);
  idleTimer.unref();
}

/**
 * `confidence`: tesseract's mean word confidence (0-100). `quality`: the share of the text's tokens
 * that look like words (src/ingest/ocr.ts textQuality), 0-1. `rotation`: degrees the render was turned.
 */
export type OcrPage = { page: number; text: string; confidence: number; quality: number; rotation: number };

/** A reading at least this sure is kept without trying other orientations, and indexed without a warning. */
export const OCR_SURE = { confidence: 70, quality: 0.6 } as const;
/** A reading under both of these is noise, not text. */
export const OCR_UNREADABLE = { confidence: 35, quality: 0.35 } as const;

export type OcrVerdict = 'sure' | 'unsure' | 'unreadable';

/**
 * What a page's best reading is worth. Unreadable (left out of the index) only when tesseract's
 * confidence AND the text's quality are both low: either alone happens on real pages. A confident
 * reading of a label such as "pdf.js" or a row of codes has no word-shaped tokens, and a faint scan
 * of real prose reads with low confidence; dropping those would lose text a person can use. Unsure
 * (indexed, with a warning on the document) when either is under OCR_SURE.
 */
export function judgeOcrReading(r: { confidence: number; quality: number }): OcrVerdict {
  if (r.confidence < OCR_UNREADABLE.confidence && r.quality < OCR_UNREADABLE.quality) return 'unreadable';
  if (r.confidence < OCR_SURE.confidence || r.quality < OCR_SURE.quality) return 'unsure';
  return 'sure';
}
const ROTATIONS = [90, 180, 270] as const;
const MIN_TURNED_WORDS = 5;
/** An upright reading with fewer letters and digits than this is not tried in other orientations. */
const MIN_TURNABLE_CHARS = 3;

/**
 * The share of the text's letters and digits that stand in word-shaped tokens: words of four or more
 * letters cased as words are and with a vowel, shorter ones only in lower case ("at", "the"; a short
 * "RE" or "Sat" is what OCR makes of noise far more often than prose has them), and numbers of two
 * or more digits; punctuation around a token is ignored. Weighted by length because OCR of noise or
 * of a page read sideways is a scatter of short scraps that are sometimes word-shaped by chance:
 * prose reads above 0.9, a page of noise under 0.35. Scripts without Latin vowels count every
 * letter run as a word.
 */
export function textQuality(text: string): number {
  let good = 0;
  let all = 0;
  for (const t of tokens(text)) {
    const n = countMatches(t, /[\p{L}\p{N}]/gu);
    all += Math.max(1, n);
    if (isNumber(t)) good += n;
    else if (isWord(t) && (letterCount(t) >= 4 || /^\p{Ll}/u.test(t))) good += n;
  }
  return all === 0 ? 0 : Math.min(1, good / all);
}

const countMatches = (t: string, re: RegExp) => t.match(re)?.length ?? 0;
const letterCount = (t: string) => t.replace(/['’-]/g, '').length;
const tokens = (text: string) => text.split(/\s+/).filter(Boolean).map((r) => r.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''));
const isNumber = (t: string) => /^\p{N}{2,}([.,:/-]\p{N}+)*$|^\p{N}+[.,:/-]\p{N}+$/u.test(t);
const isWord = (t: string) => isWordShape(t) && (/[aeiouyàâäéèêëîïôöûüáíóúåæøœ]/i.test(t) || !/\p{Script=Latin}/u.test(t));

/** Word-shaped tokens (any length) and all tokens: how many real words a reading found. */
function wordStats(text: string): { words: number; tokens: number } {
  const all = tokens(text);
  return { words: all.filter((t) => isNumber(t) || isWord(t)).length, tokens: all.length };
}

/** Two or more letters cased as words are: lower, Capitalised or CAPITALS ("iB" and "pOs" are not). */
function isWordShape(t: string): boolean {
  return /^[\p{L}'’-]{2,}$/u.test(t) && /^(\p{Lu}?[\p{Ll}'’-]+|[\p{Lu}'’-]+)$/u.test(t);
}

/**
 * How good a reading is: its confidence times the words it found. The count matters: turned the
 * wrong way, a faint scan can yield one confident scrap ("slypd") that outranks a page of real words.
 */
const score = (r: { confidence: number; text: string }) => (r.confidence / 100) * wordStats(r.text).words;

/**
 * Renders and reads the given 1-based pages. Pages that fail to render are left out (the caller
 * treats them as having no text); a missing engine throws PermanentIngestError('ocr_unavailable').
 */
export async function ocrPdfPages(bytes: Uint8Array, pages: number[], onPage?: (done: number) => void): Promise<OcrPage[]> {
  if (pages.length === 0) return [];
  busy++;
  try {
    const ocr = await getWorker();
    let canvasFactory: unknown;
    try {
      const { createIsomorphicCanvasFactory } = await import('unpdf');
      canvasFactory = await createIsomorphicCanvasFactory(() => import('@napi-rs/canvas'));
      const napi = await import('@napi-rs/canvas');
      // pdf.js draws glyphs through Path2D; Node has none of its own.
      const g = globalThis as Record<string, unknown>;
      g.Path2D ??= napi.Path2D;
      g.ImageData ??= napi.ImageData;
      g.DOMMatrix ??= napi.DOMMatrix;
    } catch (err) {
      throw unavailable(err);
    }
    const { getDocumentProxy } = await import('unpdf');
    const pdf = await getDocumentProxy(new Uint8Array(bytes), {
      verbosity: 0,
      isEvalSupported: false,
      disableFontFace: true,
      useSystemFonts: false,
      CanvasFactory: canvasFactory as never,
    });
    const out: OcrPage[] = [];
    try {
      for (const [i, pageNumber] of pages.entries()) {
        try {
          const png = await renderPage(pdf, pageNumber, canvasFactory);
          out.push({ page: pageNumber, ...(await readBestOrientation(ocr, png)) });
        } catch (err) {
          if (err instanceof PermanentIngestError) throw err;
          // One unreadable page must not sink the document.
        }
        onPage?.(i + 1);
      }
    } finally {
      await pdf.destroy();
    }
    return out;
  } finally {
    busy--;
    releaseLater();
  }
}

async function readBestOrientation(ocr: OcrWorker, png: Buffer): Promise<Omit<OcrPage, 'page'>> {
  const read = async (image: Buffer, rotation: number) => {
    const { data } = await ocr.recognize(image);
    return { text: data.text, confidence: data.confidence, quality: textQuality(data.text), rotation };
  };
  let best = await read(png, 0);
  if (judgeOcrReading(best) === 'sure') return best;
  // A page read as (next to) nothing is blank or a picture, not turned text, which reads as a scatter
  // of symbols: three more readings of it cost ~3 s each and, on a page at the pixel bound, a
  // decoded copy and a turned canvas of MAX_RENDER_PIXELS each.
  if (countMatches(best.text, /[\p{L}\p{N}]/gu) < MIN_TURNABLE_CHARS) return best;
  for (const rotation of ROTATIONS) {
    const turned = await read(await rotatePng(png, rotation), rotation);
    // Turned only for a clearly better reading of real text: a scrap of a few words read sideways is
    // more likely noise than the upright page's unusual text (code, names, symbols).
    if (wordStats(turned.text).words >= MIN_TURNED_WORDS && score(turned) > score(best) * 1.5) best = turned;
    if (judgeOcrReading(best) === 'sure') break;
  }
  return best;
}

/** The rendered page turned clockwise by `degrees` (90, 180 or 270). */
async function rotatePng(png: Buffer, degrees: number): Promise<Buffer> {
  const { createCanvas, loadImage } = await import('@napi-rs/canvas');
  const image = await loadImage(png);
  const sideways = degrees % 180 !== 0;
  const canvas = createCanvas(sideways ? image.height : image.width, sideways ? image.width : image.height);
  const ctx = canvas.getContext('2d');
  ctx.translate(canvas.width / 2, canvas.height / 2);
  ctx.rotate((degrees * Math.PI) / 180);
  ctx.drawImage(image, -image.width / 2, -image.height / 2);
  return canvas.encode('png');
}

type PdfDoc = Awaited<ReturnType<typeof import('unpdf').getDocumentProxy>>;
type Factory = { create(w: number, h: number): { canvas: { encode(f: 'png'): Promise<Buffer> }; context: unknown }; destroy(c: unknown): void };

async function renderPage(pdf: PdfDoc, pageNumber: number, factoryClass: unknown): Promise<Buffer> {
  const page = await pdf.getPage(pageNumber);
  const { width, height } = page.getViewport({ scale: 1 });
  const viewport = page.getViewport({ scale: renderScale(width, height) });
  const factory = new (factoryClass as new () => Factory)();
  const target = factory.create(Math.ceil(viewport.width), Math.ceil(viewport.height));
  try {
    await page.render({ canvas: target.canvas as never, canvasContext: target.context as never, viewport }).promise;
    return await target.canvas.encode('png');
  } finally {
    factory.destroy(target);
    page.cleanup();
  }
}

/** Ends the OCR worker now (tests, benchmarks, shutdown). */
export async function stopOcr(): Promise<void> {
  const w = worker;
  worker = null;
  if (w) await w.then((x) => x.terminate()).catch(() => undefined);
}
