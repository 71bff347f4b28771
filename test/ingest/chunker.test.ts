import { describe, expect, it } from 'vitest';
import { chunkDocument, chunkSections, DEFAULT_CHUNK_OPTIONS, estimateTokens, splitSentences } from '../../src/ingest/chunker';
import { parsePdf } from '../../src/ingest/parse-pdf';
import type { ParsedSection } from '../../src/ingest/types';
import { readDoc } from './corpus';

/** Distinct, numbered sentences, so every sentence's origin can be traced in the chunks. */
function sentences(prefix: string, count: number): string {
  return Array.from({ length: count }, (_, i) => `${prefix} sentence number ${i + 1} talks about leave, pay and the office.`).join(' ');
}

const section = (text: string, headingPath: string[] = [], page?: number): ParsedSection => ({
  text,
  headingPath,
  ...(page !== undefined ? { page } : {}),
});

describe('estimateTokens', () => {
  it('counts about four Latin characters per token and one per CJK character', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('hello world!')).toBe(3);
    expect(estimateTokens('日本語のテキスト')).toBe(8);
    expect(estimateTokens('Привет')).toBe(3);
  });
});

describe('splitSentences', () => {
  it('splits on sentence ends and line breaks, not on common abbreviations', () => {
    expect(splitSentences('Dr. Smith went to Washington, D.C. on Monday. He met e.g. Mr. Jones! Did it go well?\nA list line\nAnother')).toEqual([
      'Dr. Smith went to Washington, D.C. on Monday.',
      'He met e.g. Mr. Jones!',
      'Did it go well?',
      'A list line',
      'Another',
    ]);
  });

  it('handles CJK punctuation and decimals', () => {
    expect(splitSentences('この文は日本語です。次の文です！')).toEqual(['この文は日本語です。', '次の文です！']);
    expect(splitSentences('Version 1.2.3 costs $4.50 today. Buy it.')).toEqual(['Version 1.2.3 costs $4.50 today.', 'Buy it.']);
  });
});

