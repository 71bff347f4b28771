/**
 * The one entry point the ingestion job calls: bytes in, ParsedDocument out. Throws
 * PermanentIngestError when the document itself is the problem (its message is the failure
 * reason shown to the user); anything else thrown is transient and worth a retry.
 */
import { detectType } from './detect-type';
import { PermanentIngestError } from './errors';
import { NICED_PARSE_FROM_BYTES, parsePdfInNicedThread, ParseThreadStopped } from './pdf-parse-thread';
import type { UnstructuredOptions } from './parse-unstructured';
import type { DocumentType, ParsedDocument, ParseProgress } from './types';

export interface ParseDocumentOptions {
  filename: string;
  /** From detectType(); detected here when omitted. */
  type?: DocumentType;
  /** When set, uploads are partitioned by this Unstructured server instead of the local parsers. */
  unstructured?: UnstructuredOptions;
  /** Address of a crawled page (type 'html'). */
  url?: string;
  onProgress?: ParseProgress;
  /** Scanned PDF pages read by OCR per document, at most (0 or absent: none). */
  ocrMaxPages?: number;
  /**
   * A big PDF is parsed in a thread of its own at a lower priority (pdf-parse-thread.ts): for the
   * ingestion worker that runs inside the web process (the embedded default's).
   */
  nicedPdfThread?: boolean;
}

export async function parseDocument(bytes: Uint8Array, options: ParseDocumentOptions): Promise<ParsedDocument> {
  const document = await parseAs(bytes, options);
  // A document that parses to nothing would otherwise end "ready" with zero chunks.
  if (document.sections.length === 0) throw new PermanentIngestError('no_text', 'The document contains no text.');
  return document;
}

async function parseAs(bytes: Uint8Array, options: ParseDocumentOptions): Promise<ParsedDocument> {
  const type = options.type ?? (await detectType(bytes, options.filename, { allowHtml: options.url !== undefined }));
  // Crawled pages stay local: Readability's main-content extraction is what we want for them.
  // Each parser is imported when a document of its type first comes: a PDF no longer waits for
  // jsdom, mammoth and the Markdown stack to load (~1.5 s of CPU on a worker's first job).
  if (options.unstructured && type !== 'html') {
    const { parseWithUnstructured } = await import('./parse-unstructured');
    return parseWithUnstructured(bytes, options.filename, options.unstructured);
  }
  switch (type) {
    case 'pdf':
      if (options.nicedPdfThread && bytes.byteLength >= NICED_PARSE_FROM_BYTES) {
        const parsed = parsePdfInNicedThread(bytes, { onProgress: options.onProgress, ocrMaxPages: options.ocrMaxPages });
        if (parsed) {
          try {
            return await parsed;
          } catch (err) {
            if (!(err instanceof ParseThreadStopped)) throw err;
          }
        }
      }
      return (await import('./parse-pdf')).parsePdf(bytes, { onProgress: options.onProgress, ocrMaxPages: options.ocrMaxPages });
    case 'docx':
      return (await import('./parse-docx')).parseDocx(bytes);
    case 'md':
      return (await import('./parse-markdown')).parseMarkdown(bytes);
    case 'txt':
      return (await import('./parse-txt')).parseTxt(bytes);
    case 'html':
      return (await import('./parse-html')).parseHtml(bytes, options.url ?? 'about:blank');
  }
}
