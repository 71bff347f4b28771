import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { parseTxt } from '../../src/ingest/parse-txt';
import { decodeText } from '../../src/ingest/text-decode';

const PHRASE = 'Café “quoted” – 15 €, naïve Straße.';

describe('decodeText', () => {
  it('honours byte order marks', () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(PHRASE, 'utf16le')]);
    const be = Buffer.from(le);
    be.swap16();
    expect(decodeText(le)).toEqual({ text: PHRASE, encoding: 'utf-16le' });
    expect(decodeText(be)).toEqual({ text: PHRASE, encoding: 'utf-16be' });
    expect(decodeText(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(PHRASE)]))).toEqual({ text: PHRASE, encoding: 'utf-8' });
  });

  it('spots UTF-16 without a BOM', () => {
    expect(decodeText(Buffer.from('Plain English text in UTF-16.', 'utf16le')).text).toBe('Plain English text in UTF-16.');
  });

  it('falls back to cp1252 for Western legacy text, and trusts chardet when it is sure', () => {
    expect(decodeText(iconv.encode(PHRASE, 'windows-1252'))).toEqual({ text: PHRASE, encoding: 'windows-1252' });
    const russian = 'Все люди рождаются свободными и равными в своем достоинстве и правах. Они наделены разумом и совестью.';
    expect(decodeText(iconv.encode(russian, 'windows-1251')).text).toBe(russian);
    const japanese = 'すべての人間は、生まれながらにして自由であり、かつ、尊厳と権利とについて平等である。人間は、理性と良心とを授けられており、互いに同胞の精神をもって行動しなければならない。';
    expect(decodeText(iconv.encode(japanese, 'shift_jis')).text).toBe(japanese);
    const korean = '대한민국은 민주공화국이다. 대한민국의 주권은 국민에게 있고, 모든 권력은 국민으로부터 나온다. 국민의 요건은 법률로 정한다.';
    expect(decodeText(iconv.encode(korean, 'euc-kr')).text).toBe(korean);
  });
});

describe('parseTxt', () => {
  it('splits paragraphs at blank lines and keeps line breaks inside them', () => {
    const bytes = iconv.encode('Dear team,\r\n\r\nThe office   closes at 5pm.\r\nBring your badge.\r\n\r\n\r\n– HR €\r\n', 'windows-1252');
    expect(parseTxt(bytes)).toEqual({
      sections: [
        { text: 'Dear team,', headingPath: [] },
        { text: 'The office closes at 5pm.\nBring your badge.', headingPath: [] },
        { text: '– HR €', headingPath: [] },
      ],
    });
  });

  it('collapses runs of spaces, tabs and no-break spaces inside a line to one space', () => {
    const bytes = Buffer.from('one\ttwo  three\u00A0four \u00A0\t five six\t\n\u00A0 seven');
    expect(parseTxt(bytes).sections).toEqual([{ text: 'one two three four five six\nseven', headingPath: [] }]);
  });

  it('reads UTF-16 with a BOM and strips control characters', () => {
    const bytes = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('Zero\u200Bwidth and\u0007bell', 'utf16le').swap16()]);
    expect(parseTxt(bytes).sections).toEqual([{ text: 'Zerowidth andbell', headingPath: [] }]);
  });
});
