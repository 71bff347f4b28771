/**
 * The one shape every parser returns, so the chunker and the ingestion job never care where text
 * came from. Sections are small blocks (a paragraph, a list, a table, a code block); the chunker
 * packs consecutive blocks that share a heading path and page into chunks.
 */

/** Formats an upload may have. */
export type UploadType = 'pdf' | 'docx' | 'md' | 'txt';

/** Everything the parsers understand; 'html' only reaches us from the crawler, never as an upload. */
export type DocumentType = UploadType | 'html';

export interface ParsedSection {
  text: string;
  /** Titles of the enclosing headings, outermost first; [] when the document has no structure. */
  headingPath: string[];
  /** 1-based page number, when the format has pages (PDF, or what Unstructured reports). */
  page?: number;
  /** Source address, for crawled pages. */
  url?: string;
}

/** Progress of the stage a parser is in; the ingestion job throttles the writes. */
export type ParseProgress = (update: { stage: 'parsing' | 'ocr'; done: number; total: number; unit: 'pages' }) => void;

/**
 * What a document says about itself outside its body text, read by document-identity.ts: the
 * opening lines (cover page, first heading; with their font size where the format has one) and
 * the running headers and footers (each distinct text once, most frequent first).
 */
export interface IdentityCues {
  opening: Array<{ text: string; size?: number }>;
  running: string[];
}

export interface ParsedDocument {
  title?: string;
  cues?: IdentityCues;
  pages?: number;
  sections: ParsedSection[];
  /** Pages whose text was read by OCR (1-based). */
  ocrPages?: number[];
  /** What a person should check: the document is ready, but parts of it may be wrong or missing. */
  warnings?: DocumentWarning[];
}

/** A caveat on a ready document (stored in documents.warnings, shown in the API and dashboard). */
export type DocumentWarning = { code: 'ocr_unsure' | 'ocr_unreadable'; message: string; pages: number[] };

/** A chunk is stored whole between ingestion steps, so its shape is the database's (db/json-columns.ts). */
export type { Chunk } from '../../db/json-columns';
