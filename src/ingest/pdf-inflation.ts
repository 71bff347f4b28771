/**
 * pdf.js inflates each stream it reads whole and keeps it while it works on the page: a 400 KB PDF
 * whose one content stream inflates to 400 MB took 1 GB of memory and 9 s, and a 25 MB upload could
 * inflate to gigabytes. Before pdf.js sees a PDF, its Flate streams are inflated once here, counted
 * and dropped, and the document is refused past a per-stream or a whole-document budget.
 */
import { inflatedSize } from './inflated-size';

export type PdfInflationLimits = { maxStreamBytes: number; maxTotalBytes: number };
export type PdfInflationCheck = { ok: true; inflatedBytes: number; streams: number } | { ok: false; reason: 'stream_too_large' | 'total_too_large' };

const MB = 1024 * 1024;

/**
 * Budgets from the shared corpus's real PDFs: none inflates to more than 30 times its file size (a
 * table drawn as an image), the 619-page one to 11 MB (3.9 times). A scanned page stored losslessly
 * at 600 dpi is ~100 MB.
 */
export function pdfInflationLimits(fileBytes: number): PdfInflationLimits {
  return { maxStreamBytes: 128 * MB, maxTotalBytes: Math.min(1024 * MB, Math.max(64 * MB, 40 * fileBytes)) };
}

const STREAM = Buffer.from('stream');
const END_STREAM = Buffer.from('endstream');
const FLATE = '/FlateDecode';

/** Each stream's data whose dictionary asks for Flate decoding (first in its filter chain or not). */
function* flateStreams(pdf: Buffer): Generator<Buffer> {
  let from = 0;
  let dictStart = 0;
  for (;;) {
    const at = pdf.indexOf(STREAM, from);
    if (at < 0) return;
    from = at + STREAM.length;
    if (at >= 3 && pdf.toString('latin1', at - 3, at) === 'end') {
      dictStart = from;
      continue;
    }
    let dataStart = from;
    if (pdf[dataStart] === 0x0d) dataStart++;
    if (pdf[dataStart] !== 0x0a && pdf[dataStart - 1] !== 0x0d) continue; // "stream" inside other text
    if (pdf[dataStart] === 0x0a) dataStart++;
    const end = pdf.indexOf(END_STREAM, dataStart);
    const dataEnd = end < 0 ? pdf.length : end;
    const dictionary = pdf.toString('latin1', Math.max(dictStart, at - 4096), at);
    if (dictionary.includes(FLATE)) yield pdf.subarray(dataStart, dataEnd);
    from = dictStart = end < 0 ? pdf.length : end + END_STREAM.length;
  }
}

/** Damaged streams are not counted: pdf.js cannot inflate them either. */
export async function checkPdfInflation(bytes: Uint8Array, limits: PdfInflationLimits = pdfInflationLimits(bytes.length)): Promise<PdfInflationCheck> {
  const pdf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let total = 0;
  let streams = 0;
  for (const data of flateStreams(pdf)) {
    const budget = Math.min(limits.maxStreamBytes, limits.maxTotalBytes - total);
    const size = await inflatedSize(data, budget, 'zlib');
    if (size === 'too_large') return { ok: false, reason: budget === limits.maxStreamBytes ? 'stream_too_large' : 'total_too_large' };
    if (size !== 'damaged') total += size;
    streams++;
  }
  return { ok: true, inflatedBytes: total, streams };
}
