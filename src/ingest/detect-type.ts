/**
 * Decides what an uploaded file is from its bytes, using the filename only to choose between
 * text flavours (md vs txt). Content wins over the extension: a PDF named "notes.txt" is parsed
 * as a PDF, but a file named ".pdf" whose bytes are not a PDF is refused with a clear reason
 * instead of being indexed as text (it is almost always a broken export or a mislabelled file,
 * and indexing raw bytes as text would pollute answers).
 */
import { fileTypeFromBuffer } from 'file-type';
import { PermanentIngestError } from './errors';
import { decodeText, looksLikeText } from './text-decode';
import type { DocumentType } from './types';
import { doctypeRefusal, isZip, listZipEntries, xmlPartWithDoctype } from './zip';

export interface DetectTypeOptions {
  /** Accept HTML (the crawler path). Uploads of HTML are refused: pages are added by URL. */
  allowHtml?: boolean;
}

const ACCEPTED = 'Accepted formats are PDF, DOCX, TXT and MD.';
const MARKDOWN_EXTENSIONS = new Set(['md', 'markdown', 'mdown', 'mkd', 'mkdn']);
const HTML_EXTENSIONS = new Set(['html', 'htm', 'xhtml']);
const TEXT_SAMPLE_BYTES = 64 * 1024;
// The PDF spec lets readers accept junk before the header; pdf.js looks within the first 1 KiB.
const PDF_HEADER_WINDOW = 1024;

export function extensionOf(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

function hasPdfHeader(bytes: Uint8Array): boolean {
  const window = bytes.subarray(0, PDF_HEADER_WINDOW);
  for (let i = 0; i + 5 <= window.length; i++) {
    if (window[i] === 0x25 && window[i + 1] === 0x50 && window[i + 2] === 0x44 && window[i + 3] === 0x46 && window[i + 4] === 0x2d) {
      return true;
    }
  }
  return false;
}

function unsupported(what: string): PermanentIngestError {
  return new PermanentIngestError('unsupported_type', `Unsupported file type: ${what}. ${ACCEPTED}`);
}

function classifyZip(bytes: Uint8Array, ext: string): DocumentType {
  const entries = listZipEntries(bytes);
  if (!entries) {
    if (ext === 'docx') {
      throw new PermanentIngestError('docx_damaged', 'The DOCX file is damaged and cannot be read.');
    }
    throw unsupported('a damaged ZIP archive');
  }
  const names = new Set(entries.map((e) => e.name));
  if (names.has('word/document.xml')) {
    const doctype = xmlPartWithDoctype(bytes, entries);
    if (doctype) throw doctypeRefusal(doctype);
    return 'docx';
  }
  if (names.has('xl/workbook.xml')) throw unsupported('Excel spreadsheet (XLSX)');
  if ([...names].some((n) => n.startsWith('ppt/'))) throw unsupported('PowerPoint presentation (PPTX)');
  if (names.has('content.xml') && names.has('mimetype')) throw unsupported('OpenDocument file');
  if (ext === 'docx') {
    throw new PermanentIngestError('type_mismatch', 'The file is named .docx but is not a Word document.');
  }
  throw unsupported('ZIP archive');
}

async function describeBinary(bytes: Uint8Array): Promise<string> {
  const found = await fileTypeFromBuffer(bytes);
  if (!found) return 'binary data of an unknown format';
  if (found.ext === 'cfb') return 'legacy Office file (DOC/XLS/PPT); save it as DOCX or PDF';
  if (found.ext === 'exe' || found.ext === 'elf' || found.ext === 'mach') return 'program/executable';
  if (found.mime.startsWith('image/')) return `${found.ext.toUpperCase()} image (images are not read)`;
  if (found.mime.startsWith('audio/') || found.mime.startsWith('video/')) return `${found.ext.toUpperCase()} media file`;
  return `${found.ext.toUpperCase()} (${found.mime})`;
}

function looksLikeHtml(text: string): boolean {
  return /^\s*(?:<!--[\s\S]*?-->\s*)*(?:<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>])/i.test(text.slice(0, 2048));
}

/**
 * The document type to parse `bytes` as. Throws PermanentIngestError ('empty_file',
 * 'unsupported_type', 'type_mismatch', 'docx_damaged') when the content cannot be accepted.
 */
export async function detectType(bytes: Uint8Array, filename: string, options: DetectTypeOptions = {}): Promise<DocumentType> {
  if (bytes.length === 0) throw new PermanentIngestError('empty_file', 'The file is empty.');
  const ext = extensionOf(filename);

  if (hasPdfHeader(bytes)) return 'pdf';
  if (isZip(bytes)) return classifyZip(bytes, ext);
  if (ext === 'pdf') throw new PermanentIngestError('type_mismatch', 'The file is named .pdf but its content is not a PDF.');
  if (ext === 'docx') throw new PermanentIngestError('type_mismatch', 'The file is named .docx but is not a Word document.');

  // Text is checked before asking file-type, whose magic numbers misfire on text (UTF-16 HTML
  // reads as an MP1 audio header, for instance).
  const sample = bytes.subarray(0, TEXT_SAMPLE_BYTES);
  const { text } = decodeText(sample);
  if (!looksLikeText(text)) throw unsupported(await describeBinary(bytes));

  if (text.trim() === '' && bytes.length <= TEXT_SAMPLE_BYTES) {
    throw new PermanentIngestError('empty_file', 'The file contains no text.');
  }
  if (text.startsWith('{\\rtf')) throw unsupported('Rich Text Format (RTF); save it as DOCX or PDF');
  if (MARKDOWN_EXTENSIONS.has(ext)) return 'md';
  if (HTML_EXTENSIONS.has(ext) || looksLikeHtml(text)) {
    if (options.allowHtml) return 'html';
    throw unsupported('HTML page; add web pages by URL instead of uploading them');
  }
  return 'txt';
}
