import { describe, expect, it } from 'vitest';
import { chunkDocument } from '../../src/ingest/chunker';
import { PermanentIngestError } from '../../src/ingest/errors';
import { parseDocx } from '../../src/ingest/parse-docx';
import { detectType } from '../../src/ingest/detect-type';
import { deflateRawSync } from 'node:zlib';
import { readDoc } from './corpus';
import { cpuMsOfAsync } from '../infra/cpu-time';
import { documentXml, makeDocx, makeZip } from './zip-fixture';

async function failure(bytes: Uint8Array): Promise<PermanentIngestError> {
  const err = await parseDocx(bytes).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PermanentIngestError);
  return err as PermanentIngestError;
}

describe('parseDocx', () => {
  it('keeps heading paths and lists', async () => {
    const doc = await parseDocx(readDoc('category-level.docx'));
    expect(doc.sections[0]).toMatchObject({ headingPath: [], text: expect.stringMatching(/^Call me Ishmael\./) });
    expect(doc.sections.find((s) => s.text.startsWith('- A top level list item'))).toEqual({
      headingPath: ['A Heading 1'],
      text: '- A top level list item\n  - Next level\n  - Same\n- Second top-level list item',
    });
    expect(doc.sections.find((s) => s.text.startsWith('This is my substitute'))?.headingPath).toEqual(['A Heading 1', 'A Heading 2']);
    // A new level-1 heading closes the previous branch.
    expect(doc.sections.at(-1)?.headingPath).toEqual(['Another Heading 1']);
    expect(doc.sections.every((s) => s.page === undefined)).toBe(true);
  });

  it('numbers ordered lists, nested ones too', async () => {
    const doc = await parseDocx(readDoc('example-list-items-multiple.docx'));
    expect(doc.sections.map((s) => s.text)).toContain(
      '1. This is simply dummy text of the printing and typesetting industry.\n' +
        '2. This is simply dummy text of the printing and typesetting industry.\n' +
        '  1. The quick brown fox jumps over the lazy dog.\n' +
        '  2. The quick brown fox jumps over the lazy dog.',
    );
  });

  it('turns tables into readable rows, header cells naming values', async () => {
    const texts = (await parseDocx(readDoc('docx-tables.docx'))).sections.map((s) => s.text);
    expect(texts).toContain('Header Col 1 | Header Col 2\nLorem ipsum | A link example');
    // Nested tables are flattened into their cell; merged cells are not repeated along a row.
    expect(texts.find((t) => t.includes('g&t'))).toContain('e | f; g&t | h');
    expect(texts).toContain('a | b\na | c | d\ne | d');
  });

  it('uses a first row as header when it looks like one', async () => {
    const texts = (await parseDocx(readDoc('tables-with-incomplete-rows.docx'))).sections.map((s) => s.text);
    expect(texts[0]).toBe('Example of DOCX table where one or more rows is missing cells from the end.');
    expect(texts).toContain('a | b\nc | d');
    const xml = `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:tbl>${[
      ['Name', 'Role'],
      ['Ada', 'Engineer'],
      ['Grace', 'Admiral'],
    ]
      .map((row) => `<w:tr>${row.map((c) => `<w:tc><w:p><w:r><w:t>${c}</w:t></w:r></w:p></w:tc>`).join('')}</w:tr>`)
      .join('')}</w:tbl></w:body></w:document>`;
    const doc = await parseDocx(makeDocx(xml));
    expect(doc.sections[0]?.text).toBe('Name | Role\nName: Ada | Role: Engineer\nName: Grace | Role: Admiral');
  });

  it('keeps line breaks, footnotes and text boxes; drops footnote back-links', async () => {
    expect((await parseDocx(readDoc('teams_chat.docx'))).sections[0]?.text).toBe('0:0:0.0 --> 0:0:1.510\nSome Body\nOK. Yeah.');
    const footnotes = (await parseDocx(readDoc('footnotes.docx'))).sections.map((s) => s.text);
    expect(footnotes).toEqual(['Ouch[1].[2]', '1. A tachyon walks into a bar.\n2. Fin.']);
    expect((await parseDocx(readDoc('text-box.docx'))).sections[0]?.text).toBe('Datum plane');
  });

  it('reads strict OOXML and documents with pictures', async () => {
    expect((await parseDocx(readDoc('strict-format.docx'))).sections[0]?.text).toBe('Test');
    const pictures = await parseDocx(readDoc('contains-pictures.docx'));
    expect(pictures.sections.map((s) => s.text).join('\n')).toContain('An inline picture appears here><and this text follows it');
  });

  it('takes the title from the Title style and headings from heading styles', async () => {
    const doc = await parseDocx(
      makeDocx(
        documentXml([
          { text: 'Staff Handbook', style: 'Title' },
          { text: 'Leave', style: 'Heading1' },
          { text: 'Annual leave is 25 days.' },
          { text: 'Carry-over', style: 'Heading2' },
          { text: 'Up to 5 days carry over.' },
        ]),
      ),
    );
    expect(doc.title).toBe('Staff Handbook');
    expect(doc.sections).toEqual([
      { text: 'Staff Handbook', headingPath: [] },
      { text: 'Annual leave is 25 days.', headingPath: ['Leave'] },
      { text: 'Up to 5 days carry over.', headingPath: ['Leave', 'Carry-over'] },
    ]);
  });

  it('refuses corrupt DOCX files', async () => {
    const good = readDoc('tables.docx');
    expect((await failure(good.subarray(0, good.length / 2))).code).toBe('docx_damaged');
    expect((await failure(makeDocx('<w:document><w:body><w:p>unclosed'))).message).toBe(
      'The DOCX file is damaged or is not a valid Word document.',
    );
    expect((await failure(makeZip({ 'word/other.xml': '<x/>' }))).code).toBe('docx_damaged');
  });

  it('refuses a DOCX with a DOCTYPE by name, at upload and at parsing, not as "damaged" (issue 26)', async () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE w:document [<!ENTITY x "hello">]>\n<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>&x; world</w:t></w:r></w:p></w:body></w:document>`;
    const stored = makeDocx(xml);
    const deflated = makeDocx({ deflated: deflateRawSync(Buffer.from(xml)), declaredSize: xml.length });
    for (const docx of [stored, deflated]) {
      const err = await failure(docx);
      expect(err.code).toBe('docx_doctype');
      expect(err.message).toMatch(/declares a DOCTYPE \(in word\/document\.xml\)/);
      expect(err.message).not.toMatch(/damaged/);
      await expect(detectType(Buffer.from(docx), 'a.docx')).rejects.toMatchObject({ code: 'docx_doctype' });
    }
    // A plain DOCX is still a DOCX.
    expect(await detectType(Buffer.from(makeDocx(documentXml([{ text: 'fine' }]))), 'a.docx')).toBe('docx');
  });

  it('refuses a DOCX with no text', async () => {
    expect((await failure(makeDocx(documentXml([])))).code).toBe('no_text');
  });

  it('parses the 872-page handbook-872p.docx', async () => {
    const rssBefore = process.memoryUsage().rss;
    const started = performance.now();
    const { value: doc, cpuMs } = await cpuMsOfAsync(() => parseDocx(readDoc('handbook-872p.docx')));
    const chunks = chunkDocument(doc);
    const ms = performance.now() - started;
    const rssGrowthMb = (process.memoryUsage().rss - rssBefore) / 1024 / 1024;
    console.info(`handbook-872p.docx: ${ms.toFixed(0)} ms (${cpuMs.toFixed(0)} ms CPU), ${doc.sections.length} sections, ${chunks.length} chunks, RSS +${rssGrowthMb.toFixed(0)} MB`);

    expect(doc.sections.length).toBeGreaterThan(3000);
    const purpose = doc.sections.find((s) => s.text.startsWith('The United States Trustee appoints and supervises standing trustees'));
    expect(purpose?.headingPath).toEqual(['CHAPTER 1 – INTRODUCTION', 'A. PURPOSE']);
    expect(chunks.every((c) => c.tokenCount <= 512)).toBe(true);
    // No runaway: bounded in CPU time, which a loaded machine does not inflate as it does wall time.
    expect(cpuMs).toBeLessThan(45_000);
    expect(rssGrowthMb).toBeLessThan(800);
  }, 90_000);
});
