/**
 * Markdown via remark (CommonMark + GFM). Headings build the heading path; paragraphs, lists,
 * block quotes, code blocks and tables each become one section. Code keeps its fences and
 * indentation (it is quoted back to users as code); tables become "Header: value" rows.
 */
import { JSDOM } from 'jsdom';
import type { Nodes, Parent, Root, RootContent, Table } from 'mdast';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { cleanText, collapseWhitespace, tidyBlock } from './normalize';
import { formatStringTable } from './tables';
import type { ParsedDocument, ParsedSection } from './types';
import { decodeText } from './text-decode';

// YAML front matter is not Markdown: left in, it would parse as a rule plus a setext heading.
const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;

function htmlToText(html: string): string {
  return collapseWhitespace(JSDOM.fragment(html).textContent ?? '');
}

/** Text of inline content; `br` and soft breaks inside paragraphs survive as newlines. */
function inlineText(node: Nodes): string {
  switch (node.type) {
    case 'text':
    case 'inlineCode':
      return node.value;
    case 'break':
      return '\n';
    case 'html':
      return htmlToText(node.value);
    case 'image':
      // Alt text in Markdown is mostly badges and logos; images are skipped in every format.
      return '';
    case 'footnoteReference':
      return `[^${node.label ?? node.identifier}]`;
    default:
      return 'children' in node ? (node as Parent).children.map((c) => inlineText(c as Nodes)).join('') : '';
  }
}

function tableText(table: Table): string {
  const rows = table.children.map((row) => row.children.map((cell) => collapseWhitespace(inlineText(cell))));
  return formatStringTable(rows, true);
}

/** A block as text; lists are one block with one line per item, nested items indented. */
function blockText(node: RootContent): string {
  switch (node.type) {
    case 'paragraph':
    case 'heading':
      return tidyBlock(inlineText(node));
    case 'code': {
      const body = cleanText(node.value)
        .split('\n')
        .map((l) => l.trimEnd())
        .join('\n');
      return '```' + (node.lang ?? '') + '\n' + body + '\n```';
    }
    case 'table':
      return tableText(node);
    case 'html':
      return htmlToText(node.value);
    case 'blockquote':
      return node.children.map((c) => blockText(c)).filter(Boolean).join('\n');
    case 'list': {
      let number = node.start ?? 1;
      return node.children
        .map((item) => {
          const marker = node.ordered ? `${number++}. ` : '- ';
          const check = item.checked === true ? '[x] ' : item.checked === false ? '[ ] ' : '';
          const body = item.children.map((child) => blockText(child)).filter(Boolean).join('\n');
          // Continuation lines and nested lists are indented under their item.
          return marker + check + body.replace(/\n/g, '\n  ');
        })
        .join('\n');
    }
    case 'footnoteDefinition':
      return `[^${node.label ?? node.identifier}]: ` + node.children.map((c) => blockText(c)).join(' ');
    default:
      return '';
  }
}

export function parseMarkdownText(markdown: string): ParsedDocument {
  let source = cleanText(markdown);
  let title: string | undefined;
  const frontMatter = FRONT_MATTER.exec(source);
  if (frontMatter) {
    title = /^title:\s*["']?(.+?)["']?\s*$/m.exec(frontMatter[1] ?? '')?.[1];
    source = source.slice(frontMatter[0].length);
  }

  const tree = unified().use(remarkParse).use(remarkGfm).parse(source) as Root;
  const sections: ParsedSection[] = [];
  const headings: Array<{ depth: number; text: string }> = [];
  for (const node of tree.children) {
    if (node.type === 'heading') {
      const text = collapseWhitespace(inlineText(node));
      if (!text) continue;
      while (headings.length > 0 && headings[headings.length - 1]!.depth >= node.depth) headings.pop();
      headings.push({ depth: node.depth, text });
      if (node.depth === 1 && title === undefined) title = text;
      continue;
    }
    const text = blockText(node);
    if (text.trim()) sections.push({ text, headingPath: headings.map((h) => h.text) });
  }
  return { ...(title ? { title } : {}), sections };
}

export function parseMarkdown(bytes: Uint8Array): ParsedDocument {
  return parseMarkdownText(decodeText(bytes).text);
}
