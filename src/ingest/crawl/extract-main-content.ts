/**
 * Main-content extraction for crawled pages: what a reader would call "the article", split into
 * sections at h1-h4 headings.
 *
 * 1. Boilerplate is removed first: script/style/form controls, nav, aside, ARIA landmarks that are
 *    not content, hidden elements, cookie/consent banners, and header/footer outside main/article.
 * 2. Mozilla Readability picks the article. Its answer is kept unless it is suspiciously small
 *    (under half of the cleaned main/body text and under 1500 characters); then the cleaned
 *    <main>/<article>/<body> is used instead, so link-list and reference pages keep their text.
 * 3. The chosen subtree is walked in document order: text between headings becomes one section,
 *    blocks joined by a blank line, inline whitespace collapsed, <pre> line breaks kept.
 *
 * No scripts run and no sub-resources are fetched (plain jsdom).
 */
import { Readability } from '@mozilla/readability';
import { JSDOM, VirtualConsole } from 'jsdom';

export interface ContentSection {
  text: string;
  /** Enclosing h1-h4 headings, outermost first; [] before the first heading. */
  headingPath: string[];
}

export interface MainContent {
  title: string;
  sections: ContentSection[];
}

const REMOVE_ALWAYS = [
  'script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed', 'svg', 'canvas', 'link', 'meta',
  'button', 'select', 'textarea', 'input', 'dialog', 'nav', 'aside', '[hidden]', '[aria-hidden="true"]',
  '[role="navigation"]', '[role="banner"]', '[role="contentinfo"]', '[role="complementary"]',
  '[role="search"]', '[role="dialog"]', '[role="alertdialog"]', '[aria-modal="true"]',
].join(', ');
const CONTENT_CONTAINER = 'main, article, [role="main"]';
const COOKIE_LIKE = /cookie|consent|gdpr|ccpa|onetrust|cookiebot|cookieyes|usercentrics|didomi|truste|cc-(banner|window|revoke)|cmp-/i;
const HIDDEN_STYLE = /(^|;)\s*(display\s*:\s*none|visibility\s*:\s*hidden)/i;
const MAX_BANNER_TEXT = 5000;

const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'title', 'img', 'picture', 'video', 'audio', 'map']);
const BLOCK = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'caption', 'center', 'dd', 'details', 'div', 'dl', 'dt',
  'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h5', 'h6', 'header', 'hr', 'html', 'legend', 'li', 'main',
  'nav', 'ol', 'p', 'section', 'summary', 'table', 'tbody', 'tfoot', 'thead', 'tr', 'ul',
]);
const HEADING = /^h([1-4])$/;
const LEVEL_ATTR = 'data-gw-heading-level';
const INVISIBLE = /[\u200B-\u200D\u2060\uFEFF\u00AD]/g;

/** Collapses all whitespace (newlines included) to single spaces. */
export function collapseWhitespace(text: string): string {
  return text.replace(INVISIBLE, '').replace(/[\s\u00A0]+/g, ' ').trim();
}

function tidyInline(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/[ \t\u00A0]+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
}

/** Keeps line structure (code, preformatted text, plain-text files); trims line ends and blank runs. */
export function tidyPreformatted(text: string): string {
  return text
    .replace(INVISIBLE, '')
    .replace(/\r\n?/g, '\n')
    .replace(/\u00A0/g, ' ')
    .split('\n')
    .map((line) => line.replace(/\s+$/, ''))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/^\n+|\n+$/g, '');
}

class SectionBuilder {
  private readonly sections: ContentSection[] = [];
  private levels: (string | undefined)[];
  private blocks: string[] = [];
  private inline = '';

  constructor(outerHeading?: string) {
    this.levels = outerHeading ? [outerHeading] : [];
  }

  text(data: string): void {
    this.inline += data.replace(INVISIBLE, '').replace(/[\s\u00A0]+/g, ' ');
  }

  lineBreak(): void {
    this.inline += '\n';
  }

  boundary(): void {
    const text = tidyInline(this.inline);
    if (text) this.blocks.push(text);
    this.inline = '';
  }

  preformatted(raw: string): void {
    this.boundary();
    const text = tidyPreformatted(raw);
    if (text) this.blocks.push(text);
  }

  heading(level: number, title: string): void {
    this.boundary();
    this.flush();
    this.levels = this.levels.slice(0, level - 1);
    this.levels[level - 1] = title.slice(0, 300);
  }

  finish(): ContentSection[] {
    this.boundary();
    this.flush();
    return this.sections;
  }

  private flush(): void {
    if (this.blocks.length === 0) return;
    this.sections.push({
      text: this.blocks.join('\n\n'),
      headingPath: this.levels.filter((h): h is string => !!h),
    });
    this.blocks = [];
  }
}

function headingLevel(el: Element): number | null {
  const marked = Number(el.getAttribute(LEVEL_ATTR));
  if (marked >= 1 && marked <= 4) return marked;
  const match = HEADING.exec(el.localName);
  return match ? Number(match[1]) : null;
}

/** Walks `root` in document order (iteratively: deep markup must not overflow the stack). */
function collectSections(root: Element, outerHeading?: string): ContentSection[] {
  const builder = new SectionBuilder(outerHeading);
  const END = Symbol('end');
  const stack: (Node | typeof END)[] = [root];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (item === END) {
      builder.boundary();
      continue;
    }
    if (item.nodeType === 3) {
      builder.text((item as Text).data);
      continue;
    }
    if (item.nodeType !== 1) continue;
    const el = item as Element;
    const tag = el.localName;
    if (SKIP.has(tag)) continue;
    const level = headingLevel(el);
    if (level !== null) {
      const title = collapseWhitespace(el.textContent ?? '');
      if (title) builder.heading(level, title);
      continue;
    }
    if (tag === 'pre') {
      builder.preformatted(el.textContent ?? '');
      continue;
    }
    if (tag === 'br') {
      builder.lineBreak();
      continue;
    }
    if (tag === 'td' || tag === 'th') builder.text(' ');
    if (BLOCK.has(tag)) {
      builder.boundary();
      stack.push(END);
    }
    for (let child = el.lastChild; child; child = child.previousSibling) stack.push(child);
  }
  return builder.finish();
}

