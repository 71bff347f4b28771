/**
 * A page may declare any size: a 70 x 70-inch scanned page rendered at OCR's 144 dpi is a
 * 10,000-pixel-square canvas, and reading it grew RSS by 1.7 GB. Renders are scaled down to
 * MAX_RENDER_PIXELS instead.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_RENDER_PIXELS, renderScale, stopOcr } from '../../src/ingest/ocr';
import { parsePdf } from '../../src/ingest/parse-pdf';
import { imageOnlyContent, pdfWithContentStreams } from './pdf-fixture';

afterAll(() => stopOcr());

describe('OCR render bounds', () => {
  it('keeps 144 dpi for ordinary pages and scales giant ones down to the pixel budget', () => {
    expect(renderScale(595, 842)).toBe(2);
    const scale = renderScale(14_400, 14_400);
    expect(scale).toBeLessThan(0.3);
    expect((14_400 * scale) ** 2).toBeLessThanOrEqual(MAX_RENDER_PIXELS * 1.0001);
  });

  it('reads a scanned page with a 70-inch MediaBox (1.7 GB before the bound) without allocating its full-resolution canvas', async () => {
    const pdf = pdfWithContentStreams([imageOnlyContent(5_000, 5_000)], { mediaBox: [5_000, 5_000] });
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const outcome = await parsePdf(pdf, { ocrMaxPages: 1 }).then(
      () => 'parsed',
      (e: { code?: string }) => e.code,
    );
    clearInterval(sampler);
    // A grey page holds no text: the honest outcome is no_text, reached without the 3.3 GB canvas.
    expect(outcome).toBe('no_text');
    expect((peak - before) / (1024 * 1024)).toBeLessThan(600);
  }, 120_000);
});
