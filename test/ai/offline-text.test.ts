import { describe, expect, it } from 'vitest';
import { stem } from '../../src/text/porter';
import { passageSupport, relatedWords } from '../../src/answering/offline/support';
import { answerFromPassages } from '../../src/answering/offline/answerer';
import { concept, questionContent, readingIn, splitSentences, tokenize } from '../../src/text/tokens';
import { analyseQuestion } from '../../src/answering/analyse-question';

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

  it('tokenises a text once while it is recent, and forgets the oldest texts past its bound', () => {
    const text = 'Revenue grew 12% in the third quarter, driven by cloud services.';
    const first = tokenize(text);
    expect(tokenize(text)).toBe(first);
    // 100,000 tokens of other texts push it out; it is tokenised again, to the same tokens.
    for (let i = 0; i < 1_100; i++) tokenize(`${'word '.repeat(99)}${i}`);
    const again = tokenize(text);
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });

  it('keeps a text that is used often while newer ones arrive', () => {
    const hot = 'The warranty covers the battery for two years.';
    const kept = tokenize(hot);
    for (let i = 0; i < 1_100; i++) {
      tokenize(`${'term '.repeat(99)}${i}`);
      if (i % 100 === 0) expect(tokenize(hot)).toBe(kept);
    }
    expect(tokenize(hot)).toBe(kept);
  });

  it('joins everyday synonyms that stemming cannot', () => {
    expect(concept(stem('manufactured'))).toBe(concept(stem('makes')));
    expect(concept(stem('price'))).toBe(concept(stem('cost')));
    expect(concept(stem('drone'))).toBe(stem('drone'));
  });
});

describe('questionContent', () => {
  it('keeps what a question asks about: not its framing, nor the adjective of "how long"', () => {
    expect(questionContent(tokenize('Please summarize how long the Zephyr-9 can fly')).map((t) => t.lower)).toEqual(['zephyr-9', 'fly']);
  });

  it('is what the refusal gate covers: a passage holding the Zephyr-9 and flying covers "How long can the Zephyr-9 fly?"', () => {
    // Coverage alone (no cosine, no BM25): "long" counted once, and the widget's follow-up was refused.
    expect(passageSupport(analyseQuestion('How long can the Zephyr-9 fly?'), [{ text: 'The Zephyr-9 can fly for 47 minutes on a single battery charge.' }])).toEqual([1]);
  });

  it('leaves out the words that ask for a name or a kind in other languages too, as "name" and "called" in English', () => {
    const asked = (q: string, language: 'de' | 'es' | 'zh') => readingIn(language, () => questionContent(tokenize(q)).map((t) => t.lower));
    expect(asked('Wie lautet der Nachname des Gründers?', 'de')).toEqual(['gründers']);
    expect(asked('¿Cómo se llamaba el primer alcalde?', 'es')).toEqual(['alcalde']);
    expect(asked('哪位作家写了这本书？', 'zh')).not.toContain('哪位');
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

describe('words and sentences in other languages', () => {
  it('tokenizes scripts without spaces into words, and stems in the text’s language', () => {
    expect(tokenize('北京是中国的首都。').map((t) => t.lower)).toEqual(['北京', '是', '中国', '的', '首都']);
    expect(tokenize('東京都に住んでいます').map((t) => t.lower)).toEqual(['東京', '都', 'に', '住', 'んで', 'い', 'ます']);
    expect(tokenize('Die Häuser wurden gebaut', 'de').map((t) => t.stem)).toEqual(['die', 'haus', 'wurd', 'gebaut']);
    expect(tokenize('Столица России', 'ru').map((t) => t.stem)).toEqual(['столиц', 'росс']);
    // Hyphenated names with a digit stay one word there too.
    expect(tokenize('COVID-19 病例').map((t) => t.lower)).toEqual(['covid-19', '病例']);
    // In English, what it always was.
    expect(tokenize('The U.S. economy grew 3.5%').map((t) => t.lower)).toEqual(['the', 'u', 's', 'economy', 'grew', '3', '5']);
  });

  it('reads stop words of the language it reads in', () => {
    expect(readingIn('zh', () => questionContent(tokenize('长城的总长度是多少？')).map((t) => t.lower))).toEqual(['长城', '总', '长度']);
  });

  it('splits sentences at any script’s sentence end, and Thai at its spaces', () => {
    expect(splitSentences('北京是中国的首都。上海是最大的城市！你知道吗？是的。').map((s) => s.text)).toEqual(['北京是中国的首都。', '上海是最大的城市！', '你知道吗？', '是的。']);
    expect(splitSentences('ภาษาไทยง่ายนิดเดียว ฉันชอบเรียนภาษาไทย').map((s) => s.text)).toEqual(['ภาษาไทยง่ายนิดเดียว', 'ฉันชอบเรียนภาษาไทย']);
    expect(splitSentences('هل تعرف القاهرة؟ نعم، إنها عاصمة مصر. وهي كبيرة.').map((s) => s.text)).toEqual(['هل تعرف القاهرة؟', 'نعم، إنها عاصمة مصر.', 'وهي كبيرة.']);
    expect(splitSentences('दिल्ली भारत की राजधानी है। यह एक बड़ा शहर है।').map((s) => s.text)).toEqual(['दिल्ली भारत की राजधानी है।', 'यह एक बड़ा शहर है।']);
    expect(splitSentences('Mr. Smith went to Washington. He left.').map((s) => s.text)).toEqual(['Mr. Smith went to Washington.', 'He left.']);
  });
});

describe('related words, where support reads words alone', () => {
  it('relates a compound to its part and two forms of one word, not words that merely start alike', () => {
    expect(relatedWords('kundendienst', 'dienst')).toBe(true);
    expect(relatedWords('verkauften', 'verkaufen')).toBe(true);
    expect(relatedWords('organisiert', 'organisieren')).toBe(true);
    expect(relatedWords('verwaltung', 'verwandter')).toBe(false);
    expect(relatedWords('bahn', 'bahnhof')).toBe(false);
  });

  it('counts a question word a passage holds in another form', () => {
    const passage = [{ text: 'Der Kundendienst der Stadtwerke ist werktags bis 18 Uhr für alle Stromkunden erreichbar, während die Störungsstelle rund um die Uhr besetzt ist.' }];
    const [support] = passageSupport(analyseQuestion('Wann ist der Dienst für Kunden der Stadtwerke erreichbar?'), passage);
    expect(support).toBe(1);
    // English too: "classification" is held by "classified", which its stemmer leaves apart.
    expect(passageSupport(analyseQuestion('What is the classification?'), [{ text: 'It was classified in 1990.' }])[0]).toBeGreaterThan(0);
  });

  it('answers from the sentence holding the question words in compounds, as the gate counts them', () => {
    const passages = [
      { marker: 1, text: 'Die Stadtwerke liefern Wasser und Wärme. Der Kundendienst betreut 40.000 Stromkunden.', source: 'stadtwerke.md', document: 'stadtwerke.md' },
    ];
    const answer = answerFromPassages(analyseQuestion('Wie viele Kunden hat der Dienst?'), passages);
    expect(answer.refused).toBe(false);
    expect(answer.text).toContain('Der Kundendienst betreut 40.000 Stromkunden');
    expect(answer.text).not.toContain('Wasser');
  });
});
