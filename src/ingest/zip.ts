/**
 * Lists the entries of a ZIP archive from its central directory, without inflating anything
 * (enough to tell a DOCX from any other ZIP), and measures what members really inflate to,
 * streaming, without trusting the sizes the archive declares: a member that claims 1 KB but
 * inflates to 400 MB is cut off at the budget having held one 16 KB chunk at a time.
 */
import { Inflate } from 'fflate';
import { PermanentIngestError } from './errors';
import { inflatedSize } from './inflated-size';

export interface ZipEntry {
  name: string;
  compressedSize: number;
  /** As declared by the archive: not to be trusted for anything that matters. */
  uncompressedSize: number;
  /** 0 stored, 8 deflate (the only two DOCX writers use). */
  method: number;
  localHeaderOffset: number;
}

const LOCAL_SIGNATURE = 0x04034b50;

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const EOCD_MIN = 22;
const MAX_COMMENT = 0xffff;

export function isZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && (bytes[2] === 3 || bytes[2] === 5) && (bytes[3] === 4 || bytes[3] === 6);
}

/** The entries, or undefined when the central directory cannot be found or read (damaged zip). */
export function listZipEntries(bytes: Uint8Array): ZipEntry[] | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const stop = Math.max(0, bytes.length - EOCD_MIN - MAX_COMMENT);
  let eocd = -1;
  for (let i = bytes.length - EOCD_MIN; i >= stop; i--) {
    if (view.getUint32(i, true) === EOCD_SIGNATURE) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return undefined;

  const count = view.getUint16(eocd + 10, true);
  let offset = view.getUint32(eocd + 16, true);
  // ZIP64 archives mark these fields 0xFFFF/0xFFFFFFFF; a DOCX never needs ZIP64, so we stop here.
  if (count === 0xffff || offset === 0xffffffff) return undefined;

  const entries: ZipEntry[] = [];
  const decoder = new TextDecoder('utf-8');
  for (let n = 0; n < count; n++) {
    if (offset + 46 > bytes.length || view.getUint32(offset, true) !== CENTRAL_SIGNATURE) return undefined;
    const method = view.getUint16(offset + 10, true);
    const compressedSize = view.getUint32(offset + 20, true);
    const uncompressedSize = view.getUint32(offset + 24, true);
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    const localHeaderOffset = view.getUint32(offset + 42, true);
    const nameEnd = offset + 46 + nameLength;
    if (nameEnd > bytes.length) return undefined;
    entries.push({ name: decoder.decode(bytes.subarray(offset + 46, nameEnd)), compressedSize, uncompressedSize, method, localHeaderOffset });
    offset = nameEnd + extraLength + commentLength;
  }
  return entries;
}

export type InflateCheck = { ok: true; inflatedBytes: number } | { ok: false; reason: 'too_large' | 'damaged'; entry?: string };

/** The compressed bytes of one member, located through its local header. */
function memberData(bytes: Uint8Array, entry: ZipEntry): Uint8Array | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = entry.localHeaderOffset;
  if (at + 30 > bytes.length || view.getUint32(at, true) !== LOCAL_SIGNATURE) return undefined;
  const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
  if (start + entry.compressedSize > bytes.length) return undefined;
  return bytes.subarray(start, start + entry.compressedSize);
}

/**
 * Checks that the members `include` selects inflate to at most `maxTotalBytes` together, measured
 * while inflating. Call it before handing the archive to a library that inflates members whole
 * (JSZip, under mammoth). Costs one extra inflation of the selected members.
 */
export async function checkInflatedSize(
  bytes: Uint8Array,
  maxTotalBytes: number,
  include: (entry: ZipEntry) => boolean = () => true,
): Promise<InflateCheck> {
  const entries = listZipEntries(bytes);
  if (!entries) return { ok: false, reason: 'damaged' };
  let total = 0;
  for (const entry of entries) {
    if (!include(entry) || entry.name.endsWith('/')) continue;
    const data = memberData(bytes, entry);
    if (!data) return { ok: false, reason: 'damaged', entry: entry.name };
    const budget = maxTotalBytes - total;
    let size: number | 'too_large' | 'damaged';
    if (entry.method === 0) size = data.length > budget ? 'too_large' : data.length;
    else if (entry.method === 8) size = await inflatedSize(data, budget);
    else size = 'damaged';
    if (typeof size !== 'number') return { ok: false, reason: size, entry: entry.name };
    total += size;
  }
  return { ok: true, inflatedBytes: total };
}

/** How far into an XML part a DOCTYPE may stand: after the declaration and a comment or two. */
const PROLOG_BYTES = 4096;

/**
 * The first XML part of the archive that declares a DOCTYPE, or null. Word never writes one; in a
 * DOCX it is an entity trick (expansion, or an external entity the XML parser refuses), so such a
 * file is refused by name instead of failing later as "damaged" (issue 26). Only each part's first
 * 4 KB is inflated.
 */
export function xmlPartWithDoctype(bytes: Uint8Array, entries: ZipEntry[] | undefined = listZipEntries(bytes)): string | null {
  for (const entry of entries ?? []) {
    if (!/\.(xml|rels)$/i.test(entry.name)) continue;
    const data = memberData(bytes, entry);
    if (!data) continue;
    let head: Uint8Array = data.subarray(0, PROLOG_BYTES);
    if (entry.method === 8) {
      const out: Uint8Array[] = [];
      let size = 0;
      try {
        const inflate = new Inflate((chunk) => {
          out.push(chunk);
          size += chunk.length;
        });
        for (let i = 0; i < data.length && size < PROLOG_BYTES; i += 1024) inflate.push(data.subarray(i, i + 1024), i + 1024 >= data.length);
      } catch {
        // A damaged stream is the DOCX reader's to report.
      }
      head = Buffer.concat(out).subarray(0, PROLOG_BYTES);
    } else if (entry.method !== 0) continue;
    if (/<!DOCTYPE/i.test(Buffer.from(head.buffer, head.byteOffset, head.byteLength).toString('latin1'))) return entry.name;
  }
  return null;
}

/** Word never writes a DOCTYPE: one is an entity trick, refused by name rather than called damaged. */
export const doctypeRefusal = (part: string): PermanentIngestError =>
  new PermanentIngestError('docx_doctype', `The DOCX file declares a DOCTYPE (in ${part}), which Word never writes and which can hide entity expansion; the file is refused. Save it again from Word and upload it.`);

