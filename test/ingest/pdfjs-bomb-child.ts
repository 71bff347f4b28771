/**
 * Child process of pdfjs-stream-bound.test.ts: hands pdf.js a PDF whose page has a short content
 * stream and a 400 MB LZW one, without the check that would refuse it, and prints what pdf.js read
 * and the process's peak memory (which a sampler in the test's own process cannot see: pdf.js
 * decodes synchronously).
 */
import { getDocumentProxy } from 'unpdf';
import { lzwBomb, pdfWithContentStreams, textContent } from './pdf-fixture';

const pdf = pdfWithContentStreams([{ filter: '/LZWDecode', data: lzwBomb(400, textContent('Hello')) }]);
const started = performance.now();
const doc = await getDocumentProxy(new Uint8Array(pdf), { verbosity: 0, isEvalSupported: false, stopAtErrors: false });
const content = await (await doc.getPage(1)).getTextContent();
const text = content.items.map((item) => ('str' in item ? item.str : '')).join(' ');
console.log(JSON.stringify({ text, seconds: (performance.now() - started) / 1000, maxRssMb: process.resourceUsage().maxRSS / 1024 }));
