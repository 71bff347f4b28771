import { describe, expect, it } from 'vitest';
import { PermanentIngestError } from '../../src/ingest/errors';
import { parseHtml } from '../../src/ingest/parse-html';
import { readDoc } from './corpus';
import { cpuMsOf } from '../infra/cpu-time';

const URL = 'https://example.com/page';
const textOf = (sections: Array<{ text: string }>): string => sections.map((s) => s.text).join('\n');

describe('parseHtml', () => {
  it('extracts an article and its heading paths, tagging every section with the URL', () => {
    const html = `<!doctype html><html><head><title>Leave | Acme</title><script>var x = "never indexed";</script></head><body>
      <nav><a href="/">Home</a> <a href="/about">About</a></nav>
      <article><h1>Leave policy</h1>
        <p>${'Everyone gets twenty-five days of annual leave per year, plus public holidays. '.repeat(6)}</p>
        <h2>Carry-over</h2><p>${'Up to five unused days can be carried over into the next year. '.repeat(5)}</p>
        <ul><li>Ask your manager</li><li>Record it in the HR tool</li></ul>
      </article><footer>© Acme</footer></body></html>`;
    const doc = parseHtml(html, URL);
    expect(doc.sections.every((s) => s.url === URL)).toBe(true);
    const text = textOf(doc.sections);
    expect(text).toContain('twenty-five days of annual leave');
    expect(text).not.toContain('never indexed');
    expect(text).not.toContain('© Acme');
    expect(doc.sections.find((s) => s.text.startsWith('Up to five'))?.headingPath.at(-1)).toBe('Carry-over');
    expect(doc.sections.find((s) => s.text.startsWith('- Ask'))?.text).toBe('- Ask your manager\n- Record it in the HR tool');
  });

  it('falls back to the whole page when Readability keeps only a fragment', () => {
    const doc = parseHtml(readDoc('ideas-page.html'), URL);
    expect(doc.title).toBe('How to Get New Ideas');
    const text = textOf(doc.sections);
    expect(text).toContain('The way to get new ideas is to notice anomalies');
    expect(text).toContain('Knowledge grows fractally');
  });

  it('reads UTF-16 and UTF-8 versions of a page identically', () => {
    const utf8 = parseHtml(readDoc('example-steelJIS-datasheet.html'), URL);
    const utf16 = parseHtml(readDoc('example-steelJIS-datasheet-utf-16.html'), URL);
    expect(utf16).toEqual(utf8);
    expect(textOf(utf8.sections)).toContain('SNB22-3');
    expect(textOf(utf8.sections)).toContain('日本語');
  });

  it('decodes cp1252 pages and keeps pre-formatted text', () => {
    const cp1252 = parseHtml(readDoc('fake-html-cp1252.html'), URL);
    expect(textOf(cp1252.sections)).toContain('Die schöne Frau hat einen Kaffee mit Kuchen gegessen');
    expect(textOf(cp1252.sections)).toContain('15,50 €');
    const pre = parseHtml(readDoc('fake-html-pre.htm'), URL);
    expect(pre.sections[0]?.text).toMatch(/^\[107th Congress Public Law 56\]\n\[From the U\.S\. Government Printing Office\]/);
  });

  it('uses the declared charset, or the HTTP one', () => {
    const body = '<p>Gr\u00fc\u00dfe aus M\u00fcnchen, sch\u00f6ne Gr\u00fc\u00dfe, bis bald.</p>';
    const latin1 = Buffer.from(`<html><head><meta charset="iso-8859-1"></head><body>${body}</body></html>`, 'latin1');
    expect(textOf(parseHtml(latin1, URL).sections)).toContain('Grüße aus München');
    const undeclared = Buffer.from(`<html><body>${body}</body></html>`, 'latin1');
    expect(textOf(parseHtml(undeclared, URL, { charset: 'windows-1252' }).sections)).toContain('schöne Grüße');
  });

  it('reads a 10-K page with data tables', () => {
    const doc = parseHtml(readDoc('example-10k-1p.html'), URL);
    const text = textOf(doc.sections);
    expect(text).toContain('Galaxy Gaming, Inc.');
    expect(text).toContain('TRANSITION REPORT PURSUANT TO SECTION 13 OR 15(d)');
  });

  it('skips scripts in a script-heavy page', () => {
    const doc = parseHtml(readDoc('example-with-scripts.html'), URL);
    expect(doc.title).toBe('Institute for the Study of War');
    const text = textOf(doc.sections);
    expect(text).toContain('Belarusian forces remain unlikely to attack Ukraine');
    expect(text).not.toMatch(/function\s*\(|var\s+\w+\s*=/);
  });

  it('survives tables with absurd spans', () => {
    const rows = Array.from({ length: 600 }, (_, i) => `<tr><td rowspan="65534" colspan="1000">cell ${i}</td><td>v${i}</td></tr>`).join('');
    // Expanding every span would be 39 million cells (minutes of CPU); bounded, it is well under a second.
    const { value: doc, cpuMs } = cpuMsOf(() => parseHtml(`<html><body><table>${rows}</table></body></html>`, URL));
    expect(cpuMs).toBeLessThan(10_000);
    expect(textOf(doc.sections)).toContain('cell 0');
  });

  it('refuses a page without text', () => {
    expect(() => parseHtml('<html><body><script>x()</script><img src="a.png"></body></html>', URL)).toThrow(PermanentIngestError);
  });
});
