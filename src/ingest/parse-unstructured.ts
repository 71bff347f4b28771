/**
 * Optional parsing through an Unstructured API server (self-hosted or hosted), with the official
 * client. Its elements are mapped to the same ParsedDocument as the local parsers: Title
 * elements build the heading path (nested by metadata.category_depth), page furniture (headers,
 * footers, page numbers) is dropped, tables are rendered from text_as_html like ours.
 *
 * Retries are the ingestion job's business, so the client's own (up to 30 minutes of backoff by
 * default) are off, and so is its client-side PDF splitting, which reports every failed part
 * as a 500 and would turn a rejected file into an endless retry.
 *
 * Errors: 4xx means the server refused this file, a PermanentIngestError with the server's
 * reason; except 401/403 (our key is wrong: fix the configuration, keep the document),
 * 408 and 429, which are transient like 5xx, time-outs and connection failures.
 */
import { JSDOM } from 'jsdom';
import { UnstructuredClient } from 'unstructured-client';
import { UnstructuredClientError } from 'unstructured-client/sdk/models/errors';
import { Strategy } from 'unstructured-client/sdk/models/shared';
import { PermanentIngestError } from './errors';
import { tableText } from './html-sections';
import { cleanText, collapseWhitespace, tidyBlock } from './normalize';
import type { ParsedDocument, ParsedSection } from './types';

export interface UnstructuredOptions {
  serverURL: string;
  apiKey?: string;
  /** Unstructured's partition strategy; 'auto' lets the server pick (OCR for scans, etc.). */
  strategy?: `${Strategy}`;
  timeoutMs?: number;
}

/** One element as the API returns it; only the fields we read. */
export interface UnstructuredElement {
  type: string;
  element_id?: string;
  text?: string;
  metadata?: {
    page_number?: number;
    category_depth?: number;
    text_as_html?: string;
    url?: string;
    [key: string]: unknown;
  };
}

const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;
// Page furniture repeats on every page and carries no content.
const SKIPPED_TYPES = new Set(['Header', 'Footer', 'PageNumber', 'PageBreak', 'Image', 'Picture']);
const TRANSIENT_4XX = new Set([401, 403, 408, 429]);
// Unstructured labels many short lines "Title"; a long one is a paragraph it misread.
const MAX_TITLE_CHARS = 200;

function tableFromHtml(html: string): string | undefined {
  const table = JSDOM.fragment(html).querySelector('table');
  return table ? tableText(table) : undefined;
}

/** Maps API elements to sections; exported for tests that feed elements directly. */
export function elementsToDocument(elements: UnstructuredElement[]): ParsedDocument {
  const sections: ParsedSection[] = [];
  const headings: Array<{ depth: number; text: string }> = [];
  let title: string | undefined;
  let pages = 0;

  for (const element of elements) {
    const metadata = element.metadata ?? {};
    const page = typeof metadata.page_number === 'number' ? metadata.page_number : undefined;
    if (page !== undefined) pages = Math.max(pages, page);
    if (SKIPPED_TYPES.has(element.type)) continue;
    const raw = cleanText(element.text ?? '');

    if (element.type === 'Title' && raw.trim() && raw.length <= MAX_TITLE_CHARS) {
      const depth = typeof metadata.category_depth === 'number' ? metadata.category_depth : 0;
      const text = collapseWhitespace(raw);
      while (headings.length > 0 && headings[headings.length - 1]!.depth >= depth) headings.pop();
      headings.push({ depth, text });
      title ??= text;
      continue;
    }

    let text: string;
    if (element.type === 'Table' && typeof metadata.text_as_html === 'string') {
      text = tableFromHtml(metadata.text_as_html) ?? tidyBlock(raw);
    } else if (element.type === 'ListItem') {
      const item = tidyBlock(raw);
      text = item && !/^(?:[-*•▪◦]|\d+[.)])\s/.test(item) ? `- ${item}` : item;
    } else {
      text = tidyBlock(raw);
    }
    if (!text) continue;
    const section: ParsedSection = { text, headingPath: headings.map((h) => h.text) };
    if (page !== undefined) section.page = page;
    if (typeof metadata.url === 'string') section.url = metadata.url;
    sections.push(section);
  }

  return { ...(title ? { title } : {}), ...(pages ? { pages } : {}), sections };
}

function serverReason(err: UnstructuredClientError): string {
  try {
    const detail = (JSON.parse(err.body) as { detail?: unknown }).detail;
    if (typeof detail === 'string') return detail;
    if (Array.isArray(detail)) {
      return detail.map((d) => (d && typeof d === 'object' && 'msg' in d ? String(d.msg) : JSON.stringify(d))).join('; ');
    }
  } catch {
    // Not JSON: fall through to the raw body.
  }
  return err.body.trim() || `HTTP ${err.statusCode}`;
}

function mapError(err: unknown): Error {
  if (err instanceof UnstructuredClientError) {
    const status = err.statusCode;
    if (status >= 400 && status < 500 && !TRANSIENT_4XX.has(status)) {
      const reason = serverReason(err).slice(0, 300);
      return new PermanentIngestError('conversion_rejected', `The document conversion service rejected the file: ${reason}`, {
        cause: err,
      });
    }
    return new Error(`Unstructured API answered HTTP ${status}`, { cause: err });
  }
  return err instanceof Error ? err : new Error(String(err));
}

export async function parseWithUnstructured(bytes: Uint8Array, filename: string, options: UnstructuredOptions): Promise<ParsedDocument> {
  const client = new UnstructuredClient({
    serverURL: options.serverURL,
    ...(options.apiKey ? { security: { apiKeyAuth: options.apiKey } } : {}),
    retryConfig: { strategy: 'none' },
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  });

  let response: unknown;
  try {
    response = await client.general.partition({
      partitionParameters: {
        files: { content: bytes, fileName: filename },
        strategy: (options.strategy ?? Strategy.Auto) as Strategy,
        splitPdfPage: false,
      },
    });
  } catch (err) {
    throw mapError(err);
  }
  if (!Array.isArray(response)) throw new Error('Unstructured API returned something other than a list of elements');

  const document = elementsToDocument(response as UnstructuredElement[]);
  if (document.sections.length === 0) {
    throw new PermanentIngestError('no_text', 'No extractable text was found in the document.');
  }
  return document;
}
