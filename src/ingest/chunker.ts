/**
 * Structure-aware chunking. Consecutive sections sharing a heading path, page and URL form a
 * group; a group is packed greedily into chunks of about `targetTokens`, never above
 * `maxTokens`, and a chunk never mixes two groups, so every chunk's heading path and page are
 * exactly where its text came from. Blocks bigger than the target are split at line breaks,
 * then sentences, then words. Each chunk starts with the last sentence or two of the previous
 * one (when they fit in `overlapTokens`), including across a page break under the same heading,
 * so a sentence cut by the page is still whole in one of the two chunks.
 *
 * Pure and deterministic: the same sections and options always give the same chunks, which is
 * what makes re-ingesting a document idempotent. (Sentence boundaries come from ICU through
 * Intl.Segmenter with a fixed locale, so a Node upgrade that changes ICU could move them.)
 */
import type { Chunk, ParsedDocument, ParsedSection } from './types';

export interface ChunkOptions {
  targetTokens?: number;
  maxTokens?: number;
  overlapTokens?: number;
  /** A group's last chunk smaller than this is folded into the previous chunk when it fits. */
  minTokens?: number;
}

export const DEFAULT_CHUNK_OPTIONS: Required<ChunkOptions> = {
  targetTokens: 300,
  maxTokens: 512,
  overlapTokens: 60,
  minTokens: 50,
};

// --- token estimate ---------------------------------------------------------------------------

/**
 * Tokens a BPE tokenizer (GPT/BERT family) would roughly use, without loading one: ~4 characters
 * per token for Latin script, ~2 for other alphabets (Greek, Cyrillic, Arabic, Hebrew, Indic),
 * 1 per CJK or Hangul character. It errs on the high side for non-Latin text, which only makes
 * chunks smaller, never too big for a 512-token embedding model.
 */
function tokenWeight(codePoint: number): number {
  if (codePoint < 0x250) return 0.25;
  if (
    (codePoint >= 0x1100 && codePoint <= 0x11ff) ||
    (codePoint >= 0x2e80 && codePoint <= 0x9fff) ||
    (codePoint >= 0xac00 && codePoint <= 0xd7af) ||
    (codePoint >= 0xf900 && codePoint <= 0xfaff) ||
    (codePoint >= 0xff00 && codePoint <= 0xffef) ||
    codePoint >= 0x20000
  ) {
    return 1;
  }
  return 0.5;
}

function weightOf(text: string): number {
  let total = 0;
  for (const ch of text) total += tokenWeight(ch.codePointAt(0)!);
  return total;
}

const SPACE_WEIGHT = tokenWeight(0x20);

export function estimateTokens(text: string): number {
  return Math.ceil(weightOf(text));
}

// --- sentences --------------------------------------------------------------------------------

