import { describe, expect, it } from 'vitest';
import { parseMarkdown, parseMarkdownText } from '../../src/ingest/parse-markdown';
import { readDoc } from './corpus';

describe('parseMarkdown', () => {
  it('keeps the heading path of every block', () => {
    const doc = parseMarkdownText(
      ['# Guide', 'Intro.', '## Install', 'Run it.', '### On Linux', 'Use apt.', '## Use', 'Call it.'].join('\n\n'),
    );
    expect(doc.title).toBe('Guide');
    expect(doc.sections).toEqual([
      { text: 'Intro.', headingPath: ['Guide'] },
      { text: 'Run it.', headingPath: ['Guide', 'Install'] },
      { text: 'Use apt.', headingPath: ['Guide', 'Install', 'On Linux'] },
      { text: 'Call it.', headingPath: ['Guide', 'Use'] },
    ]);
  });

  it('keeps code blocks verbatim, fences and indentation included', () => {
    const doc = parseMarkdown(readDoc('codeblock.md'));
    expect(doc.sections[0]?.headingPath).toEqual(['HTML Example']);
    expect(doc.sections[0]?.text).toMatch(/^```html\n<!DOCTYPE html>\n/);
    expect(doc.sections[0]?.text).toContain('\n    <meta charset="UTF-8">\n');
    expect(doc.sections[1]).toMatchObject({ headingPath: ['XML Example'], text: expect.stringContaining('<to>Tove</to>') });
  });

  it('turns GFM tables into header-named rows', () => {
    const doc = parseMarkdown(readDoc('simple-table.md'));
    expect(doc.sections).toEqual([
      {
        text: 'Item | Price | # In stock\nItem: Juicy Apples | Price: 1.99 | # In stock: 739\nItem: Bananas | Price: 1.89 | # In stock: 6',
        headingPath: [],
      },
    ]);
  });

  it('decodes a latin1 file', () => {
    const doc = parseMarkdown(readDoc('umlauts-non-utf8.md'));
    expect(doc.sections.map((s) => s.text)).toEqual(['können', 'äöüß']);
    expect(doc.sections[0]?.headingPath).toEqual(['können']);
  });

  it('renders lists, task items, quotes and inline HTML as text; skips images', () => {
    const doc = parseMarkdownText(
      [
        '- [x] done',
        '- [ ] todo\n  - nested',
        '',
        '3. third',
        '4. fourth',
        '',
        '> quoted *text*',
        '',
        '<div align="center"><b>Bold</b> &amp; html</div>',
        '',
        'See ![logo](logo.png) `code` and [a link](https://example.com).',
      ].join('\n'),
    );
    expect(doc.sections.map((s) => s.text)).toEqual([
      '- [x] done\n- [ ] todo\n  - nested',
      '3. third\n4. fourth',
      'quoted text',
      'Bold & html',
      'See code and a link.',
    ]);
  });

  it('takes the title from front matter and does not index it', () => {
    const doc = parseMarkdownText('---\ntitle: "Leave policy"\nowner: hr\n---\n\nBody text.\n');
    expect(doc).toEqual({ title: 'Leave policy', sections: [{ text: 'Body text.', headingPath: [] }] });
  });

  it('parses the large CHANGELOG with version headings', () => {
    const doc = parseMarkdown(readDoc('unstructured-repo-CHANGELOG.md'));
    expect(doc.sections.length).toBeGreaterThan(400);
    expect(doc.sections[0]?.headingPath).toEqual(['0.27.1', 'Fixes']);
    expect(doc.sections.every((s) => s.headingPath.length >= 1)).toBe(true);
  });

  it('reads mixed English and Spanish', () => {
    const text = parseMarkdown(readDoc('eng_spa_mult.md')).sections.map((s) => s.text).join('\n');
    expect(text).toContain('Todos los seres humanos nacen libres e iguales en dignidad y derechos');
    expect(text).toContain('All human beings are born free');
  });
});
