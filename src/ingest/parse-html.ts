/**
 * Crawled web pages. Readability (Firefox's reader view) finds the main content; when it is not
 * confident (pages that are not articles: data sheets, link lists, short essays without markup)
 * we fall back to the whole body minus navigation, scripts and the like, because losing most of
 * a page is worse than indexing some boilerplate. Scripts never run and nothing is fetched.
 */
import { Readability, isProbablyReaderable } from '@mozilla/readability';
import { JSDOM, VirtualConsole } from 'jsdom';
import { PermanentIngestError } from './errors';
import { domToSections } from './html-sections';
import { usableTitle } from './normalize';
import { decodeText, sniffBom } from './text-decode';
import type { ParsedDocument, ParsedSection } from './types';

export interface ParseHtmlOptions {
  /** Charset from the HTTP Content-Type header; a BOM still wins, as in browsers. */
  charset?: string;
}

// Readability output shorter than this share of the page's text means it picked a fragment.
const MIN_READABILITY_SHARE = 0.6;
const MIN_READABLE_CHARS = 200;
const META_PRESCAN_BYTES = 1024;

/** The charset a page declares in its first KiB, as the HTML spec's prescan finds it. */
function declaredCharset(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.subarray(0, META_PRESCAN_BYTES)).toString('latin1');
  const charset = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)?.[1];
  // A page that could declare UTF-16 in ASCII is not UTF-16; browsers read it as UTF-8.
  return charset && !/^utf-?16/i.test(charset) ? charset : undefined;
}

function toText(html: string | Uint8Array, charset: string | undefined): string {
  if (typeof html === 'string') return html;
  const declared = sniffBom(html) ? undefined : (charset ?? declaredCharset(html));
  return decodeText(html, declared).text;
}

const textLength = (sections: ParsedSection[]): number => sections.reduce((n, s) => n + s.text.length, 0);

function readableSections(document: Document, url: string): { sections: ParsedSection[]; title?: string } | undefined {
  const article = new Readability(document.cloneNode(true) as Document).parse();
  if (!article?.content) return undefined;
  const { body } = new JSDOM(article.content).window.document;
  const sections = domToSections(body, { url, webPage: true });
  return { sections, ...(article.title ? { title: article.title } : {}) };
}

/** Main content of a web page as sections tagged with `url`. */
export function parseHtml(html: string | Uint8Array, url: string, options: ParseHtmlOptions = {}): ParsedDocument {
  // Scripts never run and resources are never loaded (jsdom's defaults). No window.close():
  // nothing runs in these DOMs, and closing a large one costs seconds.
  const { document } = new JSDOM(toText(html, options.charset), { url, virtualConsole: new VirtualConsole() }).window;
  const whole = domToSections(document.body ?? document.documentElement, { url, webPage: true });
  const readable = readableSections(document, url);
  const readableLength = readable ? textLength(readable.sections) : 0;
  const useReadable =
    readable !== undefined &&
    ((isProbablyReaderable(document) && readableLength >= MIN_READABLE_CHARS) ||
      readableLength >= textLength(whole) * MIN_READABILITY_SHARE);
  const sections = useReadable ? readable.sections : whole;
  if (sections.length === 0) throw new PermanentIngestError('no_text', 'The page has no readable text.');

  const firstH1 = document.querySelector('h1')?.textContent;
  const title = [readable?.title, document.title, firstH1].map(usableTitle).find(Boolean);
  return { ...(title ? { title } : {}), sections };
}
