/**
 * DOCX via mammoth: Word styles become HTML headings, lists and tables, which html-sections.ts
 * turns into sections. Images are never decoded (we only want text), and headers, footers and
 * comments are left out because mammoth does not read them. Page numbers do not exist in a DOCX
 * (they are decided by the renderer), so sections carry none.
 */
import { JSDOM } from 'jsdom';
import mammoth from 'mammoth';
import { PermanentIngestError } from './errors';
import { domToSections } from './html-sections';
import { collapseWhitespace } from './normalize';
import type { ParsedDocument } from './types';
import { checkInflatedSize, doctypeRefusal, xmlPartWithDoctype } from './zip';

/**
 * What the parts mammoth reads (everything but embedded media, which it never inflates) may
 * inflate to together. A 1,000-page handbook is ~10 MB of document.xml; 400 MB of styles.xml in a
 * 418 KB file is a bomb, and JSZip would hold it whole (and mammoth parse it) before any check.
 */
export const MAX_DOCX_INFLATED_BYTES = 64 * 1024 * 1024;
const isMedia = (name: string) => /^word\/(media|embeddings)\//.test(name);

const STYLE_MAP = [
  // The Title style is the document's title; mammoth drops it into a plain <p> otherwise.
  "p[style-name='Title'] => p.docx-title:fresh",
  'p.Title => p.docx-title:fresh',
];

const damaged = (cause?: unknown): PermanentIngestError =>
  new PermanentIngestError('docx_damaged', 'The DOCX file is damaged or is not a valid Word document.', { cause });

export async function parseDocx(bytes: Uint8Array): Promise<ParsedDocument> {
  const inflated = await checkInflatedSize(bytes, MAX_DOCX_INFLATED_BYTES, (e) => !isMedia(e.name));
  if (!inflated.ok && inflated.reason === 'too_large') {
    throw new PermanentIngestError('too_large', 'The DOCX file is too large to process (its text parts inflate beyond 64 MB).');
  }
  if (!inflated.ok) throw damaged();
  const doctype = xmlPartWithDoctype(bytes);
  if (doctype) throw doctypeRefusal(doctype);

  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
      {
        styleMap: STYLE_MAP,
        externalFileAccess: false,
        convertImage: mammoth.images.imgElement(async () => ({ src: '' })),
      },
    );
    html = result.value;
  } catch (err) {
    throw damaged(err);
  }

  // No window.close(): nothing runs in this DOM, and closing a large one costs seconds.
  const { document } = new JSDOM(html).window;
  const titleEl = document.querySelector('p.docx-title');
  const title = titleEl ? collapseWhitespace(titleEl.textContent ?? '') : '';
  const sections = domToSections(document.body);
  if (sections.length === 0) {
    throw new PermanentIngestError('no_text', 'The document contains no text.');
  }
  return title ? { title, sections } : { sections };
}
