/**
 * Ligature glyphs with no Unicode value (pdf.js reports U+0000): decoded per document by the
 * offline vocabulary's unigram model (src/ingest/pdf-ligatures.ts). The earnings-call PDFs of the
 * shared data draw every "fi"/"fl" that way, which made "Snowflake" read "Snowake".
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLocalEncoder } from '../../src/ai/embeddings/local';
import { parsePdf } from '../../src/ingest/parse-pdf';
import { chooseLigatures } from '../../src/ingest/pdf-ligatures';

const CALLS = path.resolve(import.meta.dirname, '../../../shared/data/earnings-calls/docs');
const A = '\uE000';
const B = '\uE001';
const C = '\uE002';

let logProbability: (word: string) => number;
beforeAll(async () => {
  const { encoder } = await loadLocalEncoder();
  logProbability = (word) => encoder.tokenizer.logProbability(word);
});

describe('chooseLigatures', () => {
  it('gives each glyph the ligature its words are most probable with', () => {
    const texts = [`the ${A}scal year, ${A}nancial results and our ${A}rst quarter`, `free cash ${B}ow ${B}exibility, it re${B}ects`];
    const choice = chooseLigatures(texts, logProbability);
    expect(choice.get(A)).toBe('fi');
    expect(choice.get(B)).toBe('fl');
  });

  it('lets a glyph’s other words outvote one close call', () => {
    // Alone, "snow?ake" reads slightly better as "snowffake" under the unigram model.
    const texts = [`Snow${A}ake Snow${A}ake Snow${A}ake`, `cash ${A}ow, ${A}exibility, re${A}ecting, ${A}uctuate`];
    expect(chooseLigatures(texts, logProbability).get(A)).toBe('fl');
  });

  it('drops a glyph that is rarely followed by a letter: a symbol, not a ligature', () => {
    const texts = [`Acme${C} and Widget${C} are trademarks; see Acme${C}.`];
    expect(chooseLigatures(texts, logProbability).get(C)).toBe('');
  });
});

describe('parsePdf on a PDF whose ligatures have no Unicode value', () => {
  it('reads "Snowflake", "fiscal" and "flow" where the glyphs were lost', async () => {
    const bytes = readFileSync(path.join(CALLS, 'Q3 2023 Snowflake Inc. Earnings Call - Snowflake Inc - BamSEC.pdf'));
    const text = (await parsePdf(new Uint8Array(bytes))).sections.map((s) => s.text).join('\n');
    expect(text.match(/Snowflake/g)?.length).toBeGreaterThan(50);
    expect(text).not.toMatch(/Snowake|\bscal year|cash ow\b/);
    expect(text).toMatch(/fiscal year/);
    expect(text).toMatch(/free cash flow/);
    expect(text).not.toMatch(/[\u0000\uE000-\uF8FF]/);
  });
});
