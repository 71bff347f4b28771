/** The scoring module every eval run and the reports bench share: normalisation, ranks, summary, comparison. */
import { describe, expect, it } from 'vitest';
import {
  answerContains,
  compareCase,
  documentHitRank,
  normaliseAnswerText,
  pageHitRank,
  regressionDrops,
  summariseResults,
  type ScoredResult,
} from '../../src/services/evals/score-evals';
import { parseCsv, parseJsonl, printEvalCases } from '../../src/services/evals/eval-case-format';

const passage = (rank: number, name: string, page: number | null = null) => ({ rank, document_id: `doc_${rank}`, document_name: name, page, url: null, score: 0.5 });
const expectation = (o: Partial<ScoredResult['expected']> = {}) => ({ answer: null, documents: [], pages: [], answerable: true, ...o });
const result = (o: Partial<ScoredResult>): ScoredResult => ({
  expected: expectation(),
  doc_hit_rank: null,
  page_hit_rank: null,
  answer_contains: null,
  refused: false,
  latency_ms: 10,
  judge: null,
  error: null,
  ...o,
});

describe('answer contains', () => {
  it('folds numbers, case and whitespace', () => {
    expect(normaliseAnswerText('Revenue  was 1,234.50\nUSD')).toBe('revenue was 1234.5 usd');
    expect(answerContains('Revenue was 1,234.5 million.', '1234.5')).toBe(true);
    expect(answerContains('Revenue was 1234.5 million.', '1,234.5')).toBe(true);
    expect(answerContains('It flies for 47 MINUTES.', '47 minutes')).toBe(true);
    expect(answerContains('a value of 1 000 000', '1000000')).toBe(false);
  });

  it('matches whole words and whole numbers only', () => {
    expect(answerContains('The code is 1234.', '12')).toBe(false);
    expect(answerContains('It was 1234.56 in total', '1234.5')).toBe(false);
    expect(answerContains('The category was wrong', 'cat')).toBe(false);
    expect(answerContains('The answer is 12.', '12.')).toBe(true);
    expect(answerContains('anything', '   ')).toBe(false);
  });
});

describe('ranks', () => {
  const passages = [passage(1, 'guide.md', 2), passage(2, 'report.pdf', 7), passage(3, 'report.pdf', 9)];
  it('finds the first passage of an expected document, by file name with or without extension', () => {
    expect(documentHitRank(passages, expectation({ documents: ['report.pdf'] }))).toBe(2);
    expect(documentHitRank(passages, expectation({ documents: ['REPORT'] }))).toBe(2);
    expect(documentHitRank(passages, expectation({ documents: ['other.pdf'] }))).toBeNull();
    expect(documentHitRank(passages, expectation())).toBeNull();
  });
  it('finds the first passage on an expected page of an expected document', () => {
    expect(pageHitRank(passages, expectation({ documents: ['report.pdf'], pages: [9] }))).toBe(3);
    expect(pageHitRank(passages, expectation({ documents: ['report.pdf'], pages: [2] }))).toBeNull();
    expect(pageHitRank(passages, expectation({ pages: [2] }))).toBe(1);
  });
});

describe('summary', () => {
  it('measures each figure over the cases it applies to', () => {
    const s = summariseResults([
      result({ expected: expectation({ documents: ['a'], answer: 'x' }), doc_hit_rank: 1, answer_contains: true, latency_ms: 10 }),
      result({ expected: expectation({ documents: ['a'], answer: 'x' }), doc_hit_rank: 3, answer_contains: false, latency_ms: 30 }),
      result({ expected: expectation({ documents: ['a'] }), doc_hit_rank: null, refused: true, latency_ms: 20 }),
      result({ expected: expectation({ answerable: false }), refused: true, latency_ms: 40 }),
      result({ expected: expectation({ answerable: false }), refused: false, latency_ms: 50 }),
      result({ expected: expectation({ documents: ['a'] }), error: 'failed', latency_ms: 999 }),
    ]);
    expect(s).toEqual({
      cases: 6,
      hit_at_1: 0.3333,
      hit_at_k: 0.6667,
      page_hit_at_1: null,
      page_hit_at_k: null,
      answer_contains: 0.5,
      refusal_precision: 0.5,
      refusal_recall: 0.5,
      judge_pass: null,
      latency_p50_ms: 30,
      latency_p95_ms: 50,
      errors: 1,
    });
  });

  it('flags drops beyond the threshold only', () => {
    const base = summariseResults([]);
    expect(regressionDrops({ ...base, hit_at_k: 0.8, answer_contains: 0.5 }, { ...base, hit_at_k: 0.75, answer_contains: 0.4 })).toEqual({ answer_contains: [0.5, 0.4] });
    expect(regressionDrops({ ...base, hit_at_k: 0.8 }, { ...base, hit_at_k: null })).toEqual({});
  });

  it('compares a case by its expectations met, then by rank', () => {
    const docs = expectation({ documents: ['a'] });
    expect(compareCase(result({ expected: docs, doc_hit_rank: null }), result({ expected: docs, doc_hit_rank: 4 }))).toBe('better');
    expect(compareCase(result({ expected: docs, doc_hit_rank: 1 }), result({ expected: docs, doc_hit_rank: 2 }))).toBe('worse');
    expect(compareCase(result({ expected: docs, doc_hit_rank: 2 }), result({ expected: docs, doc_hit_rank: 2 }))).toBe('same');
    const none = expectation({ answerable: false });
    expect(compareCase(result({ expected: none, refused: true }), result({ expected: none, refused: false }))).toBe('worse');
  });
});

describe('case files', () => {
  it('reads JSONL and CSV and writes them back', () => {
    const jsonl = '{"question":"How long?","answer":"47 minutes","documents":["zephyr.md"]}\n\n{"question":"Capital of Peru?","pages":[2],"answerable":false}\n';
    const cases = parseJsonl(jsonl);
    expect(cases).toEqual([
      { question: 'How long?', answer: '47 minutes', documents: ['zephyr.md'] },
      { question: 'Capital of Peru?', answerable: false, pages: [2] },
    ]);
    expect(printEvalCases('jsonl', cases.map((c) => ({ answer: null, documents: [], pages: [], answerable: true, ...c })))).toBe(jsonl.replace('\n\n', '\n'));
    const csv = 'question,answer,documents,pages,answerable\r\n"Say ""hi"", twice",hi,a.md|b.md,1|2,yes\r\nPlain,,,,\r\n';
    expect(parseCsv(csv)).toEqual([
      { question: 'Say "hi", twice', answer: 'hi', documents: ['a.md', 'b.md'], pages: [1, 2], answerable: true },
      { question: 'Plain' },
    ]);
    const printed = printEvalCases('csv', parseCsv(csv).map((c) => ({ answer: null, documents: [], pages: [], answerable: true, ...c })));
    expect(parseCsv(printed)).toEqual([
      { question: 'Say "hi", twice', answer: 'hi', documents: ['a.md', 'b.md'], pages: [1, 2], answerable: true },
      { question: 'Plain', answerable: true },
    ]);
  });

  it('names the line of a bad case', () => {
    expect(() => parseJsonl('{"question":"ok"}\nnot json')).toThrow('line 2: not a JSON object');
    expect(() => parseJsonl('{"question":"ok","extra":1}')).toThrow(/line 1: Unknown field "extra"/);
    expect(() => parseCsv('question,answerable\nfine,maybe')).toThrow('line 2: "answerable" must be true or false');
    expect(() => parseCsv('query\nx')).toThrow(/line 1: unknown column "query"/);
  });
});
