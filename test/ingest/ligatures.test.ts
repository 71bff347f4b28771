import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { restoreLostLigatures } from '../../src/ingest/ligatures';
import { parsePdf } from '../../src/ingest/parse-pdf';

const EARNINGS_CALLS = path.resolve(__dirname, '../../../shared/data/earnings-calls/docs');

describe('restoreLostLigatures', () => {
  it('puts back the ligature that makes an English word', () => {
    expect(restoreLostLigatures('Snow\u0000ake reported \u0000nancial results; cash \u0000ow and O\u0000cer e\u0000ciency')).toBe(
      'Snowflake reported financial results; cash flow and Officer efficiency',
    );
  });

  it('falls back to "fi" for a word it does not know, and leaves text without NUL alone', () => {
    expect(restoreLostLigatures('Zorb\u0000qx')).toBe('Zorbfiqx');
    expect(restoreLostLigatures('a stray \u0000 between words')).toBe('a stray \u0000 between words');
    const plain = 'nothing lost here';
    expect(restoreLostLigatures(plain)).toBe(plain);
  });
});

describe('parsePdf on a PDF whose ToUnicode maps ligatures to U+0000', () => {
  it('reads "Snowflake", "financial" and "flow" where it used to store "Snowake", "nancial" and "ow"', async () => {
    const bytes = new Uint8Array(readFileSync(path.join(EARNINGS_CALLS, 'Q1 2022 Snowflake Inc. Earnings Call - Snowflake Inc - BamSEC.pdf')));
    const text = (await parsePdf(bytes)).sections.map((s) => s.text).join('\n');
    expect(text).toContain('Edited Transcript of Snowflake Inc. earnings conference call');
    expect(text).not.toMatch(/Snowake/);
    expect(text).toMatch(/\bfinancial\b/);
    expect(text).not.toMatch(/\bnancial\b/);
    expect(text).toMatch(/\bfree cash flow\b/i);
    expect(text).not.toContain('\u0000');
  });
});
