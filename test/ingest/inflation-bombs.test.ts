/**
 * Archive members are bounded by what they really inflate to, measured while inflating: a 400 KB
 * DOCX whose styles.xml inflates to 400 MB, or one that declares document.xml as 1 KB and inflates
 * it to 400 MB, fails as too_large without the inflated bytes ever being held (before: memory went
 * from 0.6 to 2.2 GB). Ordinary deflated documents still parse.
 */
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseDocx } from '../../src/ingest/parse-docx';
import { unpackZip } from '../../src/ingest/unpack-zip';
import { checkInflatedSize } from '../../src/ingest/zip';
import { deflateBomb, documentXml, makeDocx, makeZip } from './zip-fixture';

const MB = 1024 * 1024;
const deflated = (text: string) => ({ deflated: deflateRawSync(Buffer.from(text)), declaredSize: Buffer.byteLength(text) });

async function refusal(bytes: Uint8Array) {
  const before = process.memoryUsage().rss;
  const error = await parseDocx(bytes).then(
    () => null,
    (e: { code?: string }) => e,
  );
  return { error, grewMb: (process.memoryUsage().rss - before) / MB };
}

describe('decompression bombs', () => {
  it('refuses a DOCX whose styles.xml inflates to 400 MB (honestly declared)', async () => {
    const bomb = makeDocx(deflated(documentXml([{ text: 'Hello' }])), { 'word/styles.xml': { deflated: deflateBomb(400), declaredSize: 400 * MB } });
    expect(bomb.length).toBeLessThan(600 * 1024);
    const { error, grewMb } = await refusal(bomb);
    expect(error?.code).toBe('too_large');
    expect(grewMb).toBeLessThan(150);
  });

  it('refuses a DOCX that declares document.xml as 1 KB and inflates it to 400 MB', async () => {
    const bomb = makeDocx({ deflated: deflateBomb(400, 'a'), declaredSize: 1024 });
    const { error, grewMb } = await refusal(bomb);
    expect(error?.code).toBe('too_large');
    expect(grewMb).toBeLessThan(150);
  });

  it('measures while inflating: the check stops just past the budget', async () => {
    const zip = makeDocx({ deflated: deflateBomb(50), declaredSize: 10 });
    expect(await checkInflatedSize(zip, 8 * MB)).toMatchObject({ ok: false, reason: 'too_large', entry: 'word/document.xml' });
    const ok = await checkInflatedSize(zip, 60 * MB);
    expect(ok.ok && ok.inflatedBytes).toBeGreaterThanOrEqual(50 * MB);
  });

  it('still parses an ordinary deflated DOCX', async () => {
    const docx = makeDocx(deflated(documentXml([{ text: 'Refunds are issued within 14 days.' }])));
    const parsed = await parseDocx(docx);
    expect(parsed.sections.map((s) => s.text).join(' ')).toContain('Refunds are issued within 14 days.');
  });

  it('stops inflating a bulk-upload ZIP member at the per-file limit: a 300 MB member neither fills memory nor counts against the next file', () => {
    const archive = makeZip({ 'bomb.txt': { deflated: deflateBomb(300), declaredSize: 10 }, 'next.txt': 'hello' });
    const before = process.memoryUsage().rss;
    const { entries } = unpackZip(archive, { maxEntryBytes: 25 * 1024 * 1024, maxEntries: 1000, maxInflatedBytes: 200 * 1024 * 1024 });
    const grownMb = (process.memoryUsage().rss - before) / (1024 * 1024);
    expect(entries.map((e) => [e.name, e.status])).toEqual([['bomb.txt', 'refused'], ['next.txt', 'file']]);
    // fflate inflated the whole member at once before (628 MB); now 16 KB slices, dropped once refused.
    expect(grownMb).toBeLessThan(200);
  });
});
