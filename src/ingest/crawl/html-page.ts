/**
 * One parse per crawled page: charset decoding, links to follow, meta robots, and main content.
 */
import { JSDOM, VirtualConsole } from 'jsdom';
import { extractMainContentFromDocument, extractPlainText, type MainContent } from './extract-main-content.js';

export interface ParsedPage {
  content: MainContent;
  /** Absolute http(s) links, fragment removed, in document order, deduplicated. */
  links: URL[];
  /** <meta name="robots"> (or our bot's name) says noindex / nofollow. */
  noindex: boolean;
  nofollow: boolean;
}

const MAX_LINKS = 5000;

function charsetOf(contentType: string | undefined): string | undefined {
  return /charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1];
}

function decoderFor(label: string | undefined): TextDecoder | null {
  if (!label) return null;
  try {
    return new TextDecoder(label);
  } catch {
    return null;
  }
}

/**
 * Bytes -> string the way browsers do it, minus locale guessing: BOM, then the Content-Type charset,
 * then (HTML only) a <meta charset> in the first 1024 bytes, then UTF-8 if the bytes are valid
 * UTF-8, else windows-1252.
 */
export function decodeBody(body: Buffer, contentType: string | undefined, html: boolean): string {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return new TextDecoder('utf-8').decode(body);
  if (body[0] === 0xff && body[1] === 0xfe) return new TextDecoder('utf-16le').decode(body);
  if (body[0] === 0xfe && body[1] === 0xff) return new TextDecoder('utf-16be').decode(body);

  let decoder = decoderFor(charsetOf(contentType));
  if (!decoder && html) {
    const head = body.subarray(0, 1024).toString('latin1');
    const meta = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)?.[1];
    // A meta tag cannot truthfully declare UTF-16 in an ASCII-compatible prefix (HTML spec).
    decoder = decoderFor(meta && /^utf-?16/i.test(meta) ? 'utf-8' : meta);
  }
  if (decoder) return decoder.decode(body);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    return new TextDecoder('windows-1252').decode(body);
  }
}

function robotsDirectives(document: Document, botToken: string): { noindex: boolean; nofollow: boolean } {
  let noindex = false;
  let nofollow = false;
  for (const meta of Array.from(document.querySelectorAll('meta[name][content]'))) {
    const name = (meta.getAttribute('name') ?? '').toLowerCase();
    if (name !== 'robots' && name !== botToken) continue;
    const content = (meta.getAttribute('content') ?? '').toLowerCase();
    if (/\b(noindex|none)\b/.test(content)) noindex = true;
    if (/\b(nofollow|none)\b/.test(content)) nofollow = true;
  }
  return { noindex, nofollow };
}

function collectLinks(document: Document): URL[] {
  const links: URL[] = [];
  const seen = new Set<string>();
  for (const anchor of Array.from(document.querySelectorAll('a[href], area[href]'))) {
    if (/\bnofollow\b/i.test(anchor.getAttribute('rel') ?? '')) continue;
    let url: URL;
    try {
      // Resolved against document.baseURI, which honours <base href>.
      url = new URL(anchor.getAttribute('href') ?? '', document.baseURI);
    } catch {
      continue;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
    url.hash = '';
    if (seen.has(url.href)) continue;
    seen.add(url.href);
    links.push(url);
    if (links.length >= MAX_LINKS) break;
  }
  return links;
}

/** `botToken` is the robots.txt product token of our user agent, lower-case ("groundworkbot"). */
export function parseHtmlPage(html: string, url: string, botToken: string): ParsedPage {
  const dom = new JSDOM(html, { url, virtualConsole: new VirtualConsole() });
  try {
    const { document } = dom.window;
    const { noindex, nofollow } = robotsDirectives(document, botToken);
    const links = nofollow ? [] : collectLinks(document);
    return { content: extractMainContentFromDocument(document, { inPlace: true }), links, noindex, nofollow };
  } finally {
    dom.window.close();
  }
}

export function parseTextPage(text: string, url: string): ParsedPage {
  return { content: extractPlainText(text, { url }), links: [], noindex: false, nofollow: false };
}
