/**
 * pdf.js decodes each stream it reads whole and keeps it while it works on the page: a 400 KB PDF
 * whose one content stream inflates to 400 MB took 1 GB of memory and 9 s, and a 25 MB upload could
 * expand to gigabytes (Flate ~1000:1, LZW ~2500:1, RunLength 64:1). Before pdf.js sees a PDF, every
 * stream is decoded once here through its filter chain, counted and dropped, and the document is
 * refused past a per-stream or a whole-document budget.
 *
 * The scan reads the bytes as pdf.js may, not as the cross-reference table says: every `stream`
 * keyword after a dictionary starts a stream (an object hidden inside another stream's data is
 * counted too), filter names may be abbreviated ("/Fl") or #-escaped ("/Fl#61teDecode"), and a
 * stream runs to whichever is later of its /Length and its first `endstream`. A filter given by
 * reference is read from the object, written out in the file or stored in a compressed object
 * stream (decoded for the purpose, within OBJECT_STREAM_BUDGET); one that cannot be read either
 * way cannot be checked, and the document is refused.
 */
import { inflateWithin } from './inflated-size';
import { decodeAscii85, decodeAsciiHex, decodeLzw, decodeRunLength, type Decoded } from './pdf-filters';
import { PDFJS_MAX_STREAM_BYTES } from './pdfjs-stream-bound';

export type PdfInflationLimits = { maxStreamBytes: number; maxTotalBytes: number };
export type PdfInflationCheck =
  | { ok: true; inflatedBytes: number; streams: number }
  | { ok: false; reason: 'stream_too_large' | 'total_too_large' | 'unreadable_filter' | 'overlapping_streams' };

const MB = 1024 * 1024;

/** All of a PDF's streams together inflate to at most this many times the file's size... */
export const PDF_INFLATION_RATIO = 40;
/** ...and at most this much, whatever the file's size. */
export const PDF_MAX_TOTAL_BYTES = 1024 * MB;

/**
 * Budgets from the shared corpus's real PDFs: none inflates to more than 30 times its file size (a
 * table drawn as an image), the 619-page one to 11 MB (3.9 times). A scanned page stored losslessly
 * at 600 dpi is ~100 MB. One stream's limit (PDFJS_MAX_STREAM_BYTES, pdf.js's own bound) is also
 * the least a document gets in all: with a lower floor (64 MB) a small file's one big stream was
 * refused under a limit (64 or 100 MB) other than the 128 MB a stream is promised (issue 26).
 */
export function pdfInflationLimits(fileBytes: number): PdfInflationLimits {
  return {
    maxStreamBytes: PDFJS_MAX_STREAM_BYTES,
    maxTotalBytes: Math.min(PDF_MAX_TOTAL_BYTES, Math.max(PDFJS_MAX_STREAM_BYTES, PDF_INFLATION_RATIO * fileBytes)),
  };
}

type Filter = 'flate' | 'lzw' | 'runlength' | 'asciihex' | 'ascii85';
const FILTERS: Record<string, Filter> = {
  FlateDecode: 'flate',
  Fl: 'flate',
  LZWDecode: 'lzw',
  LZW: 'lzw',
  RunLengthDecode: 'runlength',
  RL: 'runlength',
  ASCIIHexDecode: 'asciihex',
  AHx: 'asciihex',
  ASCII85Decode: 'ascii85',
  A85: 'ascii85',
};

type PdfStream = {
  data: Buffer;
  filters: Filter[] | 'unreadable';
  earlyChange?: number;
  /** A compressed object stream's /N (objects held) and /First (offset of the first, in the decoded data). */
  objectStream?: { n: number; first: number };
};

/**
 * Decoded object streams are kept while their objects are indexed: at most this many bytes in all.
 * Real files' object streams hold dictionaries, a few hundred KB at most; past the budget a filter
 * reference into them stays unread and the document is refused as before.
 */
const OBJECT_STREAM_BUDGET = 64 * MB;

const STREAM_RE = /stream(?:\r\n|\n|\r)/g;
const END_STREAM = Buffer.from('endstream');

/** How far back a stream's dictionary may start (an inline colour table is ~1.5 KB). */
const MAX_DICTIONARY_CHARS = 16 * 1024;

/** The dictionary ending just before `end` (which holds its ">>"), found by balancing << and >>. */
function dictionaryBefore(text: string, end: number): string | undefined {
  let depth = 0;
  for (let i = end - 1; i > 0 && end - i < MAX_DICTIONARY_CHARS; i--) {
    if (text[i] === '>' && text[i - 1] === '>') (depth++, i--);
    else if (text[i] === '<' && text[i - 1] === '<') {
      depth--;
      i--;
      if (depth === 0) return text.slice(i, end);
    }
  }
  return undefined;
}

/** The first of the sorted `positions` at or after `from`, or -1. */
function firstAtOrAfter(positions: number[], from: number): number {
  let lo = 0;
  let hi = positions.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (positions[mid]! < from) lo = mid + 1;
    else hi = mid;
  }
  return lo < positions.length ? positions[lo]! : -1;
}

