import { describe, expect, it } from 'vitest';
import { stem } from '../../src/ai/offline/stemmer';
import { concept, splitSentences, tokenize } from '../../src/ai/offline/text';

describe('stem (Porter)', () => {
  it.each([
    ['caresses', 'caress'],
    ['ponies', 'poni'],
    ['running', 'run'],
    ['hopping', 'hop'],
    ['agreed', 'agre'],
    ['relational', 'relat'],
    ['invention', 'invent'],
    ['invented', 'invent'],
    ['generalizations', 'gener'],
    ['electricity', 'electr'],
    ['flies', 'fli'],
    ['fly', 'fli'],
  ])('%s -> %s', (word, expected) => {
    expect(stem(word)).toBe(expected);
  });
});

describe('tokenize', () => {
  it('keeps identifiers with digits whole, splits other hyphenated words, drops possessive s', () => {
    const t = tokenize("The Zephyr-9's carbon-fibre frame, COVID-19 and Tesla's coil.");
    expect(t.map((x) => x.lower)).toEqual(['the', 'zephyr-9', 'carbon', 'fibre', 'frame', 'covid-19', 'and', 'tesla', 'coil']);
    expect(t[1]!.raw).toBe("Zephyr-9's");
    expect(t.find((x) => x.lower === 'the')!.stop).toBe(true);
  });

  it('joins everyday synonyms that stemming cannot', () => {
    expect(concept(stem('manufactured'))).toBe(concept(stem('makes')));
    expect(concept(stem('price'))).toBe(concept(stem('cost')));
    expect(concept(stem('drone'))).toBe(stem('drone'));
  });
});

describe('splitSentences', () => {
  it('handles abbreviations, initials, decimals and quotes', () => {
    const text = 'Dr. Smith met J. K. Rowling at the U.S. Army base. It cost $3.5 million! Really? He said "yes." Then e.g. this.';
    expect(splitSentences(text).map((s) => s.text)).toEqual([
      'Dr. Smith met J. K. Rowling at the U.S. Army base.',
      'It cost $3.5 million!',
      'Really?',
      'He said "yes."',
      'Then e.g. this.',
    ]);
  });

  it('breaks at blank lines, list items and markdown headings', () => {
    const text = '# Returns\nItems can be returned\n\n- within 30 days\n- unused\n1. Open the app';
    expect(splitSentences(text).map((s) => s.text)).toEqual([
      '# Returns',
      'Items can be returned',
      '- within 30 days',
      '- unused',
      '1. Open the app',
    ]);
  });

  it('reports offsets into the original text', () => {
    const text = '  First one.  Second one.';
    for (const s of splitSentences(text)) expect(text.slice(s.start, s.end)).toBe(s.text);
  });
});
