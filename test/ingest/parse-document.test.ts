import { describe, expect, it } from 'vitest';
import { PermanentIngestError } from '../../src/ingest/errors';
import { parseDocument } from '../../src/ingest/parse-document';
import { readDoc } from './corpus';

describe('parseDocument', () => {
  it.each([
    ['rotated-page-90.pdf', 'pdf', 'Hello World Test Text'],
    ['tables.docx', 'docx', 'Top left | Top right'],
    ['simple-table.md', 'md', 'Item: Juicy Apples'],
  ] as const)('dispatches %s to the %s parser', async (name, type, expected) => {
    const doc = await parseDocument(readDoc(name), { filename: name, type });
    expect(doc.sections.map((s) => s.text).join('\n')).toContain(expected);
  });

  it('detects the type when it is not given', async () => {
    const doc = await parseDocument(new TextEncoder().encode('First paragraph.\n\nSecond one.'), { filename: 'notes.txt' });
    expect(doc.sections.map((s) => s.text)).toEqual(['First paragraph.', 'Second one.']);
  });

  it('parses HTML when given a URL', async () => {
    const doc = await parseDocument(new TextEncoder().encode('<html><body><h1>T</h1><p>Body.</p></body></html>'), {
      filename: 'index.html',
      url: 'https://example.com/',
    });
    expect(doc.sections).toEqual([{ text: 'Body.', headingPath: ['T'], url: 'https://example.com/' }]);
  });

  it('fails permanently when a text file holds nothing but markup', async () => {
    const err = await parseDocument(new TextEncoder().encode('<!-- draft -->\n\n---\n'), { filename: 'empty.md', type: 'md' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermanentIngestError);
    expect((err as PermanentIngestError).code).toBe('no_text');
  });

  it('fails permanently, with a readable reason, for content it cannot use', async () => {
    const err = await parseDocument(readDoc('password.pdf'), { filename: 'password.pdf' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermanentIngestError);
    expect((err as Error).message).toBe('The PDF is password-protected.');
  });
});
