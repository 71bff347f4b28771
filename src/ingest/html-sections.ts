/**
 * Walks an HTML DOM (mammoth's output for DOCX, or a crawled page's main content) and emits one
 * section per block, each carrying the path of headings above it. Lists stay one block with one
 * line per item; tables become "Header: value" rows (see tables.ts); <pre> keeps its line breaks.
 */
import { cleanText, collapseWhitespace, tidyBlock } from './normalize';
import { formatTable, type GridCell } from './tables';
import type { ParsedSection } from './types';

export interface DomToSectionsOptions {
  url?: string;
  /** Web pages: drop nav/aside/footer and treat tables that hold headings or tables as layout. */
  webPage?: boolean;
}

const SKIP = new Set([
  'script', 'style', 'noscript', 'template', 'svg', 'canvas', 'iframe', 'object', 'embed', 'head', 'title',
  'meta', 'link', 'button', 'select', 'option', 'input', 'textarea', 'map', 'audio', 'video', 'img', 'picture',
]);
const BOILERPLATE = new Set(['nav', 'aside', 'footer']);
const BOILERPLATE_ROLES = new Set(['navigation', 'contentinfo', 'search', 'complementary']);
const BLOCK = new Set([
  'p', 'div', 'section', 'article', 'main', 'header', 'footer', 'aside', 'nav', 'blockquote', 'figure',
  'figcaption', 'address', 'details', 'summary', 'form', 'fieldset', 'legend', 'dl', 'dt', 'dd', 'hr',
  'center', 'caption', 'body', 'html', 'tr', 'td', 'th', 'thead', 'tbody', 'tfoot',
]);
const HEADING = /^h([1-6])$/;
// Back-links mammoth appends to footnotes; they are navigation, not content.
const BACKLINK = /^[↑⤴︎]$/;
const MAX_ROWSPAN = 500;
const MAX_COLSPAN = 100;
// Grid slots one table may fill; spans beyond it count as 1, so hostile markup cannot blow memory.
const MAX_GRID_SLOTS = 1_000_000;

const tagOf = (el: Element): string => el.localName.toLowerCase();

function isHidden(el: Element): boolean {
  return el.hasAttribute('hidden') || el.getAttribute('aria-hidden') === 'true' || /display\s*:\s*none/i.test(el.getAttribute('style') ?? '');
}

function isBoilerplate(el: Element): boolean {
  return BOILERPLATE.has(tagOf(el)) || BOILERPLATE_ROLES.has(el.getAttribute('role') ?? '');
}

/** Text of an element read as one line: block boundaries become spaces, nested tables rows "; ". */
function inlineText(el: Element): string {
  const parts: string[] = [];
  const walk = (node: Node): void => {
    if (node.nodeType === 3) {
      parts.push((node as Text).data);
      return;
    }
    if (node.nodeType !== 1) return;
    const child = node as Element;
    const tag = tagOf(child);
    if (SKIP.has(tag) || isHidden(child)) return;
    if (tag === 'a' && BACKLINK.test((child.textContent ?? '').trim())) return;
    if (tag === 'table') {
      parts.push(' ', tableText(child).replace(/\n/g, '; '), ' ');
      return;
    }
    const block = BLOCK.has(tag) || tag === 'br' || tag === 'li' || HEADING.test(tag);
    if (block) parts.push(' ');
    child.childNodes.forEach(walk);
    if (block) parts.push(' ');
  };
  walk(el);
  return collapseWhitespace(parts.join(''));
}

function directRows(table: Element): Element[] {
  const rows: Element[] = [];
  for (const child of Array.from(table.children)) {
    const tag = tagOf(child);
    if (tag === 'tr') rows.push(child);
    else if (tag === 'thead' || tag === 'tbody' || tag === 'tfoot') {
      rows.push(...Array.from(child.children).filter((c) => tagOf(c) === 'tr'));
    }
  }
  return rows;
}

function span(el: Element, attr: string, max: number): number {
  const n = Number.parseInt(el.getAttribute(attr) ?? '1', 10);
  return Number.isFinite(n) && n >= 1 ? Math.min(n, max) : 1;
}

function looksLikeHeaderRow(row: GridCell[]): boolean {
  return row.length >= 2 && row.every((c) => c.text !== '' && c.text.length <= 50 && !/^[\d\s.,%$€£()+-]+$/.test(c.text));
}

export function tableText(table: Element): string {
  const rows = directRows(table);
  const grid: GridCell[][] = rows.map(() => []);
  let budget = MAX_GRID_SLOTS;
  rows.forEach((row, r) => {
    let col = 0;
    for (const cell of Array.from(row.children)) {
      const tag = tagOf(cell);
      if (tag !== 'td' && tag !== 'th') continue;
      const gridRow = grid[r]!;
      while (gridRow[col] !== undefined) col++;
      const text = inlineText(cell);
      let rowspan = Math.min(span(cell, 'rowspan', MAX_ROWSPAN), rows.length - r);
      let colspan = span(cell, 'colspan', MAX_COLSPAN);
      if (rowspan * colspan > budget) rowspan = colspan = 1;
      budget -= rowspan * colspan;
      for (let i = 0; i < rowspan; i++) {
        for (let j = 0; j < colspan; j++) grid[r + i]![col + j] = { text, source: cell };
      }
      col += colspan;
    }
  });
  const width = grid.reduce((max, row) => Math.max(max, row.length), 0);
  const dense = grid.map((row) => Array.from({ length: width }, (_, i) => row[i] ?? { text: '' }));

  const firstRow = rows[0];
  const explicitHeader =
    firstRow !== undefined &&
    (tagOf(firstRow.parentElement!) === 'thead' || Array.from(firstRow.children).every((c) => tagOf(c) === 'th'));
  // Without <th>/<thead> the first row is taken as a header only when it looks like one: at
  // least two data rows below it, short distinct labels, none spanning rows.
  const guessedHeader =
    dense.length >= 3 &&
    looksLikeHeaderRow(dense[0]!) &&
    new Set(dense[0]!.map((c) => c.source)).size === dense[0]!.length &&
    Array.from(firstRow?.children ?? []).every((c) => span(c, 'rowspan', MAX_ROWSPAN) === 1);
  const hasHeader = dense.length >= 2 && (explicitHeader || guessedHeader);
  return formatTable(dense, hasHeader);
}