describe('chunkSections', () => {
  const long = [section(sentences('Alpha', 120), ['Policies', 'Leave'], 3)];

  it('packs text into chunks around the target, never above the maximum', () => {
    const chunks = chunkSections(long);
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) {
      expect(chunk.tokenCount).toBe(estimateTokens(chunk.text));
      expect(chunk.tokenCount).toBeLessThanOrEqual(DEFAULT_CHUNK_OPTIONS.maxTokens);
    }
    for (const chunk of chunks.slice(0, -1)) expect(chunk.tokenCount).toBeGreaterThan(200);
    expect(chunks.map((c) => c.position)).toEqual(chunks.map((_, i) => i));
    expect(chunks.every((c) => c.page === 3 && c.headingPath.join('/') === 'Policies/Leave')).toBe(true);
  });

  it('starts each chunk with the last sentence or two of the previous one', () => {
    const chunks = chunkSections(long);
    for (let i = 1; i < chunks.length; i++) {
      const previous = splitSentences(chunks[i - 1]!.text);
      const current = splitSentences(chunks[i]!.text);
      const overlap = current.slice(0, 2).filter((s) => previous.slice(-2).includes(s));
      expect(overlap.length).toBeGreaterThanOrEqual(1);
      expect(estimateTokens(overlap.join(' '))).toBeLessThanOrEqual(DEFAULT_CHUNK_OPTIONS.overlapTokens);
    }
    // Nothing is lost: every sentence of the source is in some chunk.
    const all = new Set(chunks.flatMap((c) => splitSentences(c.text)));
    for (const s of splitSentences(long[0]!.text)) expect(all.has(s)).toBe(true);
  });

  it('never mixes headings or pages in a chunk, and overlaps across a page break only under the same heading', () => {
    const chunks = chunkSections([
      section(sentences('Intro', 3), ['A'], 1),
      section(sentences('Leave', 30), ['A', 'Leave'], 1),
      section(sentences('Continued', 30), ['A', 'Leave'], 2),
      section(sentences('Pay', 3), ['A', 'Pay'], 2),
    ]);
    for (const chunk of chunks) {
      const origins = new Set(splitSentences(chunk.text).map((s) => s.split(' ')[0]));
      const expected = { A: ['Intro'], 'A/Leave': ['Leave', 'Continued'], 'A/Pay': ['Pay'] }[chunk.headingPath.join('/')];
      for (const origin of origins) expect(expected).toContain(origin);
    }
    const firstOnPage2 = chunks.find((c) => c.page === 2)!;
    expect(firstOnPage2.text.startsWith('Leave sentence number 30')).toBe(true);
    expect(chunks.find((c) => c.headingPath.at(-1) === 'Pay')!.text.startsWith('Pay sentence number 1 ')).toBe(true);
  });

  it('merges tiny sections under the same heading into one chunk', () => {
    const chunks = chunkSections([
      section('Opening hours:', ['Office']),
      section('Mon–Fri 9–17.', ['Office']),
      section('Sat 10–14.', ['Office']),
      section('Closed on Sundays.', ['Office']),
      section('Call 555-0100.', ['Contact']),
    ]);
    expect(chunks.map(({ text, headingPath, position }) => ({ text, headingPath, position }))).toEqual([
      { text: 'Opening hours:\n\nMon–Fri 9–17.\n\nSat 10–14.\n\nClosed on Sundays.', headingPath: ['Office'], position: 0 },
      { text: 'Call 555-0100.', headingPath: ['Contact'], position: 1 },
    ]);
  });

  it('folds a tiny tail into the previous chunk', () => {
    const chunks = chunkSections([section(sentences('Body', 23)), section('Short tail.')]);
    expect(chunks.at(-1)!.text.endsWith('Short tail.')).toBe(true);
    expect(chunks.at(-1)!.tokenCount).toBeGreaterThan(DEFAULT_CHUNK_OPTIONS.minTokens);
  });

  it('splits tables at rows, and text without spaces or punctuation by size', () => {
    const table = ['Name | Role', ...Array.from({ length: 120 }, (_, i) => `Name: Person ${i} | Role: Engineer on team ${i}`)].join('\n');
    const tableChunks = chunkSections([section(table)]);
    expect(tableChunks.length).toBeGreaterThan(1);
    for (const chunk of tableChunks) {
      expect(chunk.text.split('\n').every((line) => line === 'Name | Role' || /^Name: Person \d+ \| Role: Engineer on team \d+$/.test(line))).toBe(true);
    }
    const blob = chunkSections([section('x'.repeat(10_000))]);
    expect(blob.map((c) => c.text).join('')).toBe('x'.repeat(10_000));
    expect(blob.every((c) => c.tokenCount <= DEFAULT_CHUNK_OPTIONS.targetTokens)).toBe(true);
    const cjk = chunkSections([section('数据'.repeat(1_000))]);
    expect(cjk.every((c) => c.tokenCount <= DEFAULT_CHUNK_OPTIONS.maxTokens)).toBe(true);
    expect(cjk.map((c) => c.text).join('')).toBe('数据'.repeat(1_000));
  });

  it('cuts a run of words with no sentence end or line break into pieces that fill the target, keeping every word once', () => {
    const { targetTokens } = DEFAULT_CHUNK_OPTIONS;
    const words = Array.from({ length: 6_000 }, (_, i) => `word${i}${i % 50 === 7 ? '\u{1F600}' : ''}`);
    // Runs of spaces, a tab, an ideographic space: a piece has its words joined by one space.
    const chunks = chunkSections([section(words.map((w, i) => (i % 97 === 3 ? `${w}  \t\u3000` : `${w} `)).join(''))]);
    expect(chunks.map((c) => c.text).join(' ')).toBe(words.join(' '));
    for (const chunk of chunks) expect(chunk.tokenCount).toBe(estimateTokens(chunk.text));
    for (const chunk of chunks) expect(chunk.tokenCount).toBeLessThanOrEqual(targetTokens);
    // Counting a token per word and per space filled them to ~60% of the target.
    for (const chunk of chunks.slice(0, -1)) expect(chunk.tokenCount).toBeGreaterThan(0.95 * targetTokens);
  });

  it('honours custom sizes and rejects contradictory ones', () => {
    const chunks = chunkSections(long, { targetTokens: 100, maxTokens: 150, overlapTokens: 20 });
    expect(chunks.every((c) => c.tokenCount <= 150)).toBe(true);
    expect(() => chunkSections(long, { targetTokens: 600, maxTokens: 512 })).toThrow(RangeError);
  });

  it('is deterministic, so re-ingestion gives identical chunks', async () => {
    const doc = await parsePdf(readDoc('multi-column-2p.pdf'));
    const first = chunkDocument(doc);
    const second = chunkDocument(await parsePdf(readDoc('multi-column-2p.pdf')));
    expect(second).toEqual(first);
    expect(first.every((c) => c.page === 1 || c.page === 2)).toBe(true);
    expect(first.every((c) => c.tokenCount > 0 && c.tokenCount <= DEFAULT_CHUNK_OPTIONS.maxTokens)).toBe(true);
  });

  it('carries URLs and ignores empty sections', () => {
    const chunks = chunkSections([
      { text: '  ', headingPath: [] },
      { text: 'Page one.', headingPath: [], url: 'https://a.example/1' },
      { text: 'Page two.', headingPath: [], url: 'https://a.example/2' },
    ]);
    expect(chunks.map((c) => [c.text, c.url])).toEqual([
      ['Page one.', 'https://a.example/1'],
      ['Page two.', 'https://a.example/2'],
    ]);
  });
});
