/**
 * pdf.js itself stops decoding a stream past PDFJS_MAX_STREAM_BYTES (src/ingest/pdfjs-stream-bound.ts,
 * applied by `npm install`), for bombs the check before it cannot read, such as an encrypted PDF's
 * streams. Without the bound, the child's 400 MB LZW stream peaked at 1.15 GB of RSS (3.2 s); with
 * it, 290 MB (0.6 s).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { isPdfjsBounded } from '../../src/ingest/pdfjs-stream-bound';

describe('pdf.js stream bound', () => {
  it('is applied to the installed pdf.js', () => {
    expect(isPdfjsBounded()).toBe(true);
  });

  it('keeps pdf.js under 500 MB when it is handed a 400 MB stream directly', async () => {
    const child = path.join(import.meta.dirname, 'pdfjs-bomb-child.ts');
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', child], { cwd: path.resolve(import.meta.dirname, '../..') });
    const { maxRssMb } = JSON.parse(stdout.trim().split('\n').at(-1)!) as { maxRssMb: number };
    expect(maxRssMb).toBeLessThan(500);
  }, 60_000);
});
