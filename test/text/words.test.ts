import { describe, expect, it } from 'vitest';
import { cutAtWord, pieces, searchText, wordSegments } from '../../src/text/words';

describe('word boundaries (ICU)', () => {
  it('splits text written without spaces into dictionary words', () => {
    const text = '北京是中国的首都';
    expect(wordSegments(text).map((s) => text.slice(s.start, s.end))).toEqual(['北京', '是', '中国', '的', '首都']);
    const thai = 'ภาษาไทยง่ายนิดเดียว';
    expect(wordSegments(thai).map((s) => thai.slice(s.start, s.end))).toEqual(['ภาษา', 'ไทย', 'ง่าย', 'นิด', 'เดียว']);
  });

  it('gives PostgreSQL spaces between words and drops non-ASCII punctuation, leaving ASCII text as it is', () => {
    expect(searchText('他说：“北京是中国的首都。”')).toBe('他 说  北京 是 中国 的 首都  ');
    expect(searchText('“quoted” word—word company’s')).toBe(" quoted  word word company's");
    const ascii = 'COVID-19 rates fell 3.5% (see e-mail: a@b.com).';
    expect(searchText(ascii)).toBe(ascii);
  });

  it('cuts long text into pieces at white space, covering it whole', () => {
    const text = Array.from({ length: 3000 }, (_, i) => `word${i}`).join(' ');
    const parts = pieces(text, 2000);
    expect(parts.length).toBeGreaterThan(10);
    expect(parts.map(([a, b]) => text.slice(a, b)).join('')).toBe(text);
    for (const [a, b] of parts) {
      expect(b - a).toBeLessThanOrEqual(2000);
      if (b < text.length) expect(text[b - 1]).toBe(' ');
    }
    // Every word of a long text is found once, across the pieces.
    expect(wordSegments(text)).toHaveLength(3000);
  });

  it('cuts a snippet between two words', () => {
    expect(cutAtWord('北京是中国的首都上海是最大的城市', 9)).toBe('北京是中国的首都');
    expect(cutAtWord('short', 10)).toBe('short');
  });
});
