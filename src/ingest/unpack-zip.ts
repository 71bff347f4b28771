/**
 * Unpacks a ZIP of documents for bulk upload, safely:
 *  - sizes are measured while inflating, never taken from the headers (which can lie): an entry
 *    stops at the per-file limit, the archive at its total inflated limit and entry count;
 *  - nothing is written to disk, and entry names that climb out of the archive (`../`, absolute
 *    paths, drive letters) are refused all the same, since the name becomes the document's;
 *  - archives inside the archive are refused (no recursion, no zip-of-zips bomb);
 *  - hidden and system files (`__MACOSX/`, `.DS_Store`, dot files, `Thumbs.db`) are skipped;
 *  - an entry that inflates to more than `maxRatio` times the compressed bytes it was fed (once past
 *    RATIO_GRACE_BYTES) is refused there, as Apache POI's ZipSecureFile refuses below a 1 % inflate
 *    ratio: a bomb's 20 MB of one character (~1,000:1) stops after 1 MB, not after 20 MB of CPU.
 * Entries come back in archive order, each with its bytes or the reason it was not taken.
 */
import { Unzip, UnzipInflate, type FlateError, type UnzipFile } from 'fflate';
import { extensionOf } from './detect-type';
import { isZip, listZipEntries } from './zip';

export type ZipLimits = {
  maxEntryBytes: number;
  maxEntries: number;
  maxInflatedBytes: number;
  /** Inflated bytes per compressed byte above which an entry is refused (default MAX_INFLATE_RATIO). */
  maxRatio?: number;
};

/**
 * Text deflates 3–10:1 and documents (PDF, DOCX) about 1:1; deflate's own ceiling is ~1,032:1,
 * where only repetition gets. 100:1 is POI's default limit for the same check.
 */
export const MAX_INFLATE_RATIO = 100;
/** What an entry may inflate to before its ratio counts: small files of repeated text stay welcome. */
const RATIO_GRACE_BYTES = 1024 * 1024;

export type UnpackedEntry =
  | { name: string; status: 'file'; bytes: Buffer }
  | { name: string; status: 'refused'; code: 'invalid_input' | 'payload_too_large' | 'unsupported_media_type'; reason: string }
  | { name: string; status: 'skipped'; reason: string }
  /** Not inflated: the caller's `inflate` said no (unpackZipEntries). */
  | { name: string; status: 'unread' };

const SYSTEM_FILES = new Set(['thumbs.db', 'desktop.ini', 'icon\r']);
const MB = 1024 * 1024;

/** A ZIP that is an archive of files, not a document that happens to be a ZIP (DOCX, XLSX, ODT). */
export function isDocumentArchive(bytes: Uint8Array, filename: string): boolean {
  if (!isZip(bytes) || extensionOf(filename) === 'docx') return false;
  const entries = listZipEntries(bytes);
  if (!entries) return extensionOf(filename) === 'zip';
  const names = new Set(entries.map((e) => e.name));
  const office = names.has('word/document.xml') || names.has('xl/workbook.xml') || names.has('mimetype') || entries.some((e) => e.name.startsWith('ppt/'));
  return !office;
}

function unsafeName(name: string): boolean {
  const n = name.replace(/\\/g, '/');
  return n.startsWith('/') || /^[a-zA-Z]:/.test(n) || n.split('/').some((s) => s === '..') || n.includes('\0');
}

function hiddenOrSystem(name: string): boolean {
  const segments = name.replace(/\\/g, '/').split('/').filter(Boolean);
  return segments.some((s) => s.startsWith('.') || s === '__MACOSX') || SYSTEM_FILES.has((segments.at(-1) ?? '').toLowerCase());
}

function nestedArchive(bytes: Buffer, name: string): boolean {
  if (isZip(bytes)) return isDocumentArchive(bytes, name);
  const gzip = bytes[0] === 0x1f && bytes[1] === 0x8b;
  const sevenZip = bytes.subarray(0, 6).equals(Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]));
  const rar = bytes.subarray(0, 4).toString('latin1') === 'Rar!';
  const tar = bytes.subarray(257, 262).toString('latin1') === 'ustar';
  const bzip2 = bytes.subarray(0, 3).toString('latin1') === 'BZh';
  const xz = bytes.subarray(0, 6).equals(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]));
  return gzip || sevenZip || rar || tar || bzip2 || xz;
}

/**
 * fflate's UnzipInflate cannot be stopped: a refused member went on inflating to its end (300 MB of
 * CPU and memory for a 300 KB bomb). This one drops its input once terminated.
 */
class StoppableInflate {
  static compression = 8;
  ondata: (err: FlateError | null, data: Uint8Array, final: boolean) => void = () => {};
  private readonly inner = new UnzipInflate();
  private stopped = false;
  /** Compressed bytes fed so far (some perhaps not yet inflated: the ratio errs low, never high). */
  compressedIn = 0;
  constructor() {
    this.inner.ondata = (err, data, final) => {
      if (!this.stopped) this.ondata(err, data, final);
    };
    StoppableInflate.latest = this;
  }
  /** The instance the last `file.start()` made: fflate gives the entry no handle on its decoder. */
  static latest: StoppableInflate | null = null;
  push(data: Uint8Array, final: boolean) {
    this.compressedIn += data.length;
    if (!this.stopped) this.inner.push(data, final);
  }
  terminate() {
    this.stopped = true;
  }
}

/**
 * The archive is fed in slices: fflate inflates what one push gives it into one buffer, and deflate
 * inflates up to ~1,000 times, so a slice of 4 KB makes at most ~4 MB (~25 ms) before a limit can
 * stop it or the caller gets a turn. 16 KB slices made ~16 MB a push; inflating a ZIP of ten 20 MB
 * one-character files then stalled the web thread for 0.8–0.9 s at a time under the hostile bench,
 * while another organisation's requests waited (issue 26). Smaller slices cost a ZIP of 40 real
 * documents (9.5 MB) 0.41–0.64 s instead of 0.29–0.37 s; 1 KB slices cost 1.2 s.
 */
