import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { detectType } from '../../src/ingest/detect-type';
import { PermanentIngestError } from '../../src/ingest/errors';
import { readDoc } from './corpus';
import { documentXml, makeDocx, makeZip } from './zip-fixture';

const PNG = new Uint8Array([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01,
  0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89,
]);

/** A DOS/PE header: "MZ", padding with NULs, e_lfanew pointing at "PE\0\0". */
function exeBytes(): Uint8Array {
  const bytes = new Uint8Array(256);
  bytes.set([0x4d, 0x5a], 0);
  bytes[0x3c] = 0x80;
  bytes.set([0x50, 0x45, 0x00, 0x00, 0x4c, 0x01], 0x80);
  return bytes;
}

async function rejection(bytes: Uint8Array, filename: string): Promise<PermanentIngestError> {
  const err = await detectType(bytes, filename).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PermanentIngestError);
  return err as PermanentIngestError;
}

const text = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('detectType', () => {
  it.each([
    ['tracemonkey.pdf', 'pdf'],
    ['password.pdf', 'pdf'],
    ['handbook-872p.docx', 'docx'],
    ['strict-format.docx', 'docx'],
    ['teams_chat.docx', 'docx'],
    ['codeblock.md', 'md'],
    ['umlauts-non-utf8.md', 'md'],
  ])('reads %s as %s', async (name, type) => {
    expect(await detectType(readDoc(name), name)).toBe(type);
  });

  it('lets content win over a wrong extension', async () => {
    expect(await detectType(readDoc('tracemonkey.pdf'), 'notes.txt')).toBe('pdf');
    expect(await detectType(readDoc('tables.docx'), 'tables.pdf')).toBe('docx');
    expect(await detectType(readDoc('codeblock.md'), 'README')).toBe('txt');
  });

  it('chooses md or txt for text by extension', async () => {
    expect(await detectType(text('# Title\n\nBody'), 'notes.markdown')).toBe('md');
    expect(await detectType(text('plain'), 'notes.TXT')).toBe('txt');
    expect(await detectType(text('a,b\n1,2\n'), 'data.csv')).toBe('txt');
  });

  it('accepts UTF-16 and cp1252 text', async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Hello wörld\n', 'utf16le')]);
    expect(await detectType(new Uint8Array(utf16), 'a.txt')).toBe('txt');
    expect(await detectType(new Uint8Array(iconv.encode('Café “quoted” €', 'windows-1252')), 'a.txt')).toBe('txt');
  });

  it('refuses an empty or blank file', async () => {
    expect((await rejection(new Uint8Array(), 'a.txt')).code).toBe('empty_file');
    expect((await rejection(text(' \n\t\n'), 'a.md')).code).toBe('empty_file');
  });

  it('refuses a program and an image whatever their names', async () => {
    const exe = await rejection(exeBytes(), 'setup.txt');
    expect(exe.code).toBe('unsupported_type');
    expect(exe.message).toMatch(/executable/);
    const png = await rejection(PNG, 'photo.md');
    expect(png.message).toMatch(/PNG image/);
  });

  it('names legacy Office files', async () => {
    const cfb = new Uint8Array(1024);
    cfb.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
    expect((await rejection(cfb, 'old.doc')).message).toMatch(/legacy Office file .* save it as DOCX or PDF/);
  });

  it('refuses a .pdf whose bytes are not a PDF', async () => {
    const err = await rejection(text('This is just text saved with the wrong name.'), 'report.pdf');
    expect(err.code).toBe('type_mismatch');
    expect(err.message).toBe('The file is named .pdf but its content is not a PDF.');
  });

  it('refuses zips that are not Word documents', async () => {
    expect((await rejection(makeZip({ 'a.txt': 'hello' }), 'archive.zip')).message).toMatch(/ZIP archive/);
    expect((await rejection(makeZip({ 'xl/workbook.xml': '<x/>' }), 'book.xlsx')).message).toMatch(/XLSX/);
    expect((await rejection(makeZip({ 'a.txt': 'hello' }), 'fake.docx')).code).toBe('type_mismatch');
  });

  it('recognises a minimal DOCX and reports a truncated one as damaged', async () => {
    const docx = makeDocx(documentXml([{ text: 'Hi' }]));
    expect(await detectType(docx, 'x.docx')).toBe('docx');
    expect((await rejection(docx.subarray(0, docx.length - 30), 'x.docx')).code).toBe('docx_damaged');
  });

  it('accepts HTML only on the crawler path', async () => {
    const page = text('<!DOCTYPE html><html><body><p>Hi</p></body></html>');
    expect((await rejection(page, 'page.txt')).message).toMatch(/add web pages by URL/);
    expect(await detectType(page, 'page.html', { allowHtml: true })).toBe('html');
    expect(await detectType(readDoc('example-steelJIS-datasheet-utf-16.html'), 'x.html', { allowHtml: true })).toBe('html');
  });
});
