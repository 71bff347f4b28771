/**
 * pdf.js grows a decoded stream's buffer for as long as the stream yields bytes. The check before
 * it (pdf-inflation.ts) refuses the bombs it can decode, but an encrypted PDF's streams are
 * ciphertext to it, and pdf.js may read a file in ways a byte scan does not foresee. So pdf.js
 * itself is bounded: this rewrites `DecodeStream.ensureBuffer` (every decoder's buffer: Flate, LZW,
 * RunLength, predictors, concatenated content streams) in unpdf's bundle of pdf.js to throw past
 * PDFJS_MAX_STREAM_BYTES. pdf.js (stopAtErrors off) then drops that stream's content and keeps the
 * rest of the page.
 *
 * Run by `npm install` (postinstall); idempotent; fails the install if the bundle no longer has the
 * code it rewrites (unpdf is pinned for that reason).
 *   node --import tsx src/ingest/pdfjs-stream-bound.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLED } from '../repo-root';

/** One stream's decoded bytes, here and in the check before pdf.js (pdfInflationLimits). */
export const PDFJS_MAX_STREAM_BYTES = 128 * 1024 * 1024;

const ORIGINAL = 'ensureBuffer(e){const n=this.buffer;if(e<=n.byteLength)return n;';
const BOUNDED = `${ORIGINAL}if(e>${PDFJS_MAX_STREAM_BYTES})throw new Error("A decoded stream exceeds ${PDFJS_MAX_STREAM_BYTES} bytes.");`;

/** unpdf's `./pdfjs` export, beside its CommonJS entry (the export itself resolves for `import` only). */
export function pdfjsBundlePath(): string {
  return path.join(path.dirname(createRequire(import.meta.url).resolve('unpdf')), 'pdfjs.mjs');
}

export function isPdfjsBounded(file = pdfjsBundlePath()): boolean {
  return readFileSync(file, 'utf8').includes(BOUNDED);
}

export function boundPdfjsStreams(file = pdfjsBundlePath()): 'bounded' | 'already bounded' {
  const source = readFileSync(file, 'utf8');
  if (source.includes(BOUNDED)) return 'already bounded';
  const at = source.indexOf(ORIGINAL);
  if (at < 0 || source.indexOf(ORIGINAL, at + 1) >= 0) {
    throw new Error(`${file}: DecodeStream.ensureBuffer is not where it was in unpdf 1.7.0; update src/ingest/pdfjs-stream-bound.ts`);
  }
  writeFileSync(file, source.replace(ORIGINAL, BOUNDED));
  return 'bounded';
}

if (!BUNDLED && process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(`pdf.js stream buffers: ${boundPdfjsStreams()}`);
}