const SLICE = 4 * 1024;
/** Inflating time after which the entries generator yields `null`: the caller's cue to let its event loop run. */
const TURN_MS = 8;

export function unpackZip(archive: Uint8Array, limits: ZipLimits): { entries: UnpackedEntry[]; damaged: boolean } {
  const entries: UnpackedEntry[] = [];
  const unpacking = unpackZipEntries(archive, limits);
  for (let next = unpacking.next(); ; next = unpacking.next()) {
    if (next.done) return { entries, damaged: next.value.damaged };
    if (next.value) entries.push(next.value);
  }
}

/**
 * The entries one at a time, each inflated only when the caller asks for the next one: a bulk
 * upload holds one file's bytes at a time, not the whole archive's (a 1 MB ZIP of ten 20 MB files
 * held 200 MB, and as much again in the pieces it was joined from, issue 26). `inflate` is asked
 * as each entry is reached: false lists the entry as `unread`, without inflating it (a request past
 * its time budget names the files it did not process without spending the time to inflate them).
 * Between slices, inside an entry too, it yields `null` every TURN_MS of inflating: an async caller
 * awaits a turn of its event loop there, so one big entry never holds the loop for its whole inflation.
 */
export function* unpackZipEntries(
  archive: Uint8Array,
  limits: ZipLimits,
  inflate: () => boolean = () => true,
): Generator<UnpackedEntry | null, { damaged: boolean }, void> {
  const ready: UnpackedEntry[] = [];
  const maxRatio = limits.maxRatio ?? MAX_INFLATE_RATIO;
  let inflated = 0;
  let files = 0;
  let damaged = false;
  const unzip = new Unzip();
  unzip.register(StoppableInflate);
  unzip.onfile = (file: UnzipFile) => {
    const name = file.name;
    if (name.endsWith('/')) return; // a directory
    if (unsafeName(name)) {
      ready.push({ name, status: 'refused', code: 'invalid_input', reason: 'The entry name points outside the archive' });
      return;
    }
    if (hiddenOrSystem(name)) {
      ready.push({ name, status: 'skipped', reason: 'Hidden or system file' });
      return;
    }
    if (++files > limits.maxEntries) {
      ready.push({ name, status: 'refused', code: 'payload_too_large', reason: `The archive has more than ${limits.maxEntries} files` });
      return;
    }
    if (inflated >= limits.maxInflatedBytes) {
      ready.push({ name, status: 'refused', code: 'payload_too_large', reason: `The archive inflates to more than ${Math.round(limits.maxInflatedBytes / MB)} MB` });
      return;
    }
    if (!inflate()) {
      ready.push({ name, status: 'unread' });
      return;
    }
    const parts: Uint8Array[] = [];
    let size = 0;
    let settled = false;
    let decoder: StoppableInflate | null = null;
    const refuse = (code: 'payload_too_large' | 'invalid_input', reason: string) => {
      settled = true;
      parts.length = 0;
      ready.push({ name, status: 'refused', code, reason });
      try {
        file.terminate();
      } catch {
        // already finished
      }
    };
    file.ondata = (err, chunk, final) => {
      if (settled) return;
      if (err) return refuse('invalid_input', 'The entry cannot be read (damaged or encrypted)');
      size += chunk.length;
      inflated += chunk.length;
      if (size > limits.maxEntryBytes) return refuse('payload_too_large', `The file exceeds the upload limit of ${Math.round(limits.maxEntryBytes / MB)} MB`);
      if (decoder && size > RATIO_GRACE_BYTES && size > maxRatio * decoder.compressedIn) {
        return refuse('payload_too_large', `The file inflates to more than ${maxRatio} times its compressed size, as ZIP bombs do, so it was not unpacked; upload it on its own`);
      }
      if (inflated > limits.maxInflatedBytes) {
        return refuse('payload_too_large', `The archive inflates to more than ${Math.round(limits.maxInflatedBytes / MB)} MB`);
      }
      parts.push(chunk);
      if (final) {
        settled = true;
        const bytes = Buffer.concat(parts);
        parts.length = 0;
        if (nestedArchive(bytes, name)) ready.push({ name, status: 'refused', code: 'unsupported_media_type', reason: 'Archives inside the archive are not unpacked' });
        else ready.push({ name, status: 'file', bytes });
      }
    };
    try {
      StoppableInflate.latest = null;
      file.start();
      decoder = StoppableInflate.latest; // null for a stored (uncompressed) entry: its ratio is 1
    } catch {
      if (!settled) refuse('invalid_input', 'The entry uses a compression method that is not supported');
    }
  };
  // Entries are handed out between slices, so what one slice completes is all that waits here.
  function* handOut(): Generator<UnpackedEntry, void, void> {
    for (let i = 0; i < ready.length; i++) {
      const entry = ready[i]!;
      ready[i] = undefined as never; // the caller's copy is the only one left
      yield entry;
    }
    ready.length = 0;
  }
  try {
    if (archive.length === 0) unzip.push(archive, true);
    let turnStart = performance.now();
    for (let i = 0; i < archive.length; i += SLICE) {
      unzip.push(archive.subarray(i, i + SLICE), i + SLICE >= archive.length);
      yield* handOut();
      if (performance.now() - turnStart >= TURN_MS) {
        yield null;
        turnStart = performance.now();
      }
    }
  } catch {
    damaged = true;
  }
  yield* handOut();
  return { damaged };
}
