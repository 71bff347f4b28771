/**
 * Plain text: decoded (BOM, UTF-8, UTF-16, or a legacy code page; see text-decode.ts), then split
 * into paragraphs at blank lines. Line breaks inside a paragraph are kept because in plain text
 * they are often meaningful (addresses, lists, poetry); the chunker treats them as soft breaks.
 */
import { tidyBlock } from './normalize';
import { decodeText } from './text-decode';
import type { ParsedDocument } from './types';

export function parseTextContent(text: string): ParsedDocument {
  const sections = tidyBlock(text)
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter(Boolean)
    .map((paragraph) => ({ text: paragraph, headingPath: [] }));
  return { sections };
}

export function parseTxt(bytes: Uint8Array): ParsedDocument {
  return parseTextContent(decodeText(bytes).text);
}