function removeBoilerplate(doc: Document): void {
  for (const el of Array.from(doc.querySelectorAll(REMOVE_ALWAYS))) el.remove();
  for (const el of Array.from(doc.querySelectorAll('[style]'))) {
    if (HIDDEN_STYLE.test(el.getAttribute('style') ?? '')) el.remove();
  }
  for (const el of Array.from(doc.querySelectorAll('header, footer'))) {
    if (!el.parentElement?.closest(CONTENT_CONTAINER)) el.remove();
  }
  for (const el of Array.from(doc.querySelectorAll('[id], [class], [aria-label]'))) {
    if (!el.isConnected || el.localName === 'body' || el.localName === 'html' || el.matches(CONTENT_CONTAINER)) continue;
    const label = `${el.id} ${el.getAttribute('class') ?? ''} ${el.getAttribute('aria-label') ?? ''}`;
    if (!COOKIE_LIKE.test(label)) continue;
    if (el.querySelector(CONTENT_CONTAINER)) continue;
    if ((el.textContent ?? '').length > MAX_BANNER_TEXT) continue;
    el.remove();
  }
}

function markHeadingLevels(doc: Document): void {
  // Readability renames h1 to h2; remember the original level so nesting survives.
  for (const el of Array.from(doc.querySelectorAll('h1, h2, h3, h4'))) {
    el.setAttribute(LEVEL_ATTR, el.localName.slice(1));
  }
}

function textLength(node: Node | null | undefined): number {
  return node ? collapseWhitespace(node.textContent ?? '').length : 0;
}

function sectionsLength(sections: ContentSection[]): number {
  return sections.reduce((sum, s) => sum + s.text.length, 0);
}

/** Readability gives up (and we fall back) on documents with more elements than this. */
const MAX_READABILITY_ELEMENTS = 100_000;

export interface ExtractOptions {
  /** Let extraction modify `document` instead of a copy (saves a clone; the caller is done with it). */
  inPlace?: boolean;
}

/** Extracts the main content of an already parsed document. */
export function extractMainContentFromDocument(document: Document, options: ExtractOptions = {}): MainContent {
  const doc = options.inPlace ? document : (document.cloneNode(true) as Document);
  const documentTitle = collapseWhitespace(doc.title ?? '');
  removeBoilerplate(doc);
  markHeadingLevels(doc);

  const h1s = Array.from(doc.querySelectorAll('h1'));
  const h1Text = h1s.length === 1 ? collapseWhitespace(h1s[0]!.textContent ?? '') : '';
  const articles = doc.querySelectorAll('article');
  const fallbackRoot: Element | null =
    doc.querySelector('main, [role="main"]') ?? (articles.length === 1 ? articles[0]! : null) ?? doc.body;
  // Walk the fallback before Readability, which rewrites the document in place.
  const fallback = fallbackRoot ? collectSections(fallbackRoot) : [];
  const fallbackLength = sectionsLength(fallback);
  const firstHeading = collapseWhitespace(h1s[0]?.textContent ?? '');

  let article: ReturnType<Readability<Node>['parse']> = null;
  try {
    article = new Readability<Node>(doc, {
      charThreshold: 200,
      maxElemsToParse: MAX_READABILITY_ELEMENTS,
      // Hand back the element itself: no serialise + re-parse round trip.
      serializer: (node) => node,
    }).parse();
  } catch {
    article = null;
  }

  let sections = fallback;
  const content = article?.content as Element | null | undefined;
  if (content) {
    const length = textLength(content);
    if (length > 0 && (length >= fallbackLength * 0.5 || length >= 1500)) {
      // Readability drops an h1 that repeats the title; keep it as the outermost heading.
      const keptH1 = content.querySelector(`[${LEVEL_ATTR}="1"]`) !== null;
      sections = collectSections(content, h1Text && !keptH1 ? h1Text : undefined);
    }
  }

  const title = collapseWhitespace(article?.title ?? '') || documentTitle || firstHeading;
  return { title: title.slice(0, 500), sections };
}

/** HTML string -> { title, sections }. `url` resolves relative links and sets document.URL. */
export function extractMainContent(html: string, options: { url?: string } = {}): MainContent {
  const dom = new JSDOM(html, { url: options.url, virtualConsole: new VirtualConsole() });
  try {
    return extractMainContentFromDocument(dom.window.document, { inPlace: true });
  } finally {
    dom.window.close();
  }
}

/** text/plain -> { title, sections }: one section, line structure kept. */
export function extractPlainText(text: string, options: { url?: string } = {}): MainContent {
  const tidy = tidyPreformatted(text);
  const firstLine = tidy.split('\n').find((line) => line.trim())?.trim() ?? '';
  let title = firstLine.length > 0 && firstLine.length <= 150 ? firstLine : '';
  if (!title && options.url) {
    const segments = new URL(options.url).pathname.split('/').filter(Boolean);
    const last = segments.at(-1) ?? '';
    try {
      title = decodeURIComponent(last);
    } catch {
      title = last;
    }
  }
  return { title, sections: tidy ? [{ text: tidy, headingPath: [] }] : [] };
}