/** A table used for page layout rather than data: it holds headings or further tables. */
function isLayoutTable(table: Element): boolean {
  return table.querySelector('h1, h2, h3, h4, h5, h6, table') !== null;
}

class SectionWriter {
  readonly sections: ParsedSection[] = [];
  private readonly headings: Array<{ level: number; text: string }> = [];
  private lines: string[] = [];
  private inline = '';
  private prefix = '';
  private readonly lists: Array<{ ordered: boolean; next: number }> = [];

  constructor(private readonly options: DomToSectionsOptions) {}

  get headingPath(): string[] {
    return this.headings.map((h) => h.text);
  }

  visit(node: Node): void {
    if (node.nodeType === 3) {
      this.inline += (node as Text).data;
      return;
    }
    if (node.nodeType !== 1) return;
    const el = node as Element;
    const tag = tagOf(el);
    if (SKIP.has(tag) || isHidden(el)) return;
    if (this.options.webPage && isBoilerplate(el)) return;

    const heading = HEADING.exec(tag);
    if (heading) return this.heading(Number(heading[1]), inlineText(el));
    if (tag === 'pre') return this.pushBlock(el.textContent ?? '', true);
    if (tag === 'table' && !(this.options.webPage && isLayoutTable(el))) return this.pushBlock(tableText(el));
    if (tag === 'ul' || tag === 'ol') return this.list(el, tag === 'ol');
    if (tag === 'li') return this.listItem(el);
    if (tag === 'br') return this.endLine();
    if (tag === 'a' && BACKLINK.test((el.textContent ?? '').trim())) return;

    if (BLOCK.has(tag)) {
      this.boundary();
      el.childNodes.forEach((child) => this.visit(child));
      this.boundary();
      return;
    }
    el.childNodes.forEach((child) => this.visit(child));
  }

  finish(): ParsedSection[] {
    this.endBlock();
    return this.sections;
  }

  // Inside a list a paragraph only ends the line, so the whole list stays one block.
  private boundary(): void {
    if (this.lists.length > 0) this.endLine();
    else this.endBlock();
  }

  private heading(level: number, text: string): void {
    this.endBlock();
    if (!text) return;
    while (this.headings.length > 0 && this.headings[this.headings.length - 1]!.level >= level) this.headings.pop();
    this.headings.push({ level, text });
  }

  private list(el: Element, ordered: boolean): void {
    this.endLine();
    if (this.lists.length === 0) this.endBlock();
    const start = Number.parseInt(el.getAttribute('start') ?? '1', 10);
    this.lists.push({ ordered, next: Number.isFinite(start) ? start : 1 });
    el.childNodes.forEach((child) => this.visit(child));
    this.lists.pop();
    this.endLine();
    if (this.lists.length === 0) this.endBlock();
  }

  private listItem(el: Element): void {
    this.endLine();
    const list = this.lists[this.lists.length - 1];
    const indent = '  '.repeat(Math.max(0, this.lists.length - 1));
    this.prefix = indent + (list?.ordered ? `${list.next++}. ` : '- ');
    el.childNodes.forEach((child) => this.visit(child));
    this.endLine();
  }

  private endLine(): void {
    const text = collapseWhitespace(this.inline);
    this.inline = '';
    if (text) this.lines.push(this.prefix + text);
    // Later lines of the same item (after a <br> or nested <p>) are indented, not re-bulleted.
    if (text && this.prefix) this.prefix = ' '.repeat(this.prefix.length);
  }

  private endBlock(): void {
    this.endLine();
    this.prefix = '';
    if (this.lines.length === 0) return;
    this.emit(this.lines.join('\n'));
    this.lines = [];
  }

  private pushBlock(text: string, preformatted = false): void {
    this.endBlock();
    const block = preformatted
      ? text.replace(/\r\n?/g, '\n').split('\n').map((l) => l.trimEnd()).join('\n').replace(/^\n+|\n+$/g, '')
      : tidyBlock(text);
    if (block.trim()) this.emit(block);
  }

  private emit(text: string): void {
    const section: ParsedSection = { text: cleanText(text), headingPath: this.headingPath };
    if (this.options.url) section.url = this.options.url;
    this.sections.push(section);
  }
}

/** Sections of everything under `root`, in document order. */
export function domToSections(root: Element, options: DomToSectionsOptions = {}): ParsedSection[] {
  const writer = new SectionWriter(options);
  writer.visit(root);
  return writer.finish();
}
