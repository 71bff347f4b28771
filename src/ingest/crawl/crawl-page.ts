/**
 * One fetched page -> its document and its links. No queueing and no limits here: the frontier
 * decides which links are followed, the budget whether the page is kept.
 *
 * Guarantees:
 *  - a response is refused from its status line and headers, before its body is read, unless it is a
 *    2xx of HTML or plain text (or a 304 to a conditional request);
 *  - without a Content-Type the bytes decide (markup -> HTML, NUL bytes -> refused, else text);
 *  - bytes are decoded the way browsers do (see html-page.ts), and a page that asks not to be indexed
 *    or has no text gives no document, but still gives its links.
 */
import type { CrawledPage, CrawledSection } from './crawl-options.js';
import { CrawlPermanentError, httpStatusError } from './errors.js';
import { decodeBody, parseHtmlPage, parseTextPage } from './html-page.js';

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

type HeaderValue = string | string[] | undefined;

export interface ResponseHead {
  /** The URL that answered (after redirects). */
  url: string;
  status: number;
  contentType: HeaderValue;
  /** The request carried If-None-Match / If-Modified-Since. */
  conditional: boolean;
}

export interface FetchedPage {
  /** Final URL after redirects. */
  url: URL;
  body: Buffer | string;
  headers: { 'content-type'?: HeaderValue; etag?: HeaderValue; 'last-modified'?: HeaderValue };
}

export type PageDocument = Pick<CrawledPage, 'url' | 'title' | 'bytes' | 'contentType' | 'etag' | 'lastModified'> & {
  sections: CrawledSection[];
};

export type PageReading =
  | { document: PageDocument; links: URL[] }
  | { document: null; skip: { reason: 'noindex' | 'empty'; message: string }; links: URL[] };

function mimeType(header: HeaderValue): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const type = value?.split(';')[0]?.trim().toLowerCase();
  return type || undefined;
}

/** 'html' | 'text' for what we index, null otherwise. Without a Content-Type the bytes decide. */
function contentKind(type: string | undefined, body: Buffer): 'html' | 'text' | null {
  if (type) return HTML_TYPES.has(type) ? 'html' : type === 'text/plain' ? 'text' : null;
  const head = body.subarray(0, 1024);
  if (head.includes(0)) return null;
  return /^\s*</.test(head.toString('latin1')) ? 'html' : 'text';
}

/** True for a 304 answer to a conditional request: the page is unchanged since the previous crawl. */
export function isUnchanged(status: number | undefined, conditional: boolean): boolean {
  return status === 304 && conditional;
}

/** Throws the error for a response not worth reading; returns when its body should be read. */
export function checkResponseHead(head: ResponseHead): void {
  const { url, status } = head;
  if (isUnchanged(status, head.conditional)) return;
  if (status >= 400 || status < 200 || status >= 300) {
    throw status >= 400 ? httpStatusError(status, url) : new CrawlPermanentError('http_status', `${url} answered HTTP ${status}`, { url, status });
  }
  const type = mimeType(head.contentType);
  if (type && !HTML_TYPES.has(type) && type !== 'text/plain') {
    throw new CrawlPermanentError('unsupported_content_type', `${url} is ${type}, not HTML or text`, { url });
  }
}

/** `botToken` is the robots.txt product token of our user agent, lower-case ("groundworkbot"). */
export function readPage(fetched: FetchedPage, botToken: string): PageReading {
  const { url, headers } = fetched;
  const bytes = Buffer.isBuffer(fetched.body) ? fetched.body : Buffer.from(fetched.body);
  const contentType = Array.isArray(headers['content-type']) ? headers['content-type'][0] : headers['content-type'];
  const kind = contentKind(mimeType(contentType), bytes);
  if (!kind) throw new CrawlPermanentError('unsupported_content_type', `${url.href} is not HTML or text`, { url: url.href });
  const text = decodeBody(bytes, contentType, kind === 'html');
  const parsed = kind === 'html' ? parseHtmlPage(text, url.href, botToken) : parseTextPage(text, url.href);

  if (parsed.noindex) return { document: null, skip: { reason: 'noindex', message: 'page asks not to be indexed (meta robots)' }, links: parsed.links };
  if (parsed.content.sections.length === 0) return { document: null, skip: { reason: 'empty', message: 'no text content found' }, links: parsed.links };
  return {
    document: {
      url: url.href,
      title: parsed.content.title,
      sections: parsed.content.sections.map((s) => ({ text: s.text, headingPath: s.headingPath, url: url.href })),
      bytes: bytes.length,
      contentType: kind,
      ...(typeof headers.etag === 'string' ? { etag: headers.etag } : {}),
      ...(typeof headers['last-modified'] === 'string' ? { lastModified: headers['last-modified'] } : {}),
    },
    links: parsed.links,
  };
}

/** The entry of a page that answered 304: no sections, the links it had at the previous crawl. */
export function unchangedPage(url: string, depth: number, links: string[]): CrawledPage {
  return { url, title: '', sections: [], bytes: 0, depth, contentType: 'html', notModified: true, links };
}