const unescapeName = (name: string) => name.replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/**
 * Where each object written out in the file starts, and the objects of compressed object streams
 * when they were decoded (`compressed`: object number -> its text; such objects have generation 0).
 */
class ObjectIndex {
  private offsets?: Map<string, number>;
  constructor(
    private readonly text: string,
    private readonly compressed?: ReadonlyMap<number, string>,
  ) {}

  /** The text after `num gen obj`: the start of its value. */
  value(num: string, gen: string): string | undefined {
    return this.written(num, gen) ?? (Number(gen) === 0 ? this.compressed?.get(Number(num)) : undefined);
  }

  private written(num: string, gen: string): string | undefined {
    if (!this.offsets) {
      this.offsets = new Map();
      for (const m of this.text.matchAll(/(?<![0-9])(\d+)\s+(\d+)\s+obj\b\s*/g)) {
        const key = `${Number(m[1])} ${Number(m[2])}`;
        if (!this.offsets.has(key)) this.offsets.set(key, m.index + m[0].length);
      }
    }
    const at = this.offsets.get(`${Number(num)} ${Number(gen)}`);
    return at === undefined ? undefined : this.text.slice(at, at + 4096);
  }
}

/** A /Filter value (a name, an array of names, or a reference to either) as the chain pdf.js decodes. */
function filterChain(objects: ObjectIndex, dictionary: string): Filter[] | 'unreadable' {
  const m = /\/Filter\s*(\[[^\]]*\]|\/[^\s/[\]<>()]+|\d+\s+\d+\s+R)/.exec(dictionary);
  if (!m) return [];
  let value = m[1]!;
  const ref = /^(\d+)\s+(\d+)\s+R$/.exec(value);
  if (ref) {
    const resolved = /^(\[[^\]]*\]|\/[^\s/[\]<>()]+)/.exec(objects.value(ref[1]!, ref[2]!) ?? '');
    if (!resolved) return 'unreadable';
    value = resolved[1]!;
  }
  const chain: Filter[] = [];
  for (const [, raw] of value.matchAll(/\/([^\s/[\]<>()]+)/g)) {
    const filter = FILTERS[unescapeName(raw!)];
    // Past an image filter (DCT, JPX, JBIG2, CCITT) the bytes are pixels: text extraction never
    // decodes them, and OCR's renders are bounded in ocr.ts.
    if (!filter) break;
    chain.push(filter);
  }
  return chain;
}

/** The stream's declared length, read through a reference when it is one. */
function declaredLength(objects: ObjectIndex, dictionary: string): number | undefined {
  const m = /\/Length\s+(\d+)(?:\s+(\d+)\s+R)?/.exec(dictionary);
  if (!m) return undefined;
  if (!m[2]) return Number(m[1]);
  const value = /^(\d+)/.exec(objects.value(m[1]!, m[2]) ?? '');
  return value ? Number(value[1]) : undefined;
}

const isWhite = (c: string | undefined) => c === ' ' || c === '\n' || c === '\r' || c === '\t' || c === '\f' || c === '\0';

/**
 * Every stream, as its data and filters. A well-formed file's dictionaries and stream data are read
 * once each; streams that overlap over and over (thousands of "stream" keywords and no
 * "endstream") would be read again for each, so past four times the file's size the scan stops
 * and says so ('overlapping').
 */
function* pdfStreams(pdf: Buffer, compressed?: ReadonlyMap<number, string>): Generator<PdfStream | 'overlapping'> {
  const text = pdf.toString('latin1');
  const objects = new ObjectIndex(text, compressed);
  const ends = [...text.matchAll(/endstream/g)].map((m) => m.index);
  const maxScanned = 4 * pdf.length + 1024 * 1024;
  let scanned = 0;
  for (const m of text.matchAll(STREAM_RE)) {
    const at = m.index;
    let dictEnd = at;
    while (dictEnd > 0 && at - dictEnd < 16 && isWhite(text[dictEnd - 1])) dictEnd--;
    if (text[dictEnd - 1] !== '>' || text[dictEnd - 2] !== '>') continue; // "endstream", "stream" in text
    const dictionary = dictionaryBefore(text, dictEnd);
    scanned += dictionary?.length ?? Math.min(dictEnd, MAX_DICTIONARY_CHARS);
    if (scanned > maxScanned) return void (yield 'overlapping');
    if (!dictionary) continue;
    const filters = filterChain(objects, dictionary);
    const dataStart = at + m[0].length;
    const found = firstAtOrAfter(ends, dataStart);
    const length = declaredLength(objects, dictionary);
    const dataEnd = Math.min(pdf.length, Math.max(found < 0 ? pdf.length : found, length === undefined ? 0 : dataStart + length));
    if (filters !== 'unreadable' && filters.length > 0) scanned += dataEnd - dataStart;
    if (scanned > maxScanned) return void (yield 'overlapping');
    const early = /\/EarlyChange\s+(\d)/.exec(dictionary);
    const objectStream = /\/Type\s*\/ObjStm\b/.test(dictionary) ? objectStreamLayout(dictionary) : undefined;
    yield { data: pdf.subarray(dataStart, dataEnd), filters, earlyChange: early ? Number(early[1]) : undefined, ...(objectStream ? { objectStream } : {}) };
  }
}

