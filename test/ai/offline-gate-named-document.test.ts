/**
 * The offline refusal gate on requests that name the document they are about (support.ts): an
 * analyst's question names the company and the period, which the filing's passages rarely repeat
 * (its identity says them, in the passage's source line), and adds how to answer ("Answer in USD
 * millions."). Such a question is covered when that document's passages hold the rest of what it
 * asks; the same name with a rest they do not hold, or a question naming no document, is not.
 */
import { describe, expect, it } from 'vitest';
import { answerFromPassages } from '../../src/answering/offline/answerer';
import { askingPart, namedDocumentCoverage, supportVerdict } from '../../src/answering/offline/support';
import { MIN_NAMED_DOCUMENT_COVERAGE } from '../../src/answering/calibration';
import { analyseQuestion } from '../../src/answering/analyse-question';

const FILING = '0000950170-19-000123.pdf, “Contoso Freight plc · Form 10-K · fiscal year ended December 31, 2018”';
const OTHER = '0000950170-19-000456.pdf, “Fabrikam Logistics Inc · Form 10-K · fiscal year ended December 31, 2018”';
const passages = [
  { text: 'Capital expenditure | 2018: 1,577 | 2017: 1,373. Capital expenditure was mainly on new wagons.', source: `${FILING}, page 60`, dense: 0.3, lexical: 2 },
  { text: 'Net cash used in investing activities was 1,200 million in 2018.', source: `${FILING}, page 61`, dense: 0.3, lexical: 1 },
  { text: 'Fabrikam competes with Contoso Freight on rail freight contracts.', source: `${OTHER}, page 9`, dense: 0.3, lexical: 1 },
];

describe('askingPart', () => {
  it('keeps the sentence that asks, without the ones saying how to answer', () => {
    expect(askingPart('What is the FY2018 capital expenditure for Contoso? Answer in USD millions. Rely on the cash flow statement.')).toBe(
      'What is the FY2018 capital expenditure for Contoso?',
    );
    expect(askingPart('Assume you are an analyst. Using the balance sheet, answer this: what is the net PPNE for Contoso? Answer in USD billions.')).toBe(
      'what is the net PPNE for Contoso?',
    );
    // A leading phrase before the comma says where to look, not what is asked.
    expect(askingPart('We need a metric. Basing your judgment on the income statement, what is the gross margin of Contoso? Round to one decimal.')).toBe(
      'what is the gross margin of Contoso?',
    );
  });
  it('keeps a one-sentence question, or one without a question mark, whole', () => {
    expect(askingPart('How much leave do I get?')).toBe('How much leave do I get?');
    expect(askingPart('List the risks. Then summarise them.')).toBe('List the risks. Then summarise them.');
    // A full stop inside a name does not end the request.
    expect(askingPart('What year did Robert J. Shiller win an Economics Nobel prize?')).toBe('What year did Robert J. Shiller win an Economics Nobel prize?');
    expect(askingPart('What percentage of the U.S. population self-identify with UMC?')).toBe('What percentage of the U.S. population self-identify with UMC?');
    expect(askingPart('Which book did Robert J. Shiller, the economist, write in 2000?')).toBe('Which book did Robert J. Shiller, the economist, write in 2000?');
  });
});

describe('a question naming the document it is about', () => {
  it('is covered when that document holds the rest of the question, though no passage names the company', () => {
    const q = "What is Contoso's FY2018 capital expenditure (in millions)? Answer by relying on the cash flow statement.";
    const named = namedDocumentCoverage(askingPart(q), passages);
    expect(named.document).toContain('Contoso Freight plc');
    expect(named.coverage).toBeGreaterThanOrEqual(MIN_NAMED_DOCUMENT_COVERAGE);
    expect(supportVerdict(analyseQuestion(q), passages).covered).toBe(true);
  });

  it('is not covered when the named document does not hold what is asked about it', () => {
    const q = 'For Contoso, what was the new expiration date of the modified headquarters lease?';
    expect(namedDocumentCoverage(q, passages).coverage).toBeLessThan(MIN_NAMED_DOCUMENT_COVERAGE);
    expect(supportVerdict(analyseQuestion(q), passages).covered).toBe(false);
  });

  it('does not apply to a question naming nothing the documents are about', () => {
    const q = 'What was the capital expenditure of the Louvre in 2018?';
    expect(namedDocumentCoverage(q, passages)).toEqual({ coverage: 0, document: null });
  });
});

describe('the offline answerer on a request of several sentences', () => {
  it('answers the sentence that asks, quoting the figure row, not refusing for the instructions around it', () => {
    const request =
      "What is Contoso's FY2018 capital expenditure? Answer in USD millions. Respond by assuming the perspective of an investment analyst relying only on the details shown in the statement of cash flows.";
    const answer = answerFromPassages(analyseQuestion(request), passages.map((p, i) => ({ marker: i + 1, text: p.text, source: p.source, document: p.source.split(', page')[0] })));
    expect(answer.refused).toBe(false);
    expect(answer.text).toContain('1,577');
    expect(answer.markers).toContain(1);
  });

  it('answers a question that follows a phrase saying where to look, from the rows it names', () => {
    const statement = [
      {
        text: 'Year ended December 31 (In millions) 2018 2017 2016 Revenues $ 9,640 $ 9,105 $ 8,870 Cost of sales 5,211 4,987 4,902 Gross profit 4,429 4,118 3,968',
        source: `${FILING}, page 46`,
      },
      { text: 'Contoso Freight employs 12,400 people in 14 countries and operates 3,100 wagons.', source: `${FILING}, page 5` },
    ];
    const request =
      "We need to calculate a financial metric. Basing your judgment on the statement of income, what is Contoso's three year average of cost of sales as a % of revenues from FY2016 to FY2018? Answer in percents, rounded to one decimal place.";
    const answer = answerFromPassages(analyseQuestion(request), statement.map((p, i) => ({ marker: i + 1, text: p.text, source: p.source, document: p.source.split(', page')[0] })));
    expect(answer.refused).toBe(false);
    expect(answer.text).toContain('Cost of sales 5,211 4,987 4,902');
    expect(answer.markers).toEqual([1]);
  });
});