// A fixed locale: the default one depends on the machine, and chunks must not.
const sentenceSegmenter = new Intl.Segmenter('en', { granularity: 'sentence' });
// ICU breaks after any "word." followed by a capital; these are the common false ends.
const ABBREVIATION =
  /(?:^|[\s(])(?:Mr|Mrs|Ms|Dr|Prof|Sr|Jr|St|Mt|vs|e\.g|i\.e|cf|Fig|Figs|Eq|No|Nos|Vol|pp|Inc|Ltd|Co|Corp|Dept|Sec|Art|Ch|approx|al|ca|resp|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|[A-Z])\.[ \t]*$/;

interface Piece {
  text: string;
  /** Whitespace that separated this piece from the previous one in the source. */
  joiner: string;
}

function sentencePieces(text: string): Piece[] {
  const merged: string[] = [];
  for (const { segment } of sentenceSegmenter.segment(text)) {
    const last = merged[merged.length - 1];
    if (last !== undefined && ABBREVIATION.test(last)) merged[merged.length - 1] = last + segment;
    else merged.push(segment);
  }
  const pieces: Piece[] = [];
  let joiner = '';
  for (const segment of merged) {
    const trimmed = segment.trim();
    const trailing = segment.slice(segment.trimEnd().length);
    if (trimmed) pieces.push({ text: trimmed, joiner: pieces.length === 0 ? '' : joiner });
    joiner = trailing.includes('\n') ? '\n' : trailing ? ' ' : '';
  }
  return pieces;
}

/** Sentences of `text`, trimmed, in order; line breaks always end a sentence. */
export function splitSentences(text: string): string[] {
  return sentencePieces(text).map((p) => p.text);
}

// --- splitting oversized blocks -----------------------------------------------------------------

/**
 * Cuts `text` (one word, no spaces) into pieces of at most `limit`. It slices the text rather than
 * rebuilding it a character at a time: a 24 MB line of base64 took 5 s and 850 MB of heap that way.
 */
function splitByWeight(text: string, limit: number): Piece[] {
  const pieces: Piece[] = [];
  let start = 0;
  let weight = 0;
  for (let i = 0; i < text.length; ) {
    const code = text.codePointAt(i)!;
    const w = tokenWeight(code);
    if (weight + w > limit && i > start) {
      pieces.push({ text: text.slice(start, i), joiner: '' });
      [start, weight] = [i, 0];
    }
    weight += w;
    i += code > 0xffff ? 2 : 1;
  }
  if (text.length > start) pieces.push({ text: text.slice(start), joiner: '' });
  return pieces;
}

// Any run of whitespace but a lone space: most pieces then have nothing to replace.
const SPACES_TO_ONE = /\s{2,}|[^\S ]/g;

// What `\s` matches, by code: words are split here without a regex, for the reason below.
function isSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/**
 * Words joined by one space, in pieces whose estimate is at most `limit`. It scans the text once and
 * slices it, allocating nothing per word: a 14-million-character line with no sentence end was an
 * array of 3 million words, then 3 million joins, and most of the time went to collecting them. A piece
 * weighs what estimateTokens says of it (its words and the spaces between them); counting a whole
 * token per word and per space made pieces half the size they could be.
 */
function splitByWords(text: string, limit: number): Piece[] {
  const pieces: Piece[] = [];
  const push = (piece: string): void => void pieces.push({ text: piece, joiner: pieces.length ? ' ' : '' });
  let start = -1; // the current piece's first word
  let end = 0;
  let weight = 0;
  const flush = (): void => {
    if (start >= 0) push(text.slice(start, end).replace(SPACES_TO_ONE, ' '));
    start = -1;
  };
  const word = (from: number, to: number, w: number): void => {
    if (Math.ceil(w) > limit) {
      flush();
      for (const part of splitByWeight(text.slice(from, to), limit)) push(part.text);
      return;
    }
    if (start >= 0 && Math.ceil(weight + SPACE_WEIGHT + w) > limit) flush();
    if (start < 0) [start, weight] = [from, w];
    else weight += SPACE_WEIGHT + w;
    end = to;
  };
  let from = -1;
  let w = 0;
  for (let i = 0; i < text.length; ) {
    const code = text.codePointAt(i)!;
    const width = code > 0xffff ? 2 : 1;
    if (isSpace(code)) {
      if (from >= 0) word(from, i, w);
      from = -1;
    } else {
      if (from < 0) [from, w] = [i, 0];
      w += tokenWeight(code);
    }
    i += width;
  }
  if (from >= 0) word(from, text.length, w);
  flush();
  return pieces;
}

/** Pieces of at most `limit` tokens: lines first, then sentences, then words, then characters. */
function splitToFit(text: string, limit: number): Piece[] {
  if (estimateTokens(text) <= limit) return [{ text, joiner: '' }];
  const lines = text.split('\n').filter((l) => l.trim());
  const coarse: Piece[] =
    lines.length > 1 ? lines.map((line, i) => ({ text: line, joiner: i ? '\n' : '' })) : sentencePieces(text);
  if (coarse.length <= 1) return splitByWords(text, limit);
  return coarse.flatMap((piece) => {
    const parts = splitToFit(piece.text, limit);
    return parts.map((part, i) => ({ text: part.text, joiner: i === 0 ? piece.joiner : part.joiner }));
  });
}

// --- packing ------------------------------------------------------------------------------------

interface Unit extends Piece {
  tokens: number;
}

interface Draft {
  seed?: Unit;
  units: Unit[];
}

interface Group {
  headingPath: string[];
  page?: number;
  url?: string;
  texts: string[];
}

const sameHeading = (a: Group, b: Group): boolean =>
  a.url === b.url && a.headingPath.length === b.headingPath.length && a.headingPath.every((h, i) => h === b.headingPath[i]);

function groupSections(sections: ParsedSection[]): Group[] {
  const groups: Group[] = [];
  for (const section of sections) {
    const text = section.text.trim();
    if (!text) continue;
    const last = groups[groups.length - 1];
    const candidate: Group = { headingPath: section.headingPath, page: section.page, url: section.url, texts: [text] };
    if (last && last.page === section.page && sameHeading(last, candidate)) last.texts.push(text);
    else groups.push(candidate);
  }
  return groups;
}

function unitsOf(group: Group, target: number): Unit[] {
  return group.texts.flatMap((text) =>
    splitToFit(text, target).map((piece, i) => {
      // Blocks (and groups, after an overlap seed) are separated like paragraphs.
      const joiner = i === 0 ? '\n\n' : piece.joiner;
      // Counting the separator too keeps the sum of units an upper bound of the chunk's count. (The
      // two weights are added, not the two strings: joined, each unit's text was copied once more.)
      return { text: piece.text, joiner, tokens: Math.ceil(weightOf(joiner) + weightOf(piece.text)) };
    }),
  );
}

/** The last sentence or two of a draft, if they fit in `budget` tokens. */
function overlapOf(draft: Draft, budget: number): Unit | undefined {
  const last = draft.units[draft.units.length - 1];
  if (!last || budget <= 0) return undefined;
  const sentences = sentencePieces(last.text);
  const taken: Piece[] = [];
  let tokens = 0;
  for (let i = sentences.length - 1; i >= 0 && taken.length < 2; i--) {
    const t = estimateTokens(sentences[i]!.text);
    if (tokens + t > budget) break;
    taken.unshift(sentences[i]!);
    tokens += t;
  }
  // The whole unit as overlap would just repeat a small chunk.
  if (taken.length === 0 || (taken.length === sentences.length && draft.units.length === 1)) return undefined;
  const text = taken.map((p, i) => (i ? p.joiner + p.text : p.text)).join('');
  return { text, joiner: '', tokens: estimateTokens(text) };
}

function render(draft: Draft): string {
  let text = draft.seed?.text ?? '';
  for (const unit of draft.units) text = text ? text + unit.joiner + unit.text : unit.text;
  return text.trim();
}

const ownTokens = (draft: Draft): number => draft.units.reduce((n, u) => n + u.tokens, 0);
const draftTokens = (draft: Draft): number => ownTokens(draft) + (draft.seed?.tokens ?? 0);

function packGroup(group: Group, options: Required<ChunkOptions>, seed: Unit | undefined): Draft[] {
  const { targetTokens, maxTokens, overlapTokens, minTokens } = options;
  const drafts: Draft[] = [];
  let current: Draft = { seed, units: [] };
  for (const unit of unitsOf(group, targetTokens)) {
    if (current.units.length > 0 && draftTokens(current) + unit.tokens > targetTokens) {
      drafts.push(current);
      current = { seed: overlapOf(current, overlapTokens), units: [] };
    }
    if (current.seed && current.units.length === 0 && current.seed.tokens + unit.tokens > maxTokens) delete current.seed;
    current.units.push(unit);
  }
  if (current.units.length > 0) drafts.push(current);

  // Fold a tiny tail into the chunk before it rather than leave a near-empty chunk.
  const tail = drafts[drafts.length - 1];
  const before = drafts[drafts.length - 2];
  if (tail && before && ownTokens(tail) < minTokens && draftTokens(before) + ownTokens(tail) <= maxTokens) {
    before.units.push(...tail.units);
    drafts.pop();
  }
  return drafts;
}

export function chunkSections(sections: ParsedSection[], options: ChunkOptions = {}): Chunk[] {
  const resolved = { ...DEFAULT_CHUNK_OPTIONS, ...options };
  if (resolved.targetTokens > resolved.maxTokens) throw new RangeError('targetTokens must not exceed maxTokens');
  const chunks: Chunk[] = [];
  let previous: { group: Group; last: Draft } | undefined;
  for (const group of groupSections(sections)) {
    // Overlap continues across a page break under the same heading, never into a new section.
    const seed = previous && sameHeading(previous.group, group) ? overlapOf(previous.last, resolved.overlapTokens) : undefined;
    const drafts = packGroup(group, resolved, seed);
    for (const draft of drafts) {
      const text = render(draft);
      const chunk: Chunk = { text, headingPath: [...group.headingPath], position: chunks.length, tokenCount: estimateTokens(text) };
      if (group.page !== undefined) chunk.page = group.page;
      if (group.url !== undefined) chunk.url = group.url;
      chunks.push(chunk);
    }
    const last = drafts[drafts.length - 1];
    if (last) previous = { group, last };
  }
  return chunks;
}

export function chunkDocument(document: ParsedDocument, options: ChunkOptions = {}): Chunk[] {
  return chunkSections(document.sections, options);
}