function objectStreamLayout(dictionary: string): { n: number; first: number } | undefined {
  const n = /\/N\s+(\d+)/.exec(dictionary);
  const first = /\/First\s+(\d+)/.exec(dictionary);
  return n && first ? { n: Number(n[1]), first: Number(first[1]) } : undefined;
}

/**
 * The objects of the file's compressed object streams, by number: each stream decoded through its
 * filter chain, its header of `number offset` pairs read, each object's text cut out (its first
 * 4,096 characters, as for written objects). Stops adding streams past OBJECT_STREAM_BUDGET.
 */
async function compressedObjects(pdf: Buffer, limits: PdfInflationLimits): Promise<Map<number, string>> {
  const objects = new Map<number, string>();
  let kept = 0;
  for (const stream of pdfStreams(pdf)) {
    if (stream === 'overlapping') break;
    if (!stream.objectStream || stream.filters === 'unreadable') continue;
    let bytes: Uint8Array = stream.data;
    for (const filter of stream.filters) {
      const out = await decode(filter, bytes, Math.min(limits.maxStreamBytes, OBJECT_STREAM_BUDGET - kept), true, stream.earlyChange);
      if (out === 'too_large') return objects;
      bytes = out.bytes!;
    }
    kept += bytes.length;
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    const { n, first } = stream.objectStream;
    const header = [...text.slice(0, first).matchAll(/\d+/g)].map((m) => Number(m[0]));
    for (let i = 0; i < n && 2 * i + 1 < header.length; i++) {
      const start = first + header[2 * i + 1]!;
      const end = 2 * i + 3 < header.length ? first + header[2 * i + 3]! : text.length;
      if (!objects.has(header[2 * i]!)) objects.set(header[2 * i]!, text.slice(start, Math.min(end, start + 4096)).trim());
    }
  }
  return objects;
}

async function decode(filter: Filter, data: Uint8Array, budget: number, keep: boolean, earlyChange?: number): Promise<Decoded> {
  switch (filter) {
    case 'flate': {
      const inflated = await inflateWithin(data, budget, 'zlib', keep);
      return inflated === 'too_large' ? inflated : { size: inflated.size, bytes: inflated.bytes };
    }
    case 'lzw': {
      if (earlyChange !== undefined || keep) return decodeLzw(data, budget, keep, earlyChange ?? 1);
      // Its parameters may be out of reach (a reference): whichever reading expands more.
      const [a, b] = [decodeLzw(data, budget, false, 1), decodeLzw(data, budget, false, 0)];
      return a === 'too_large' || b === 'too_large' ? 'too_large' : { size: Math.max(a.size, b.size) };
    }
    case 'runlength':
      return decodeRunLength(data, budget, keep);
    case 'asciihex':
      return decodeAsciiHex(data, budget, keep);
    case 'ascii85':
      return decodeAscii85(data, budget, keep);
  }
}

export async function checkPdfInflation(bytes: Uint8Array, limits: PdfInflationLimits = pdfInflationLimits(bytes.length)): Promise<PdfInflationCheck> {
  const pdf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const check = await countInflation(pdf, limits);
  // A filter given by reference may be an object of a compressed object stream: read them and look again.
  if (!check.ok && check.reason === 'unreadable_filter') return countInflation(pdf, limits, await compressedObjects(pdf, limits));
  return check;
}

async function countInflation(pdf: Buffer, limits: PdfInflationLimits, compressed?: ReadonlyMap<number, string>): Promise<PdfInflationCheck> {
  let total = 0;
  let streams = 0;
  for (const stream of pdfStreams(pdf, compressed)) {
    if (stream === 'overlapping') return { ok: false, reason: 'overlapping_streams' };
    if (stream.filters === 'unreadable') return { ok: false, reason: 'unreadable_filter' };
    let input: Uint8Array = stream.data;
    for (const [i, filter] of stream.filters.entries()) {
      // pdf.js holds every stage of a chain: each counts.
      const budget = Math.min(limits.maxStreamBytes, limits.maxTotalBytes - total);
      const keep = i < stream.filters.length - 1;
      const out = await decode(filter, input, budget, keep, stream.earlyChange);
      if (out === 'too_large') return { ok: false, reason: budget === limits.maxStreamBytes ? 'stream_too_large' : 'total_too_large' };
      total += out.size;
      if (keep) input = out.bytes!;
    }
    if (stream.filters.length > 0) streams++;
  }
  return { ok: true, inflatedBytes: total, streams };
}
